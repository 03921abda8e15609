//! Process facts from `/proc`: start time (so a recycled pid never names the wrong window),
//! command name (to skip shell and session processes), parent pid and liveness.

use std::fs;

/// Fields of `/proc/PID/stat` uidriver uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProcStat {
    /// Command name (field 2, without parentheses).
    pub comm: String,
    /// State letter (field 3); `Z` is a zombie.
    pub state: char,
    /// Parent pid (field 4).
    pub ppid: u32,
    /// Start time in clock ticks after boot (field 22).
    pub start_time: u64,
}

/// Reads `/proc/PID/stat`.
pub(crate) fn stat(pid: u32) -> Option<ProcStat> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn parse_stat(s: &str) -> Option<ProcStat> {
    // comm may contain spaces and parentheses: it ends at the last ')'.
    let open = s.find('(')?;
    let close = s.rfind(')')?;
    let comm = s.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = s.get(close + 1..)?.split_whitespace().collect();
    // rest[0] is field 3 (state); field n is rest[n - 3].
    Some(ProcStat {
        comm,
        state: rest.first()?.chars().next()?,
        ppid: rest.get(1)?.parse().ok()?,
        start_time: rest.get(19)?.parse().ok()?,
    })
}

/// Whether the process exists and is not a zombie.
pub(crate) fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|s| s.state != 'Z')
}

/// Whether the process is stopped (`T`, e.g. by SIGSTOP) or traced (`t`).
pub(crate) fn stopped(pid: u32) -> bool {
    stat(pid).is_some_and(|s| s.state == 'T' || s.state == 't')
}

/// Whether `ancestor` is `pid` or one of its ancestors.
pub(crate) fn is_self_or_ancestor(ancestor: u32, mut pid: u32) -> bool {
    for _ in 0..256 {
        if pid == ancestor {
            return true;
        }
        match stat(pid) {
            Some(s) if s.ppid != 0 && s.ppid != pid => pid = s.ppid,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_awkward_comm() {
        let line = "1234 (Web Content (x)) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 3 0 987654 1000 50";
        let s = parse_stat(line).unwrap();
        assert_eq!(s.comm, "Web Content (x)");
        assert_eq!(s.state, 'S');
        assert_eq!(s.ppid, 1);
        assert_eq!(s.start_time, 987654);
    }

    #[test]
    fn reads_own_process() {
        let me = std::process::id();
        let s = stat(me).unwrap();
        assert!(s.start_time > 0);
        assert!(alive(me) && !stopped(me));
        assert!(is_self_or_ancestor(me, me));
        assert!(is_self_or_ancestor(s.ppid, me));
    }
}
