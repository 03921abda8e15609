//! Helpers of the live tests: a timed, serialized test runner that stops its sandbox even on a
//! hang, app launch, the libatspi reference walk and independent X11 probes.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::{
    Backend, Bounds, Deadline, Evidence, NewState, Node, ObserveRequest, RootInfo, RootRef,
    Snapshot, State, StateId,
};
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

/// Runs `xdotool` with `args` (keys and pointer through XTEST): a driver independent of
/// uidriver's own input.
pub fn xdotool(sb: &Sandbox, args: &[&str]) {
    let ok = command(sb, "xdotool")
        .args(args)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "xdotool {args:?}");
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

/// Object path of a node handle (`:1.5:/org/a11y/...` → `/org/a11y/...`).
pub fn path_of(handle: &str) -> &str {
    handle.rsplit_once(':').map_or(handle, |(_, p)| p)
}

pub fn state_for(root: &RootInfo, nodes: Vec<Node>) -> State {
    State::build(NewState {
        id: StateId::new(1).expect("id"),
        root: RootRef::new(1).expect("ref"),
        root_info: root.clone(),
        epoch: 0,
        snapshot: Snapshot {
            nodes,
            complete: true,
            ..Snapshot::default()
        },
        image: None,
        ocr: Vec::new(),
        previous: None,
        successor: false,
    })
}

/// Observes the whole application of `root` (its AT-SPI app object) through `observe_region`.
pub async fn observe_app(linux: &LinuxBackend, root: &RootInfo, window: &Snapshot) -> Snapshot {
    let bus = window.nodes[0]
        .handle
        .rsplit_once(':')
        .expect("handle")
        .0
        .to_string();
    let app_node = Node {
        handle: format!("{bus}:/org/a11y/atspi/accessible/root"),
        name: Evidence::Known("app".into()),
        ..Node::default()
    };
    let state = state_for(root, vec![app_node]);
    linux
        .observe_region(root, &state, 0, &ObserveRequest::default(), secs(10))
        .await
        .expect("observe app")
}

/// Handles of the subtree of node `i`.
pub fn subtree_paths(s: &Snapshot, i: usize) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![i];
    while let Some(n) = stack.pop() {
        out.insert(path_of(&s.nodes[n].handle).to_string());
        stack.extend(s.nodes[n].children.iter().copied());
    }
    out
}

/// Copies the task suite's document `name` (`tasks/files/office`) into the sandbox and gives
/// LibreOffice the suite's profile (no Tip of the Day, no first-start wizard); returns the
/// copy's path.
pub fn libreoffice_file(sb: &Sandbox, name: &str) -> String {
    let files = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tasks/files");
    let home = sb
        .env()
        .iter()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| std::path::PathBuf::from(v))
        .expect("the sandbox sets HOME");
    let profile = home.join(".config/libreoffice/4/user");
    std::fs::create_dir_all(&profile).expect("profile dir");
    std::fs::copy(
        files.join("libreoffice/registrymodifications.xcu"),
        profile.join("registrymodifications.xcu"),
    )
    .expect("the suite's LibreOffice profile");
    let copy = sb.state_dir().join(name);
    std::fs::copy(files.join("office").join(name), &copy).expect("the suite's document");
    copy.to_string_lossy().into_owned()
}
