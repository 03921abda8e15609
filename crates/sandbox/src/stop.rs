//! Stopping a sandbox: signal exactly the processes it recorded, their descendants, the members
//! of the sessions they lead and anything carrying the sandbox's private env marker — never by
//! name, never a reused pid, never this process or its ancestors — TERM first, KILL after a grace
//! period; then remove the X lock/socket a killed Xvfb left behind and the runtime files.

use std::collections::HashSet;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use tracing::{debug, info, warn};

use crate::manifest::{Manifest, ENV_FILE, MANIFEST_FILE};
use crate::procfs::{self, ProcStat, Sig};
use crate::{roles, x11, SANDBOX_ID_VAR};

/// How long processes get between SIGTERM and SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(5);
/// How long to wait for processes to vanish after SIGKILL.
const KILL_WAIT: Duration = Duration::from_secs(3);
/// Sweeps (collect, TERM, KILL) at most; later ones catch processes spawned while stopping.
const MAX_SWEEPS: usize = 3;

/// What [`crate::Sandbox::stop`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StopReport {
    /// Pids that got SIGTERM.
    pub terminated: Vec<u32>,
    /// Pids that were still alive after the grace period and got SIGKILL.
    pub killed: Vec<u32>,
    /// Pids still alive after SIGKILL (normally empty; a process stuck in the kernel).
    pub survivors: Vec<u32>,
    /// Recorded processes (`role pid`) that were already gone when the stop began.
    pub already_gone: Vec<String>,
    /// True if the X lock file and socket of a dead Xvfb (or XWayland's compositor) were removed.
    pub removed_x_lock: bool,
    /// True if the whole (auto-created) state directory was removed.
    pub removed_state_dir: bool,
    /// Wall time of the stop.
    pub elapsed: Duration,
}

/// A process chosen for signalling, with the start time that identifies it.
#[derive(Debug, Clone, Copy)]
struct Target {
    pid: u32,
    start_time: u64,
}

/// Stops everything `m` recorded, reaping `children` (our own child processes) as they exit.
pub(crate) fn stop_all(
    m: &Manifest,
    children: &mut Vec<Child>,
    keep_state_dir: bool,
) -> StopReport {
    let t0 = Instant::now();
    let mut report = StopReport::default();
    let lineage = procfs::own_lineage();
    let marker_entry = format!("{SANDBOX_ID_VAR}={}", m.marker);
    let mut handled: HashSet<(u32, u64)> = HashSet::new();

    for sweep in 0..MAX_SWEEPS {
        let table = procfs::table();
        let targets = collect_targets(m, &table, &lineage, &marker_entry, sweep == 0, &mut report);
        let targets: Vec<Target> = targets
            .into_iter()
            .filter(|t| handled.insert((t.pid, t.start_time)))
            .collect();
        if targets.is_empty() {
            break;
        }
        debug!(sweep, pids = ?targets.iter().map(|t| t.pid).collect::<Vec<_>>(), "TERM");
        for t in &targets {
            if procfs::alive_same(t.pid, t.start_time) && procfs::signal(t.pid, Sig::Term) {
                report.terminated.push(t.pid);
            }
        }
        let left = wait_gone(&targets, children, TERM_GRACE);
        if !left.is_empty() {
            warn!(pids = ?left.iter().map(|t| t.pid).collect::<Vec<_>>(), "still alive after SIGTERM; sending SIGKILL");
            for t in &left {
                if procfs::alive_same(t.pid, t.start_time) && procfs::signal(t.pid, Sig::Kill) {
                    report.killed.push(t.pid);
                }
            }
            let survivors = wait_gone(&left, children, KILL_WAIT);
            report.survivors.extend(survivors.iter().map(|t| t.pid));
        }
    }
    reap_dead(children, KILL_WAIT);
    if !report.survivors.is_empty() {
        warn!(pids = ?report.survivors, "processes survived SIGKILL");
    }

    report.removed_x_lock = clean_x_lock(m);
    clean_files(m, keep_state_dir, &mut report);
    report.elapsed = t0.elapsed();
    info!(state_dir = %m.state_dir.display(), elapsed_ms = report.elapsed.as_millis() as u64,
          terminated = report.terminated.len(), killed = report.killed.len(), "sandbox stopped");
    report
}

