//! What the sandbox's live tests share: a hard timeout per test, which stops the sandboxes it
//! started when it fires, and the tools the sandbox needs.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use uidriver_sandbox::{Manifest, Sandbox, SandboxConfig, SANDBOX_ID_VAR};

/// State dirs of the sandboxes a test started, for cleanup if it hangs.
#[derive(Clone, Default)]
pub struct Tracker(Arc<Mutex<Vec<PathBuf>>>);

impl Tracker {
    pub fn start(&self, cfg: SandboxConfig) -> Sandbox {
        let t0 = Instant::now();
        let sb = Sandbox::start(cfg).expect("sandbox start");
        eprintln!(
            "started sandbox {} in {} ms ({})",
            sb.display(),
            t0.elapsed().as_millis(),
            sb.state_dir().display()
        );
        self.0
            .lock()
            .expect("tracker lock")
            .push(sb.state_dir().to_path_buf());
        sb
    }
}

/// Whether `prog` is on PATH.
#[allow(dead_code)] // each test binary compiles this module; not all of them ask
pub fn have(prog: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {prog}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn tools_installed() -> Option<&'static str> {
    for prog in [
        "Xvfb",
        "dbus-daemon",
        "openbox",
        "xdpyinfo",
        "xprop",
        "dbus-send",
    ] {
        if !have(prog) {
            return Some(prog);
        }
    }
    let launcher = [
        "/usr/libexec/at-spi-bus-launcher",
        "/usr/lib/at-spi2-core/at-spi-bus-launcher",
    ];
    if !launcher.iter().any(|p| Path::new(p).exists()) {
        return Some("at-spi-bus-launcher");
    }
    None
}

/// Runs `body` on its own thread; fails the test if it takes longer than `secs`.
pub fn live_test(name: &str, secs: u64, body: impl FnOnce(&Tracker) + Send + 'static) {
    if let Some(missing) = tools_installed() {
        panic!("{missing} is not installed: the test cannot run without it (scripts/install-deps.sh installs it)");
    }
    let tracker = Tracker::default();
    let t = tracker.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = panic::catch_unwind(AssertUnwindSafe(|| body(&t)));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(Ok(())) => {}
        Ok(Err(p)) => panic::resume_unwind(p),
        Err(_) => {
            let dirs = tracker.0.lock().map(|d| d.clone()).unwrap_or_default();
            for d in dirs {
                if let Ok(sb) = Sandbox::attach(&d) {
                    let _ = sb.stop();
                }
            }
            panic!("{name}: timed out after {secs} s");
        }
    }
}

/// `items` as an argument vector.
pub fn argv(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// `/proc/PID/stat`'s state letter and start time.
fn stat_fields(pid: u32) -> Option<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest: Vec<&str> = text[text.rfind(')')? + 1..].split_whitespace().collect();
    Some((rest.first()?.chars().next()?, rest.get(19)?.parse().ok()?))
}

/// Alive = exists, same start time, not a zombie.
#[allow(dead_code)] // each test binary compiles this module; not all of them ask
pub fn alive(pid: u32, start_time: u64) -> bool {
    stat_fields(pid).is_some_and(|(state, st)| st == start_time && state != 'Z' && state != 'X')
}

/// Live processes whose environment carries the sandbox's private marker.
#[allow(dead_code)]
pub fn marked_processes(m: &Manifest) -> Vec<u32> {
    let entry = format!("{SANDBOX_ID_VAR}={}", m.marker);
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            stat_fields(pid).is_some_and(|(s, _)| s != 'Z')
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|b| b.split(|&c| c == 0).any(|e| e == entry.as_bytes()))
        })
        .collect()
}

/// Every process the manifest recorded, and every one carrying the sandbox's marker, is gone.
#[allow(dead_code)]
pub fn assert_recorded_gone(m: &Manifest) {
    for p in &m.processes {
        assert!(
            !alive(p.pid, p.start_time),
            "{} (pid {}) still alive after stop",
            p.role,
            p.pid
        );
    }
    assert_eq!(
        marked_processes(m),
        Vec::<u32>::new(),
        "marked processes left"
    );
}
