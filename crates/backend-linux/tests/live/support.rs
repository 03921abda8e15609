//! Helpers of the live tests: a timed, serialized test runner that stops its sandbox even on a
//! hang, app launch, the libatspi reference walk and independent X11 probes.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::{Backend, Bounds, Deadline, RootInfo};
use uidriver_sandbox::Sandbox;

pub use uidriver_sandbox::testing::{have, Tracker};

/// Runs a live test (see `uidriver_sandbox::testing::live_test`); these also read windows
/// with xwininfo and xdotool.
pub fn live_test<F, Fut>(name: &str, secs: u64, needs: &[&str], body: F)
where
    F: FnOnce(Tracker) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let needs: Vec<&str> = ["xwininfo", "xdotool"]
        .iter()
        .chain(needs)
        .copied()
        .collect();
    uidriver_sandbox::testing::live_test(name, secs, &needs, body)
}

pub fn argv(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Starts an app and waits until it shows a window on AT-SPI.
pub fn launch(sb: &Sandbox, args: &[&str]) -> u32 {
    let pid = sb.spawn(&argv(args)).expect("spawn");
    let w = sb
        .wait_for_app_window(pid, Duration::from_secs(40))
        .unwrap_or_else(|e| panic!("{} showed no window: {e}", args[0]));
    eprintln!(
        "{} pid {pid} (a11y pid {}) up in {:?}",
        args[0], w.pid, w.waited
    );
    w.pid
}

/// A local page for Chromium.
pub fn chromium_args(dir: &Path) -> Vec<String> {
    let page = dir.join("page.html");
    std::fs::write(
        &page,
        "<html><head><title>Test Page</title></head><body><h1>Hello</h1>\
         <p>Some text here</p><button id=\"b1\">Click me</button><input id=\"i1\" value=\"abc\">\
         <a href=\"#x\">link</a><ul><li>one</li><li>two</li></ul></body></html>",
    )
    .expect("page");
    let profile = dir.join("profile");
    vec![
        "/usr/lib/chromium/chromium".into(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--force-renderer-accessibility".into(),
        format!("--user-data-dir={}", profile.display()),
        format!("file://{}", page.display()),
    ]
}

pub async fn backend(sb: &Sandbox) -> LinuxBackend {
    let cfg = LinuxConfig::from_vars(sb.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    LinuxBackend::connect(cfg).await.expect("backend connect")
}

pub fn secs(s: u64) -> Deadline {
    Deadline::after(Duration::from_secs(s))
}

/// Roots of `pid`, waiting until one with a tree whose title satisfies `want` appears.
pub async fn roots_of(
    linux: &LinuxBackend,
    pid: u32,
    want: impl Fn(&RootInfo) -> bool,
) -> Vec<RootInfo> {
    let t0 = Instant::now();
    loop {
        let roots = linux.list_roots(secs(3)).await.expect("list_roots");
        let mine: Vec<RootInfo> = roots.into_iter().filter(|r| r.pid == Some(pid)).collect();
        if mine.iter().any(|r| r.has_tree && want(r)) || t0.elapsed() > Duration::from_secs(20) {
            return mine;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn command(sb: &Sandbox, prog: &str) -> Command {
    let mut c = Command::new(prog);
    c.env_clear();
    c.env("PATH", std::env::var("PATH").unwrap_or_default());
    for (k, v) in sb.env() {
        c.env(k, v);
    }
    c
}

/// Geometry of a window as `xwininfo` reports it (absolute upper-left, width, height).
pub fn xwininfo(sb: &Sandbox, window: u64) -> Bounds {
    let out = command(sb, "xwininfo")
        .args(["-id", &window.to_string()])
        .output()
        .expect("xwininfo");
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> i32 {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("xwininfo has no {name}: {text}"))
    };
    Bounds::new(
        field("Absolute upper-left X:"),
        field("Absolute upper-left Y:"),
        field("Width:"),
        field("Height:"),
    )
}

/// `_NET_WM_PID` of a window as `xdotool` reports it.
pub fn xdotool_pid(sb: &Sandbox, window: u64) -> Option<u32> {
    let out = command(sb, "xdotool")
        .args(["getwindowpid", &window.to_string()])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// The libatspi reference walk of the app with `pid`: (all paths, showing paths, walk ms).
pub fn atspi_walk(sb: &Sandbox, pid: u32, repeat: u32) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/atspi_walk.py");
    let out = command(sb, "/usr/bin/python3")
        .arg(&script)
        .args([
            "--pid",
            &pid.to_string(),
            "--repeat",
            &repeat.to_string(),
            "--getitems",
            "--wait",
            "10",
        ])
        .output()
        .expect("atspi_walk.py");
    assert!(
        out.status.success(),
        "atspi_walk failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("walk JSON");
    v["apps"][0].clone()
}

pub fn paths(v: &serde_json::Value) -> HashSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Sends a signal with `kill(1)` (the tests stop only processes they started, by pid).
pub fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill -{sig} {pid}");
}

pub fn walk_available() -> bool {
    Path::new("/usr/bin/python3").exists()
        && Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tools/atspi_walk.py")
            .exists()
}