/// Everything to signal, in reverse start order: for each recorded process its descendants,
/// its session / process-group members, then itself; then processes carrying the marker.
fn collect_targets(
    m: &Manifest,
    table: &[ProcStat],
    lineage: &HashSet<u32>,
    marker_entry: &str,
    first_sweep: bool,
    report: &mut StopReport,
) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |pid: u32| {
        if lineage.contains(&pid) || !seen.insert(pid) {
            return;
        }
        if let Some(s) = table.iter().find(|s| s.pid == pid && s.is_alive()) {
            out.push(Target {
                pid,
                start_time: s.start_time,
            });
        }
    };
    for rec in m.processes.iter().rev() {
        let members = |table: &[ProcStat]| -> Vec<u32> {
            table
                .iter()
                .filter(|s| (s.session == rec.pid || s.pgrp == rec.pid) && s.pid != rec.pid)
                .map(|s| s.pid)
                .collect()
        };
        match table.iter().find(|s| s.pid == rec.pid) {
            Some(s) if s.start_time == rec.start_time => {
                for p in procfs::descendants(table, rec.pid) {
                    add(p);
                }
                for p in members(table) {
                    add(p);
                }
                if s.is_alive() {
                    add(rec.pid);
                } else if first_sweep {
                    report
                        .already_gone
                        .push(format!("{} {}", rec.role, rec.pid));
                }
            }
            Some(_) => {
                // The pid now names another process: leave it (and its session) alone.
                if first_sweep {
                    report
                        .already_gone
                        .push(format!("{} {}", rec.role, rec.pid));
                }
            }
            None => {
                // Gone. The kernel does not reuse a pid while it is still a session or group id,
                // so processes whose sid/pgid is this pid are ours.
                for p in members(table) {
                    add(p);
                }
                if first_sweep {
                    report
                        .already_gone
                        .push(format!("{} {}", rec.role, rec.pid));
                }
            }
        }
    }
    for s in table {
        if s.is_alive() && procfs::environ_contains(s.pid, marker_entry) {
            add(s.pid);
        }
    }
    out
}

/// Waits until no target is alive (reaping our children meanwhile); returns the ones left.
fn wait_gone(targets: &[Target], children: &mut Vec<Child>, max: Duration) -> Vec<Target> {
    let deadline = Instant::now() + max;
    loop {
        reap(children);
        let left: Vec<Target> = targets
            .iter()
            .copied()
            .filter(|t| procfs::alive_same(t.pid, t.start_time))
            .collect();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Reaps our own child processes that have exited, so they do not linger as zombies.
pub(crate) fn reap(children: &mut Vec<Child>) {
    children.retain_mut(|c| !matches!(c.try_wait(), Ok(Some(_)) | Err(_)));
}

/// Reaps our children that have died, waiting (at most `max`) for those whose last threads are
/// still exiting: such a process already shows as a zombie, yet cannot be waited for, and would
/// otherwise stay in `/proc` after the stop.
fn reap_dead(children: &mut Vec<Child>, max: Duration) {
    let deadline = Instant::now() + max;
    loop {
        reap(children);
        let dying = children
            .iter()
            .any(|c| procfs::stat(c.id()).is_some_and(|s| !s.is_alive()));
        if !dying || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Removes `/tmp/.XN-lock` and the socket if they still name our (now dead) Xvfb, or the dead
/// compositor that held them for XWayland (wlroots writes the compositor's pid).
fn clean_x_lock(m: &Manifest) -> bool {
    let has_x = m.env.iter().any(|(k, _)| k == "DISPLAY");
    let Some(xvfb) = m
        .processes
        .iter()
        .find(|p| p.role == roles::XVFB || (has_x && p.role == roles::COMPOSITOR))
    else {
        return false;
    };
    let lock = x11::lock_path(m.display_number);
    if procfs::lock_file_pid(&lock) != Some(xvfb.pid)
        || procfs::alive_same(xvfb.pid, xvfb.start_time)
    {
        return false;
    }
    remove_file_logged(&lock);
    remove_file_logged(&x11::socket_path(m.display_number));
    info!(display = %m.display, "removed X lock and socket left by a killed Xvfb");
    true
}

fn clean_files(m: &Manifest, keep_state_dir: bool, report: &mut StopReport) {
    let dir = &m.state_dir;
    if m.owned_state_dir && !keep_state_dir && looks_like_owned_dir(dir) {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => report.removed_state_dir = true,
            Err(e) => warn!(dir = %dir.display(), error = %e, "could not remove state dir"),
        }
        return;
    }
    let runtime = dir.join(crate::RUNTIME_DIR);
    if let Err(e) = std::fs::remove_dir_all(&runtime) {
        if e.kind() != std::io::ErrorKind::NotFound {
            warn!(dir = %runtime.display(), error = %e, "could not remove runtime dir");
        }
    }
    for f in [crate::BUS_SOCKET, ENV_FILE, MANIFEST_FILE] {
        remove_file_logged(&dir.join(f));
    }
}

/// Only directories named like the ones `start` creates are removed wholesale.
fn looks_like_owned_dir(dir: &Path) -> bool {
    dir.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(crate::STATE_DIR_PREFIX))
}

fn remove_file_logged(path: &Path) {
    if let Err(e) = std::fs::remove_file(path) {
        if e.kind() != std::io::ErrorKind::NotFound {
            warn!(path = %path.display(), error = %e, "could not remove");
        }
    }
}
