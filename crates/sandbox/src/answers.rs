//! Whether the apps a sandbox started still answer: each is alive (the recorded process by pid +
//! start time, or, once a launcher that forked the app exited, the session it led) and its AT-SPI
//! application answers one call (`GetRole` on its root) within [`ANSWER_WITHIN`]. An app with no
//! application on the registry (a plain X client, an app that joined an accessibility bus since
//! restarted) is checked for liveness only, and its answer says so.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use zbus::Connection;

use crate::manifest::ProcessRecord;
use crate::procfs::{self, ProcStat};
use crate::{dbus, roles, Sandbox, SandboxError};

/// How long an app's accessibility root has to answer one call.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(1);
/// Lines of an app's log quoted when it does not answer.
pub const LOG_TAIL_LINES: usize = 40;

/// What the check found of one app.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Alive, and its accessibility root (the connection `bus`) answered.
    Answered {
        /// Its connection on the accessibility bus.
        bus: String,
    },
    /// Alive; not asked over accessibility, for the reason given.
    AliveOnly {
        /// Why it was not asked (no application of its on the registry, the bus unreachable).
        why: String,
    },
    /// Not alive.
    Dead {
        /// How it was found (exited, a zombie, its pid reused).
        how: String,
    },
    /// Alive, but its accessibility root did not answer within [`ANSWER_WITHIN`].
    Frozen {
        /// Its connection on the accessibility bus.
        bus: String,
        /// The process state, when it says why (stopped by a signal).
        detail: String,
    },
}

/// One app the sandbox started, and how it answered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppAnswer {
    /// The pid the sandbox recorded when it started the app.
    pub pid: u32,
    /// The program's name.
    pub name: String,
    /// Its stdout/stderr, when the sandbox kept them.
    pub log: Option<PathBuf>,
    /// What was found.
    pub verdict: Verdict,
}

impl AppAnswer {
    /// True unless the app is dead or frozen.
    pub fn answers(&self) -> bool {
        !matches!(self.verdict, Verdict::Dead { .. } | Verdict::Frozen { .. })
    }
}

impl fmt::Display for AppAnswer {
    /// One line naming the app, its pid and the verdict; a dead or frozen app adds the last
    /// [`LOG_TAIL_LINES`] lines of its log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, pid) = (&self.name, self.pid);
        match &self.verdict {
            Verdict::Answered { bus } => {
                write!(
                    f,
                    "{name} (pid {pid}) answers on the accessibility bus as {bus}"
                )
            }
            Verdict::AliveOnly { why } => {
                write!(f, "{name} (pid {pid}) is alive (liveness only: {why})")
            }
            Verdict::Dead { how } => write!(f, "{name} (pid {pid}) is dead: {how}"),
            Verdict::Frozen { bus, detail } => write!(
                f,
                "{name} (pid {pid}) is frozen: its accessibility root ({bus}) did not answer \
                 within {ANSWER_WITHIN:?}{detail}"
            ),
        }?;
        if self.answers() {
            return Ok(());
        }
        match &self.log {
            Some(log) => write!(
                f,
                "\n--- last {LOG_TAIL_LINES} lines of {}:\n{}",
                log.display(),
                log_tail(log, LOG_TAIL_LINES)
            ),
            None => write!(f, " (no log kept)"),
        }
    }
}

