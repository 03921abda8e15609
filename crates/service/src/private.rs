//! Files that hold what the user saw and typed (traces with their screenshots, id counters,
//! logs, tokens, sockets) are the user's alone: directories 0700 and files 0600, whatever the
//! umask (modes are set after creation, not left to it), and ones found wider at start are
//! tightened with a warning. Only directories uidriver owns are changed, never their parents.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Owner-only directories.
pub const DIR_MODE: u32 = 0o700;
/// Owner-only files.
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` (and missing parents) and makes `dir` itself owner-only.
pub fn dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    restrict(dir, DIR_MODE)?;
    Ok(())
}

/// Options that create a file owner-only (the umask can only narrow 0600).
pub fn file_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.mode(FILE_MODE);
    o
}

/// Writes `bytes` to `path`, created or replaced, owner-only.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = file_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    // A file that existed kept its mode through the open.
    restrict(path, FILE_MODE)?;
    f.write_all(bytes)
}

/// Gives `path` exactly `mode` (a symlink is left alone: its target is not ours to change).
fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    let m = fs::symlink_metadata(path)?;
    if m.file_type().is_symlink() || m.permissions().mode() & 0o777 == mode {
        return Ok(());
    }
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// Tightens everything under `root` (itself included) that group or others could reach:
/// directories to 0700, files to 0600. Returns the paths it changed; symlinks are not
/// followed. A missing `root` is nothing to do.
pub fn tighten_tree(root: &Path) -> Vec<PathBuf> {
    let mut changed = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(p) = todo.pop() {
        let Ok(m) = fs::symlink_metadata(&p) else {
            continue;
        };
        let wide = m.permissions().mode() & 0o077 != 0;
        if m.is_dir() {
            if wide && fs::set_permissions(&p, fs::Permissions::from_mode(DIR_MODE)).is_ok() {
                changed.push(p.clone());
            }
            if let Ok(rd) = fs::read_dir(&p) {
                todo.extend(rd.flatten().map(|e| e.path()));
            }
        } else if m.is_file() || m.file_type().is_socket() || m.file_type().is_fifo() {
            let keep = m.permissions().mode() & 0o700;
            if wide && fs::set_permissions(&p, fs::Permissions::from_mode(keep)).is_ok() {
                changed.push(p.clone());
            }
        }
    }
    changed
}

/// [`tighten_tree`] on each of uidriver's own directories, warning once per directory about
/// what it found readable by others.
pub fn tighten_at_start(roots: &[PathBuf]) {
    for r in roots {
        let changed = tighten_tree(r);
        if let Some(first) = changed.first() {
            tracing::warn!(
                "{} path(s) under {} were readable by other users (e.g. {}); made owner-only",
                changed.len(),
                r.display(),
                first.display()
            );
        }
    }
}

/// uidriver's state directory: `$XDG_STATE_HOME/uidriver`, else `~/.local/state/uidriver`.
pub fn state_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(base.join("uidriver"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn private_files_are_owner_only_and_wide_ones_are_tightened() {
        let d = tempfile::tempdir().unwrap();
        let top = d.path().join("uidriver");
        dir(&top.join("traces")).unwrap();
        assert_eq!(mode(&top.join("traces")), 0o700);
        write(&top.join("traces/t.jsonl"), b"x").unwrap();
        assert_eq!(mode(&top.join("traces/t.jsonl")), 0o600);
        // Found wide (an older version, a umask of 0): tightened, and said.
        fs::set_permissions(&top, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(
            top.join("traces/t.jsonl"),
            fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        let changed = tighten_tree(&top);
        assert_eq!(changed.len(), 2, "{changed:?}");
        assert_eq!(mode(&top), 0o700);
        assert_eq!(mode(&top.join("traces/t.jsonl")), 0o600);
        assert!(tighten_tree(&top).is_empty(), "nothing left to tighten");
        // A replaced file loses the wide mode it had.
        fs::set_permissions(
            top.join("traces/t.jsonl"),
            fs::Permissions::from_mode(0o666),
        )
        .unwrap();
        write(&top.join("traces/t.jsonl"), b"y").unwrap();
        assert_eq!(mode(&top.join("traces/t.jsonl")), 0o600);
    }
}
