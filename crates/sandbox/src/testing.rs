//! The harness live tests share (feature `testing`): one live test at a time, each on its own
//! runtime with a hard timeout that stops the sandboxes the test started, and skipped with a
//! message when a program it needs is not installed; every app a test started must still answer
//! after each act (the shared act helpers call [`apps_answer`]) and when its sandbox stops,
//! unless the test let it go ([`let_go`]).

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::{procfs, Sandbox, SandboxConfig};

/// One live test at a time in a test binary: they share two cores with the apps they drive.
static SERIAL: Mutex<()> = Mutex::new(());

/// Programs every live test needs.
const BASE: &[&str] = &["Xvfb", "dbus-daemon", "openbox"];

/// What a live test keeps about the sandboxes it started.
#[derive(Default)]
struct Kept {
    /// State dirs, so a timed-out test can stop them and checks can attach to them.
    dirs: Vec<PathBuf>,
    /// Apps the test stops or closes on purpose (pids, with the session and group they lead).
    let_go: Vec<u32>,
    /// What the check before each sandbox stopped found dead or frozen.
    failures: Vec<String>,
}

/// The sandboxes a test started and the apps it let go: stops them when the test times out,
/// and checks that every other app still answers (after each act, and before each sandbox
/// stops).
#[derive(Clone, Default)]
pub struct Tracker(Arc<Mutex<Kept>>);

/// The tracker of the live test running now (one at a time in a binary, under `SERIAL`), for
/// helpers that see no tracker: [`apps_answer`], [`let_go`].
static CURRENT: Mutex<Option<Tracker>> = Mutex::new(None);

impl Tracker {
    /// Starts a sandbox with the default configuration and tracks it.
    pub fn start(&self) -> Sandbox {
        self.start_with(SandboxConfig::default())
    }

    /// Starts a sandbox and tracks it; its apps are checked before it stops (the end-of-test
    /// check: a dead or frozen app fails the test).
    pub fn start_with(&self, cfg: SandboxConfig) -> Sandbox {
        let sb = Sandbox::start(cfg).expect("sandbox starts");
        eprintln!("sandbox {} ({})", sb.display(), sb.state_dir().display());
        self.kept().dirs.push(sb.state_dir().to_path_buf());
        let t = self.clone();
        sb.before_stop(Box::new(move |sb| t.check_before_stop(sb)));
        sb
    }

    /// Says the test stops, kills or closes the app `pid` on purpose (the pid it spawned, or
    /// the one the accessibility bus knows): no later check asks it.
    pub fn let_go(&self, pid: u32) {
        let mut pids = vec![pid];
        if let Some(s) = procfs::stat(pid) {
            pids.extend([s.session, s.pgrp]);
        }
        eprintln!("app {pid} let go: it may stop");
        self.kept().let_go.extend(pids);
    }

    /// Every app the test's sandboxes started and did not let go is alive and answers one
    /// accessibility call within a second; panics naming each dead or frozen app, its pid and
    /// the tail of its log.
    pub fn apps_answer(&self) {
        let (dirs, except) = {
            let k = self.kept();
            (k.dirs.clone(), k.let_go.clone())
        };
        for d in dirs {
            let Ok(sb) = Sandbox::attach(&d) else {
                continue; // stopped already
            };
            if let Err(e) = sb.apps_answer(&except) {
                panic!("{e}");
            }
        }
    }

    /// The end-of-test check, run as a sandbox stops: failures are kept for `live_test`.
    fn check_before_stop(&self, sb: &Sandbox) {
        let except = self.kept().let_go.clone();
        if let Err(e) = sb.apps_answer(&except) {
            eprintln!("before stopping sandbox {}: {e}", sb.display());
            self.kept().failures.push(e.to_string());
        }
    }

    fn kept(&self) -> MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn stop_all(&self) {
        let dirs = self.kept().dirs.clone();
        for d in dirs {
            if let Ok(sb) = Sandbox::attach(&d) {
                let _ = sb.stop();
            }
        }
    }
}

/// [`Tracker::apps_answer`] for the live test running now (nothing outside one): what the
/// shared act helpers call after each act.
pub fn apps_answer() {
    if let Some(t) = current() {
        t.apps_answer();
    }
}

/// [`Tracker::let_go`] for the live test running now.
pub fn let_go(pid: u32) {
    if let Some(t) = current() {
        t.let_go(pid);
    }
}

fn current() -> Option<Tracker> {
    CURRENT.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// A check run once, just before a sandbox stops (set by [`Tracker::start_with`]).
#[derive(Default)]
pub(crate) struct StopHook(Mutex<Option<StopCheck>>);

type StopCheck = Box<dyn FnOnce(&Sandbox) + Send>;

impl StopHook {
    pub(crate) fn set(&self, check: StopCheck) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(check);
    }

    pub(crate) fn take(&self) -> Option<StopCheck> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl std::fmt::Debug for StopHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StopHook")
    }
}

/// Whether a program is installed (a path, or a name on `PATH`).
pub fn have(prog: &str) -> bool {
    prog.starts_with('/') && Path::new(prog).is_file()
        || std::env::var("PATH")
            .unwrap_or_default()
            .split(':')
            .any(|d| Path::new(d).join(prog).is_file())
}

/// Runs `body` on its own two-thread runtime, after the other live tests of this binary; fails
/// after `secs` (stopping the test's sandboxes first). Fails, saying why, when Xvfb, D-Bus,
/// openbox or one of `needs` is missing: `scripts/install-deps.sh` installs every one of them,
/// so a missing program is a broken set-up, never a pass. Fails when an app the test started
/// and did not let go was dead or frozen as its sandbox stopped.
pub fn live_test<F, Fut>(name: &str, secs: u64, needs: &[&str], body: F)
where
    F: FnOnce(Tracker) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    if let Some(prog) = BASE.iter().chain(needs).find(|p| !have(p)) {
        panic!("{name} needs {prog}, which is not installed (scripts/install-deps.sh installs it)");
    }
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let tracker = Tracker::default();
    *CURRENT.lock().unwrap_or_else(|p| p.into_inner()) = Some(tracker.clone());
    let t = tracker.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(body(t));
        }));
        let _ = tx.send(r);
    });
    let outcome = rx.recv_timeout(Duration::from_secs(secs));
    *CURRENT.lock().unwrap_or_else(|p| p.into_inner()) = None;
    match outcome {
        Ok(Ok(())) => {
            let failures = std::mem::take(&mut tracker.kept().failures);
            assert!(failures.is_empty(), "{name}: {}", failures.join("\n\n"));
        }
        Ok(Err(p)) => panic::resume_unwind(p),
        Err(_) => {
            tracker.stop_all();
            panic!("{name}: timed out after {secs} s");
        }
    }
}
