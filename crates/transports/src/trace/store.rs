//! Where traces live and how much of the disk they may take: one directory per trace under
//! `$XDG_STATE_HOME/uidriver/traces/` (default `~/.local/state/uidriver/traces/`), holding
//! `trace.jsonl` and the PNG screenshots its records name. Old traces are pruned, oldest first,
//! before a new one starts, so the whole stays under [`Limits`]. Reading a trace back for
//! `uidriver trace list | view | replay` is here too; what a record holds is `record.rs`'s.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use uidriver_service::ToolName;

use super::record::{parse_line, Call, Header, Line, FORMAT};

/// The trace file inside a trace's directory.
pub const FILE: &str = "trace.jsonl";

/// How much traces may take.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes one trace may grow to (records past it keep no structure and no screenshots).
    pub per_trace: u64,
    /// Bytes all traces together may take; the oldest go first.
    pub total: u64,
    /// Traces kept.
    pub count: usize,
}

impl Default for Limits {
    /// 16 MiB a trace (a session of ~100 acts with two 1366×768 screenshots each, ~60 KB a
    /// PNG of a desktop), 256 MiB and 200 traces in all.
    fn default() -> Self {
        Limits {
            per_trace: 16 << 20,
            total: 256 << 20,
            count: 200,
        }
    }
}

/// The traces directory: `$XDG_STATE_HOME/uidriver/traces`, else `~/.local/state/…`.
pub fn default_dir() -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into());
            PathBuf::from(home).join(".local/state")
        });
    state.join("uidriver/traces")
}

/// One trace as `uidriver trace list` shows it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The id (`uidriver trace view ID`).
    pub id: String,
    /// When its first call came, RFC 3339 UTC.
    pub started: String,
    /// The client's name (`unknown` when it gave none).
    pub client: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// Calls recorded.
    pub calls: usize,
    /// Of which `act_ui` calls.
    pub acts: usize,
    /// Bytes on disk (trace file and screenshots).
    pub bytes: u64,
    /// Its directory.
    pub path: PathBuf,
}

/// A trace read back: its header and its calls in the order they were written.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The session.
    pub header: Header,
    /// The calls.
    pub calls: Vec<Call>,
    /// Its directory (screenshots are files in it).
    pub dir: PathBuf,
}

/// A new, unused trace id: UTC time of day to the second, the process and a counter, so ids
/// sort by time and two sessions of one process never share one.
pub fn new_id(now: SystemTime) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    let t = rfc3339(now).replace(['-', ':'], "");
    format!(
        "{}-{}-{}",
        t.trim_end_matches('Z'),
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `2026-12-03T01:42:11Z`: the civil date from days since the epoch (Howard Hinnant's
/// algorithm), so no date crate is needed for one format.
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Bytes of the files directly inside `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Trace directories under `root`, oldest first (ids sort by time).
fn trace_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .map(|it| {
            it.flatten()
                .map(|e| e.path())
                .filter(|p| p.join(FILE).is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// Removes the oldest traces under `root` until the rest, plus `room` bytes for the one about
/// to start, fit `limits` (and leaves a slot for it in the count). Returns what it removed.
pub fn prune(root: &Path, limits: &Limits, room: u64) -> Vec<PathBuf> {
    let dirs = trace_dirs(root);
    let mut sizes: Vec<(PathBuf, u64)> = dirs
        .into_iter()
        .map(|d| {
            let b = dir_bytes(&d);
            (d, b)
        })
        .collect();
    let mut total: u64 = sizes.iter().map(|(_, b)| b).sum();
    let mut removed = Vec::new();
    while !sizes.is_empty() && (total + room > limits.total || sizes.len() >= limits.count) {
        let (d, b) = sizes.remove(0);
        if let Err(e) = fs::remove_dir_all(&d) {
            tracing::warn!(dir = %d.display(), "pruning a trace: {e}");
        }
        total = total.saturating_sub(b);
        removed.push(d);
    }
    removed
}

/// Reads a trace by id (or by its directory's path).
pub fn read(root: &Path, id: &str) -> io::Result<Trace> {
    let dir = if id.contains('/') {
        PathBuf::from(id)
    } else {
        root.join(id)
    };
    let text = fs::read_to_string(dir.join(FILE))?;
    let mut header = None;
    let mut calls = Vec::new();
    for line in text.lines() {
        match parse_line(line) {
            Some(Line::Header(h)) if header.is_none() => header = Some(h),
            Some(Line::Call(c)) => calls.push(*c),
            _ => {}
        }
    }
    let header = header.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "the trace file has no session header",
        )
    })?;
    if header.format != FORMAT {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "trace format {} (this uidriver reads {FORMAT})",
                header.format
            ),
        ));
    }
    Ok(Trace { header, calls, dir })
}

/// Every readable trace under `root`, oldest first.
pub fn list(root: &Path) -> Vec<Summary> {
    trace_dirs(root)
        .into_iter()
        .filter_map(|d| {
            let id = d.file_name()?.to_string_lossy().to_string();
            let t = read(root, &id).ok()?;
            Some(Summary {
                id,
                started: t.header.started.clone(),
                client: t
                    .header
                    .client
                    .as_ref()
                    .map_or_else(|| "unknown".into(), |c| c.name.clone()),
                transport: t.header.transport.clone(),
                calls: t.calls.len(),
                acts: t
                    .calls
                    .iter()
                    .filter(|c| c.tool == ToolName::ActUi.as_str())
                    .count(),
                bytes: dir_bytes(&d),
                path: d,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_civil_utc() {
        let t = UNIX_EPOCH + Duration::from_secs(1_796_262_131);
        assert_eq!(rfc3339(t), "2026-12-03T01:42:11Z");
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
        let id = new_id(t);
        assert!(id.starts_with("20261203T014211-"), "{id}");
        assert_ne!(new_id(t), id);
    }

    #[test]
    fn pruning_removes_the_oldest_until_the_rest_fit() {
        let root = tempfile::tempdir().unwrap();
        for (i, size) in [300usize, 300, 300].iter().enumerate() {
            let d = root.path().join(format!("2026120{i}T000000-1-1"));
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join(FILE), vec![b'x'; *size]).unwrap();
        }
        let limits = Limits {
            per_trace: 1000,
            total: 1000,
            count: 10,
        };
        // 900 bytes + 200 of room > 1000: the oldest goes, the two newer stay.
        let removed = prune(root.path(), &limits, 200);
        assert_eq!(removed.len(), 1);
        assert!(removed[0].ends_with("20261200T000000-1-1"));
        assert_eq!(trace_dirs(root.path()).len(), 2);
        // A count of 2 leaves room for the new one: one more goes.
        let limits = Limits { count: 2, ..limits };
        assert_eq!(prune(root.path(), &limits, 0).len(), 1);
        assert_eq!(trace_dirs(root.path()).len(), 1);
    }
}