impl Sandbox {
    /// Checks every app this sandbox started with [`spawn`](Sandbox::spawn), except the pids in
    /// `except` (apps a caller stopped or closed on purpose): alive, and answering one
    /// accessibility call within [`ANSWER_WITHIN`]. Takes about a second per frozen app.
    pub fn check_apps(&self, except: &[u32]) -> Vec<AppAnswer> {
        let records: Vec<ProcessRecord> = self
            .processes()
            .into_iter()
            .filter(|p| p.role == roles::APP && !except.contains(&p.pid))
            .collect();
        let table = procfs::table();
        let members: Vec<Result<HashSet<u32>, String>> =
            records.iter().map(|p| live_members(p, &table)).collect();
        let alive: Vec<(u32, &HashSet<u32>)> = records
            .iter()
            .zip(&members)
            .filter_map(|(p, m)| m.as_ref().ok().map(|m| (p.pid, m)))
            .collect();
        let mut asked = match self.env_var("AT_SPI_BUS_ADDRESS") {
            Some(addr) if !alive.is_empty() => ask_all(&dbus::without_guid(addr), &alive),
            _ => Vec::new(),
        }
        .into_iter();
        records
            .iter()
            .zip(members)
            .map(|(p, m)| AppAnswer {
                pid: p.pid,
                name: name_of(p),
                log: p.log.clone(),
                verdict: match m {
                    Err(how) => Verdict::Dead { how },
                    Ok(_) => asked.next().unwrap_or(Verdict::AliveOnly {
                        why: "the sandbox has no accessibility bus".into(),
                    }),
                },
            })
            .collect()
    }

    /// [`check_apps`](Sandbox::check_apps), failing with every dead or frozen app (name, pid
    /// and the tail of its log) when there is one; otherwise the answers of all.
    pub fn apps_answer(&self, except: &[u32]) -> Result<Vec<AppAnswer>, SandboxError> {
        let answers = self.check_apps(except);
        let failing: Vec<String> = answers
            .iter()
            .filter(|a| !a.answers())
            .map(|a| a.to_string())
            .collect();
        if failing.is_empty() {
            Ok(answers)
        } else {
            Err(SandboxError::AppsNotAnswering {
                report: failing.join("\n\n"),
            })
        }
    }
}

/// The live processes of an app: the recorded one with its descendants and the session it
/// leads, or, after it exited, whatever of its session lives on (a launcher that forked the app
/// and exited). `Err` says how it ended when nothing of it lives.
fn live_members(p: &ProcessRecord, table: &[ProcStat]) -> Result<HashSet<u32>, String> {
    let session: HashSet<u32> = table
        .iter()
        .filter(|s| s.session == p.pid && s.pid != p.pid && s.is_alive())
        .map(|s| s.pid)
        .collect();
    let own = table.iter().find(|s| s.pid == p.pid);
    match own {
        Some(s) if s.is_alive() && s.start_time == p.start_time => {
            let mut all = session;
            all.insert(p.pid);
            all.extend(procfs::descendants(table, p.pid));
            Ok(all)
        }
        _ if !session.is_empty() => Ok(session),
        Some(s) if s.start_time != p.start_time => {
            Err("exited (its pid now belongs to another process)".into())
        }
        Some(_) => Err("exited (a zombie, not yet reaped)".into()),
        None => Err("exited".into()),
    }
}

/// The verdict of each live app (`(pid, its processes)`, in order) over the accessibility bus
/// at `addr`.
fn ask_all(addr: &str, apps: &[(u32, &HashSet<u32>)]) -> Vec<Verdict> {
    let asked = dbus::block_on(|| async move {
        let conn = bounded("connecting", dbus::connect(addr)).await?;
        let children = bounded(
            "listing the registry's applications",
            dbus::children(&conn, dbus::REGISTRY_NAME, dbus::ROOT_PATH),
        )
        .await?;
        let mut buses: Vec<Vec<String>> = vec![Vec::new(); apps.len()];
        for (bus, _) in children {
            let Ok(Ok(owner)) =
                tokio::time::timeout(ANSWER_WITHIN, dbus::unix_pid(&conn, &bus)).await
            else {
                continue;
            };
            let app = apps.iter().position(|(pid, members)| {
                members.contains(&owner) || procfs::is_self_or_ancestor(*pid, owner)
            });
            if let Some(i) = app {
                buses[i].push(bus);
            }
        }
        let mut verdicts = Vec::new();
        for (i, (pid, _)) in apps.iter().enumerate() {
            verdicts.push(ask_one(&conn, *pid, &buses[i]).await);
        }
        Ok(verdicts)
    });
    asked.unwrap_or_else(|e| {
        let why = format!("the accessibility bus did not answer: {e}");
        vec![Verdict::AliveOnly { why }; apps.len()]
    })
}

