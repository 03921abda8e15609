//! The harness live tests share (feature `testing`): one live test at a time, each on its own
//! runtime with a hard timeout that stops the sandboxes the test started, and skipped with a
//! message when a program it needs is not installed.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use crate::{Sandbox, SandboxConfig};

/// One live test at a time in a test binary: they share two cores with the apps they drive.
static SERIAL: Mutex<()> = Mutex::new(());

/// Programs every live test needs.
const BASE: &[&str] = &["Xvfb", "dbus-daemon", "openbox"];

/// State dirs of the sandboxes a test started, so a timed-out test can stop them.
#[derive(Clone, Default)]
pub struct Tracker(Arc<Mutex<Vec<PathBuf>>>);

impl Tracker {
    /// Starts a sandbox with the default configuration and tracks it.
    pub fn start(&self) -> Sandbox {
        self.start_with(SandboxConfig::default())
    }

    /// Starts a sandbox and tracks it.
    pub fn start_with(&self, cfg: SandboxConfig) -> Sandbox {
        let sb = Sandbox::start(cfg).expect("sandbox starts");
        eprintln!("sandbox {} ({})", sb.display(), sb.state_dir().display());
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(sb.state_dir().to_path_buf());
        sb
    }

    fn stop_all(&self) {
        for d in self.0.lock().map(|d| d.clone()).unwrap_or_default() {
            if let Ok(sb) = Sandbox::attach(&d) {
                let _ = sb.stop();
            }
        }
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
/// so a missing program is a broken set-up, never a pass.
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
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(Ok(())) => {}
        Ok(Err(p)) => panic::resume_unwind(p),
        Err(_) => {
            tracker.stop_all();
            panic!("{name}: timed out after {secs} s");
        }
    }
}
