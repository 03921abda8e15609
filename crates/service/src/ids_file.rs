//! Persisted id counters, so state ids and root refs are never reused across daemon restarts.
//!
//! A daemon reserves a block of numbers at start (and another when it runs out) by writing the
//! end of its block to a small JSON file under an exclusive file lock. A crash leaves a gap in
//! the numbering, never a reuse; two daemons sharing one file get disjoint blocks.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Numbers reserved per write.
const BLOCK: u64 = 1000;

#[derive(Default, Serialize, Deserialize)]
struct Counters {
    state: u64,
    root: u64,
}

/// The reservation this daemon holds.
pub struct IdFile {
    path: Option<PathBuf>,
    state_limit: u64,
    root_limit: u64,
}

/// First numbers this daemon may use.
pub struct FirstIds {
    /// First state id.
    pub state: u64,
    /// First root ref.
    pub root: u64,
}

impl IdFile {
    /// Reserves the first block. Without a path (tests), numbering starts at 1.
    pub fn open(path: Option<PathBuf>) -> (IdFile, FirstIds) {
        let mut f = IdFile {
            path,
            state_limit: u64::MAX,
            root_limit: u64::MAX,
        };
        let first = match f.reserve(true, true) {
            Some(c) => FirstIds {
                state: c.state,
                root: c.root,
            },
            None => FirstIds { state: 1, root: 1 },
        };
        (f, first)
    }

    /// Extends the reservation when the next numbers approach its end.
    pub fn ensure(&mut self, next_state: u64, next_root: u64) {
        let need_state = next_state + 1 >= self.state_limit;
        let need_root = next_root + 1 >= self.root_limit;
        if need_state || need_root {
            self.reserve(need_state, need_root);
        }
    }

    /// Reads the file, moves the chosen counters a block ahead, and returns the old values.
    fn reserve(&mut self, state: bool, root: bool) -> Option<Counters> {
        let path = self.path.clone()?;
        let res = (|| -> std::io::Result<Counters> {
            if let Some(dir) = path.parent() {
                crate::private::dir(dir)?;
            }
            let mut file: File = crate::private::file_options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)?;
            file.lock()?;
            let mut s = String::new();
            file.read_to_string(&mut s)?;
            let mut c: Counters = serde_json::from_str(&s).unwrap_or_default();
            c.state = c.state.max(1);
            c.root = c.root.max(1);
            let old = Counters {
                state: c.state,
                root: c.root,
            };
            if state {
                c.state += BLOCK;
                self.state_limit = c.state;
            }
            if root {
                c.root += BLOCK;
                self.root_limit = c.root;
            }
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            file.write_all(serde_json::to_string(&c)?.as_bytes())?;
            file.sync_data()?;
            Ok(old)
        })();
        match res {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot persist id counters; ids may repeat after a restart");
                None
            }
        }
    }
}

/// The default counter file: `$XDG_STATE_HOME/uidriver/ids.json` or `~/.local/state/...`.
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(base.join("uidriver/ids.json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn restarts_never_reuse_numbers() {
        let dir = std::env::temp_dir().join(format!("uidriver-ids-{}", std::process::id()));
        let path = dir.join("ids.json");
        let _ = fs::remove_file(&path);
        let (mut a, first_a) = IdFile::open(Some(path.clone()));
        assert_eq!(first_a.state, 1);
        a.ensure(first_a.state + BLOCK - 1, 1);
        let (_b, first_b) = IdFile::open(Some(path.clone()));
        assert!(first_b.state >= first_a.state + 2 * BLOCK);
        assert!(first_b.root > first_a.root);
        let _ = fs::remove_dir_all(dir);
    }
}
