//! Process facts from `/proc`, one rule for every crate: liveness (zombies and dead processes
//! count as gone, PID 1 reaps them late on some machines), stopped processes (SIGSTOP), identity
//! (pid + start time, so a reused pid is never mistaken for ours), ancestry, descendants, and
//! signals. The sandbox stops "exactly what it started" with these; the Linux backend tells a
//! recycled pid from the app it observed and a stopped app from a slow one. Nothing here ever
//! picks processes by name; `executable_names` only tells a process's names, so a user's
//! policy (which lists applications by name) can be matched against it.
#![warn(missing_docs)]

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// One line of `/proc/PID/stat`, the fields we use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcStat {
    /// Process id.
    pub pid: u32,
    /// Executable name as the kernel keeps it (at most 15 bytes).
    pub comm: String,
    /// State letter (`R`, `S`, `D`, `Z`, ...).
    pub state: char,
    /// Parent pid.
    pub ppid: u32,
    /// Process group id.
    pub pgrp: u32,
    /// Session id.
    pub session: u32,
    /// Start time in clock ticks after boot; with the pid it identifies a process.
    pub start_time: u64,
}

impl ProcStat {
    /// Running or sleeping, i.e. neither a zombie nor dead.
    pub fn is_alive(&self) -> bool {
        !matches!(self.state, 'Z' | 'X' | 'x')
    }
}

/// Parses the text of a `/proc/PID/stat` file.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text.get(..open)?.trim().parse().ok()?;
    let comm = text.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // rest[0] is field 3 (state); starttime is field 22.
    Some(ProcStat {
        pid,
        comm,
        state: rest.first()?.chars().next()?,
        ppid: rest.get(1)?.parse().ok()?,
        pgrp: rest.get(2)?.parse().ok()?,
        session: rest.get(3)?.parse().ok()?,
        start_time: rest.get(19)?.parse().ok()?,
    })
}

/// Reads `/proc/PID/stat`; `None` if the process does not exist (any more).
pub fn stat(pid: u32) -> Option<ProcStat> {
    if pid == 0 {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)
}

/// True if `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|s| s.is_alive())
}

/// True if `pid` is stopped (`T`, e.g. by SIGSTOP) or traced (`t`).
pub fn stopped(pid: u32) -> bool {
    stat(pid).is_some_and(|s| matches!(s.state, 'T' | 't'))
}

/// True if `pid` is alive and is still the process that started at `start_time`.
pub fn alive_same(pid: u32, start_time: u64) -> bool {
    stat(pid).is_some_and(|s| s.is_alive() && s.start_time == start_time)
}

/// Snapshot of every process in `/proc`.
pub fn table() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(stat)
        .collect()
}

/// All descendants of `root` in `table` (children before grandchildren), `root` excluded.
pub fn descendants(table: &[ProcStat], root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for p in table {
        children.entry(p.ppid).or_default().push(p.pid);
    }
    let mut out = Vec::new();
    let mut seen = HashSet::from([root]);
    let mut queue = std::collections::VecDeque::from([root]);
    while let Some(p) = queue.pop_front() {
        for &c in children.get(&p).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(c) {
                out.push(c);
                queue.push_back(c);
            }
        }
    }
    out
}

/// True if `ancestor` is `pid` or one of its ancestors (per `/proc`, at call time).
pub fn is_self_or_ancestor(ancestor: u32, pid: u32) -> bool {
    let mut cur = pid;
    for _ in 0..1024 {
        if cur == ancestor {
            return true;
        }
        match stat(cur) {
            Some(s) if s.ppid != 0 && s.ppid != cur => cur = s.ppid,
            _ => return false,
        }
    }
    false
}

/// This process and all its ancestors: never signalled by a stop.
pub fn own_lineage() -> HashSet<u32> {
    let mut out = HashSet::new();
    let mut cur = std::process::id();
    while cur > 1 && out.insert(cur) {
        match stat(cur) {
            Some(s) => cur = s.ppid,
            None => break,
        }
    }
    out.insert(1);
    out
}

