//! Files the browser tools write (`save_pdf`, `save_browser_state`): the arguments they share
//! and the rules of writing: an absolute path in an existing directory, never a directory, and
//! an existing file replaced only when asked (checked before the page is read, and again when
//! the file is created).

use std::io::Write;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use uidriver_core::outline::quote;
use uidriver_core::{Delivery, Error, ErrorCode, RootRef};

/// A page and the file to write from it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PageFile {
    /// Page (@rN).
    pub root: RootRef,
    /// Absolute path to write.
    pub path: String,
    /// Replace a file there.
    #[serde(default)]
    pub overwrite: bool,
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
