//! Waiting for an app the sandbox started to be ready for an agent: its window shows on the
//! AT-SPI registry, on Wayland the compositor has mapped it, and its accessibility root answers
//! promptly (an app still loading its document fails the first look of an agent).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tracing::debug;

use crate::{dbus, procfs, wayland, AppWindow, SandboxError};

/// How fast an app's accessibility root must answer to count as ready: the budget a default
/// look gives a busy app (the Linux backend's listing timeout).
const ANSWER_WITHIN: Duration = Duration::from_millis(300);
/// Answers in a row, [`BETWEEN_ANSWERS`] apart, that make an app ready: one quick answer can fall
/// between two busy spells of an app loading a document.
const ANSWERS: u32 = 3;
const BETWEEN_ANSWERS: Duration = Duration::from_millis(50);

/// The polling loop of [`Sandbox::wait_for_app_window`]: `Ok(None)` once `timeout` has passed.
pub(crate) async fn find_app_window(
    conn: &zbus::Connection,
    compositor: Option<PathBuf>,
    pid: u32,
    t0: Instant,
    timeout: Duration,
    detail: &mut String,
) -> Result<Option<AppWindow>, SandboxError> {
    // Processes that count as "the app": pid, its descendants (accumulated, so children that
    // outlive a forking launcher stay matched) and members of the session/group it leads.
    let mut tracked: HashSet<u32> = HashSet::from([pid]);
    let mut pid_of: HashMap<String, Option<u32>> = HashMap::new();
    loop {
        let table = procfs::table();
        let snapshot: Vec<u32> = tracked.iter().copied().collect();
        for t in snapshot {
            tracked.extend(procfs::descendants(&table, t));
        }
        tracked.extend(
            table
                .iter()
                .filter(|s| s.session == pid || s.pgrp == pid)
                .map(|s| s.pid),
        );
        if !table
            .iter()
            .any(|s| tracked.contains(&s.pid) && s.is_alive())
        {
            return Err(SandboxError::AppExited { pid });
        }
        let apps = dbus::children(conn, dbus::REGISTRY_NAME, dbus::ROOT_PATH)
            .await
            .unwrap_or_default();
        for (bus, path) in apps {
            let app_pid = match pid_of.get(&bus) {
                Some(p) => *p,
                None => {
                    let p = dbus::unix_pid(conn, &bus).await.ok();
                    pid_of.insert(bus.clone(), p);
                    p
                }
            };
            let Some(app_pid) = app_pid else { continue };
            if !(tracked.contains(&app_pid) || procfs::is_self_or_ancestor(pid, app_pid)) {
                continue;
            }
            let windows = dbus::children(conn, &bus, path.as_str())
                .await
                .unwrap_or_default();
            *detail = format!(
                "registered as {bus} (pid {app_pid}) with {} top-level children, none showing",
                windows.len()
            );
            for (wbus, wpath) in windows {
                let states = dbus::state(conn, &wbus, wpath.as_str())
                    .await
                    .unwrap_or_default();
                if !dbus::has_state(&states, dbus::STATE_SHOWING) {
                    continue;
                }
                if let Some(ipc) = &compositor {
                    if !mapped(ipc, app_pid, &tracked).await {
                        *detail = format!(
                            "showing on the AT-SPI registry as {bus} (pid {app_pid}), but no \
                             window of it in sway's tree"
                        );
                        break;
                    }
                }
                if let Err(busy) = answers_promptly(conn, &bus, path.as_str()).await {
                    *detail = format!(
                        "showing on the AT-SPI registry as {bus} (pid {app_pid}), but busy: {busy}"
                    );
                    break;
                }
                let waited = t0.elapsed();
                debug!(pid, app_pid, %bus, ms = waited.as_millis() as u64, "app window ready");
                return Ok(Some(AppWindow {
                    bus_name: bus,
                    pid: app_pid,
                    window_path: wpath.to_string(),
                    waited,
                }));
            }
        }
        if t0.elapsed() >= timeout {
            return Ok(None);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Whether the compositor at `ipc` has a window of `app_pid` or of a process tracked as the app.
async fn mapped(ipc: &Path, app_pid: u32, tracked: &HashSet<u32>) -> bool {
    let ipc = ipc.to_path_buf();
    // sway's IPC is a blocking socket call (well under a millisecond): off the runtime thread.
    let pids = tokio::task::spawn_blocking(move || wayland::window_pids(&ipc))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    pids.iter().any(|p| *p == app_pid || tracked.contains(p))
}

/// Whether the app root (`bus`, `path`) answers `GetChildren` [`ANSWERS`] times in a row, each
/// within [`ANSWER_WITHIN`]; the error says how it did not.
async fn answers_promptly(conn: &zbus::Connection, bus: &str, path: &str) -> Result<(), String> {
    for i in 0..ANSWERS {
        if i > 0 {
            tokio::time::sleep(BETWEEN_ANSWERS).await;
        }
        let call = dbus::children(conn, bus, path);
        match tokio::time::timeout(ANSWER_WITHIN, call).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(format!("its accessibility root refused a call: {e}")),
            Err(_) => {
                return Err(format!(
                    "its accessibility root did not answer within {ANSWER_WITHIN:?}"
                ))
            }
        }
    }
    Ok(())
}