/// The names `pid` runs under, for matching a process against a list of application names
/// the user wrote (a policy): the basename of `/proc/PID/exe`, the kernel's `comm`, and the
/// basename of `argv[0]`, deduplicated. An interpreted app (`python3 app.py`) is known by its
/// interpreter in `exe` but often by its own name in `argv[0]` or `comm`. Empty when the
/// process is gone.
pub fn executable_names(pid: u32) -> Vec<String> {
    if pid == 0 {
        return vec![];
    }
    let base = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut names = Vec::new();
    if let Some(n) = std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| base(&p))
    {
        // A replaced binary reads as "NAME (deleted)".
        names.push(n.trim_end_matches(" (deleted)").to_string());
    }
    if let Some(s) = stat(pid) {
        names.push(s.comm);
    }
    if let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) {
        if let Some(first) = cmd.split(|&b| b == 0).next().filter(|a| !a.is_empty()) {
            if let Some(n) = base(Path::new(&*String::from_utf8_lossy(first))) {
                names.push(n);
            }
        }
    }
    let mut seen = HashSet::new();
    names.retain(|n| !n.is_empty() && seen.insert(n.clone()));
    names
}

/// True if the environment `pid` was started with contains exactly `entry` (`KEY=VALUE`).
pub fn environ_contains(pid: u32, entry: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|bytes| bytes.split(|&b| b == 0).any(|e| e == entry.as_bytes()))
        .unwrap_or(false)
}

/// Which signal to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sig {
    /// SIGTERM.
    Term,
    /// SIGKILL.
    Kill,
}

/// Sends `sig` to `pid`; errors (already gone, ...) are ignored and reported as `false`.
pub fn signal(pid: u32, sig: Sig) -> bool {
    let Some(p) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    let s = match sig {
        Sig::Term => rustix::process::Signal::TERM,
        Sig::Kill => rustix::process::Signal::KILL,
    };
    rustix::process::kill_process(p, s).is_ok()
}

/// The pid written in an X server lock file (`/tmp/.XN-lock`), if readable. Xorg ends it with a
/// newline, wlroots (XWayland's lock, naming the compositor) with a NUL.
pub fn lock_file_pid(path: &Path) -> Option<u32> {
    parse_lock(&std::fs::read_to_string(path).ok()?)
}

fn parse_lock(text: &str) -> Option<u32> {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\0')
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_files_of_xorg_and_wlroots_name_their_pid() {
        assert_eq!(parse_lock("      4242\n"), Some(4242));
        assert_eq!(parse_lock("     21742\0"), Some(21742));
        assert_eq!(parse_lock("x"), None);
    }

    #[test]
    fn parses_stat_with_spaces_and_parens_in_comm() {
        let line =
            "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        let s = parse_stat(line).expect("parse");
        assert_eq!(s.pid, 4242);
        assert_eq!(s.comm, "a (b) c");
        assert_eq!(s.state, 'S');
        assert_eq!((s.ppid, s.pgrp, s.session), (1, 4242, 4242));
        assert_eq!(s.start_time, 987654);
    }

    #[test]
    fn own_process_is_alive_and_in_lineage() {
        let me = std::process::id();
        let s = stat(me).expect("own stat");
        assert!(alive(me) && !stopped(me));
        assert!(alive_same(me, s.start_time));
        assert!(!alive_same(me, s.start_time + 1));
        assert!(own_lineage().contains(&me));
        assert!(is_self_or_ancestor(s.ppid, me));
    }

    #[test]
    fn own_executable_names_include_the_test_binary() {
        let exe = std::env::current_exe().unwrap();
        let want = exe.file_name().unwrap().to_string_lossy().into_owned();
        let names = executable_names(std::process::id());
        assert!(names.contains(&want), "{names:?} lacks {want}");
        let unique: HashSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "deduplicated: {names:?}");
        assert!(executable_names(0).is_empty());
    }
}
