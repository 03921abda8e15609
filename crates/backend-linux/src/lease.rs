//! The interaction lease: machine-wide exclusivity over physical input on one X display, held
//! by one process at a time, so two uidriver daemons (or a daemon and a standalone MCP server)
//! never interleave synthetic input. A lock file per display, taken with `flock` semantics
//! (`File::try_lock`), released when the guard drops — also when the process dies.
//!
//! The lease covers delivery only, never the waiting that precedes it (the in-process
//! `InputLock` orders this daemon's own lanes).

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::time::Duration;

use uidriver_core::{Deadline, Error, ErrorCode};

/// Held exclusivity; dropping it releases the lease.
pub(crate) struct Lease {
    _file: File,
}

fn path(display: &str) -> PathBuf {
    let name: String = display
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    std::env::temp_dir().join(format!(".uidriver-input-{name}.lock"))
}

/// Waits (until the deadline) for the lease of `display`.
pub(crate) async fn acquire(display: &str, deadline: Deadline) -> Result<Lease, Error> {
    let p = path(display);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&p)
        .map_err(|e| Error::internal(format!("input lease {}: {e}", p.display())))?;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Lease { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::internal(format!("input lease {}: {e}", p.display())))
            }
        }
        if deadline.expired() {
            return Err(Error::new(
                ErrorCode::Timeout,
                "another uidriver process is sending input on this display; nothing was sent",
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_second_holder_waits_until_the_first_lets_go() {
        let display = format!("test-{}", std::process::id());
        let first = acquire(&display, Deadline::after(Duration::from_secs(1)))
            .await
            .expect("free lease");
        // flock is per open file: a second open of the same file is a second holder.
        let busy = acquire(&display, Deadline::after(Duration::from_millis(100))).await;
        assert_eq!(busy.err().map(|e| e.code), Some(ErrorCode::Timeout));
        drop(first);
        let second = acquire(&display, Deadline::after(Duration::from_secs(1))).await;
        assert!(second.is_ok());
        let _ = std::fs::remove_file(path(&display));
    }
}
