//! `save_pdf`: a browser page printed to a PDF file (the backend prints, `BrowserControl::
//! print_pdf`; this file checks the path and writes). It never replaces a file unless asked
//! (`overwrite: true`), and the path is checked before the page is printed, so a refused call
//! has done nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::outline::quote;
use uidriver_core::{Deadline, Delivery, Error, ErrorCode, RootRef};

use crate::tools::browser::{browser_control, page_root};
use crate::{Service, ToolResult};

/// Printing a long page takes a few seconds in headless Chromium; this bounds it.
const DEADLINE: Duration = Duration::from_secs(30);

/// Arguments of `save_pdf`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// Page (@rN).
    pub root: RootRef,
    /// Absolute path to write.
    pub path: String,
    /// Replace a file there.
    #[serde(default)]
    pub overwrite: bool,
}

/// The structured result of `save_pdf`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The page.
    pub root: RootRef,
    /// The file written.
    pub path: String,
    /// Its size.
    pub bytes: usize,
}

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let path = check_path(&a.path, a.overwrite)?;
    let (r, info) = page_root(svc, Some(a.root), None)?;
    let bc = browser_control(svc)?;
    let deadline = Deadline::after(DEADLINE);
    // Printing reads the page and changes nothing in it: the lane orders it with other calls
    // on the page, and the epoch stays.
    let guard = svc.lanes.enter(&info.resource).await;
    let pdf = bc.print_pdf(&info, deadline).await;
    drop(guard);
    let pdf = pdf?;
    write(&path, &pdf, a.overwrite, 0o644)?;
    let shown = quote(&a.path, 200);
    Ok(ToolResult::ok(
        format!("saved {r} as PDF to {shown} ({} bytes)\n", pdf.len()),
        &Output {
            root: r,
            path: a.path,
            bytes: pdf.len(),
        },
    ))
}

/// The path, if it may be written: absolute, in an existing directory, not a directory, and
/// absent unless `overwrite`.
pub(crate) fn check_path(p: &str, overwrite: bool) -> Result<PathBuf, Error> {
    let path = PathBuf::from(p);
    let bad = |why: &str| Error::invalid("path", format!("{} {why}", quote(p, 200)));
    if !path.is_absolute() {
        return Err(bad("is not an absolute path"));
    }
    if !path.parent().is_some_and(Path::is_dir) {
        return Err(bad("is not in an existing directory"));
    }
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_dir() => Err(bad("is a directory")),
        Ok(_) if !overwrite => Err(bad("exists")
            .with_hint("Pick a new path, or pass overwrite: true to replace the file.")),
        _ => Ok(path),
    }
}

/// Writes the file (created with `mode`, less the umask); without `overwrite` it is created
/// only if still absent (a file that appeared since the check is not replaced).
pub(crate) fn write(path: &Path, pdf: &[u8], overwrite: bool, mode: u32) -> Result<(), Error> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).mode(mode);
    if overwrite {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    let shown = quote(&path.display().to_string(), 200);
    let failed = |e: std::io::Error| {
        let code = if e.kind() == std::io::ErrorKind::AlreadyExists {
            ErrorCode::InvalidArgs
        } else {
            ErrorCode::Internal
        };
        Error::new(code, format!("path: writing {shown} failed: {e}"))
            .delivered(Delivery::NotDelivered)
    };
    let mut f = opts.open(path).map_err(failed)?;
    f.write_all(pdf).map_err(failed)?;
    f.sync_all().map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_absolute_new_files_in_existing_directories() {
        let dir = std::env::temp_dir().join(format!("uidriver-pdf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let new = dir.join("a.pdf");
        assert!(check_path(new.to_str().unwrap(), false).is_ok());
        std::fs::write(&new, b"old").unwrap();
        let e = check_path(new.to_str().unwrap(), false).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgs);
        assert!(e.message.contains("exists"), "{}", e.message);
        assert!(check_path(new.to_str().unwrap(), true).is_ok());
        // The write does not replace a file that appeared after the check.
        assert!(write(&new, b"%PDF", false, 0o644).is_err());
        assert_eq!(std::fs::read(&new).unwrap(), b"old");
        write(&new, b"%PDF", true, 0o644).unwrap();
        assert_eq!(std::fs::read(&new).unwrap(), b"%PDF");
        for bad in ["a.pdf", "/no/such/dir/a.pdf", dir.to_str().unwrap()] {
            let e = check_path(bad, true).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidArgs, "{bad}");
            assert!(e.message.starts_with("path"), "{bad}: {}", e.message);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