/// `what` bounded by [`ANSWER_WITHIN`].
async fn bounded<T>(
    what: &str,
    fut: impl std::future::Future<Output = Result<T, SandboxError>>,
) -> Result<T, SandboxError> {
    tokio::time::timeout(ANSWER_WITHIN, fut)
        .await
        .map_err(|_| SandboxError::dbus(what, format!("no answer within {ANSWER_WITHIN:?}")))?
}

/// Asks the root of each of an app's connections for its role: frozen when one stays silent.
async fn ask_one(conn: &Connection, pid: u32, buses: &[String]) -> Verdict {
    let mut answered = None;
    let mut refused = None;
    for bus in buses {
        match tokio::time::timeout(ANSWER_WITHIN, dbus::role(conn, bus, dbus::ROOT_PATH)).await {
            Ok(Ok(_)) => answered = Some(bus.clone()),
            Ok(Err(e)) => refused = Some(e.to_string()),
            Err(_) => {
                let detail = if procfs::stopped(pid) {
                    " (the process is stopped, state T)".to_string()
                } else {
                    String::new()
                };
                return Verdict::Frozen {
                    bus: bus.clone(),
                    detail,
                };
            }
        }
    }
    match (answered, refused) {
        (Some(bus), _) => Verdict::Answered { bus },
        (None, Some(e)) => Verdict::AliveOnly {
            why: format!("its accessibility root answered with an error: {e}"),
        },
        (None, None) => Verdict::AliveOnly {
            why: "no application of its on the accessibility registry".into(),
        },
    }
}

/// The program an app record started: its argv[0]'s file name, else its comm.
fn name_of(p: &ProcessRecord) -> String {
    p.argv
        .first()
        .and_then(|a| Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.comm.clone())
}

/// The last `n` lines of a log file (for error messages).
pub(crate) fn log_tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pid: u32, start_time: u64) -> ProcessRecord {
        ProcessRecord {
            role: roles::APP.into(),
            comm: "app".into(),
            pid,
            start_time,
            argv: vec!["/usr/bin/gtk3-widget-factory".into()],
            log: None,
        }
    }

    fn stat(pid: u32, session: u32, state: char, start_time: u64) -> ProcStat {
        ProcStat {
            pid,
            comm: "x".into(),
            state,
            ppid: 1,
            pgrp: session,
            session,
            start_time,
        }
    }

    #[test]
    fn an_app_is_its_process_or_what_of_its_session_lives() {
        let table = [stat(10, 10, 'S', 5), stat(11, 10, 'S', 6)];
        assert_eq!(
            live_members(&record(10, 5), &table),
            Ok(HashSet::from([10, 11]))
        );
        // A launcher that forked the app and exited: its session lives on.
        assert_eq!(
            live_members(&record(10, 5), &table[1..]),
            Ok(HashSet::from([11]))
        );
        assert_eq!(
            live_members(&record(10, 5), &[stat(10, 10, 'Z', 5)]),
            Err("exited (a zombie, not yet reaped)".into())
        );
        assert!(live_members(&record(10, 5), &[stat(10, 3, 'S', 9)])
            .is_err_and(|e| e.contains("another process")));
        assert_eq!(live_members(&record(10, 5), &[]), Err("exited".into()));
    }

    #[test]
    fn a_dead_app_is_named_with_its_pid_and_log_tail() {
        let dir = std::env::temp_dir().join(format!("uidriver-answers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let log = dir.join("app.log");
        let text: Vec<String> = (1..=50).map(|i| format!("line {i}")).collect();
        std::fs::write(&log, text.join("\n")).expect("log");
        let a = AppAnswer {
            pid: 42,
            name: "mousepad".into(),
            log: Some(log),
            verdict: Verdict::Dead {
                how: "exited".into(),
            },
        };
        let s = a.to_string();
        assert!(s.starts_with("mousepad (pid 42) is dead: exited"), "{s}");
        assert!(s.contains("line 11\n") && s.ends_with("line 50"), "{s}");
        assert!(!s.contains("line 10\n"), "{s}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
