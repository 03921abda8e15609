//! The desk every end-to-end live test of the Linux backend works at: a private desktop
//! (uidriver-sandbox), a `Service` over it, and the calls an agent makes, each asserting that
//! the tool answered. Each test binary uses part of it. After every call that acts (a tool not
//! marked read-only), every app the test started must still answer
//! (`uidriver_sandbox::testing::apps_answer`); a test that stops, kills or closes an app on
//! purpose says so first with [`Desk::let_go`].
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::Backend;
use uidriver_sandbox::testing::Tracker;
use uidriver_sandbox::{Sandbox, SandboxConfig};
use uidriver_service::{FileAccess, Service, ServiceConfig, ToolName, ToolResult};

pub mod evidence;

/// A private desktop and a service over it.
pub struct Desk {
    pub sb: Arc<Sandbox>,
    pub svc: Arc<Service>,
}

/// An application started in the desktop: its pid as the accessibility bus knows it.
pub struct App {
    pub pid: u32,
}

impl Desk {
    pub async fn start(t: &Tracker) -> Desk {
        Self::start_with(t, SandboxConfig::default()).await
    }

    pub async fn start_with(t: &Tracker, cfg: SandboxConfig) -> Desk {
        let t = t.clone();
        let sb = tokio::task::spawn_blocking(move || t.start_with(cfg))
            .await
            .expect("sandbox starts");
        let sb = Arc::new(sb);
        let svc = Arc::new(service(&sb).await);
        Desk { sb, svc }
    }

    /// A second, independent service (own backend, own X connections, own input lock): what a
    /// second uidriver process would be.
    pub async fn second_client(&self) -> Arc<Service> {
        Arc::new(service(&self.sb).await)
    }

    pub async fn launch(&self, argv: &[&str]) -> App {
        let sb = self.sb.clone();
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        let name = argv[0].clone();
        let pid = tokio::task::spawn_blocking(move || {
            let pid = sb.spawn(&argv).expect("spawn");
            sb.wait_for_app_window(pid, Duration::from_secs(40))
                .unwrap_or_else(|e| panic!("{} showed no window: {e}", argv[0]))
                .pid
        })
        .await
        .expect("join");
        eprintln!("{name} up (pid {pid})");
        App { pid }
    }

    /// Says the test stops, kills or closes the app `pid` on purpose: checks after each act
    /// and at the end of the test leave it out.
    pub fn let_go(&self, pid: u32) {
        uidriver_sandbox::testing::let_go(pid);
    }

    pub fn command(&self, prog: &str) -> std::process::Command {
        let mut c = std::process::Command::new(prog);
        c.env_clear();
        c.env("PATH", std::env::var("PATH").unwrap_or_default());
        for (k, v) in self.sb.env() {
            c.env(k, v);
        }
        c
    }
}

pub async fn service(sb: &Sandbox) -> Service {
    let cfg = LinuxConfig::from_vars(sb.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let linux = LinuxBackend::connect(cfg).await.expect("linux backend");
    Service::new(
        vec![Arc::new(linux) as Arc<dyn Backend>],
        vec![],
        ServiceConfig::default().with_files(FileAccess::unrestricted("a test of other rules")),
    )
}

/// One tool call; after one that acts, checks that every app the test started still answers.
pub async fn call(svc: &Service, tool: &str, args: Value) -> ToolResult {
    let res = svc.call(tool, args).await;
    if acts(tool) {
        tokio::task::spawn_blocking(uidriver_sandbox::testing::apps_answer)
            .await
            .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
    }
    res
}

/// Whether `tool` may change an app (the registry does not say it only reads).
fn acts(tool: &str) -> bool {
    ToolName::from_name(tool).is_some_and(|t| !t.read_only())
}

pub async fn ok(svc: &Service, tool: &str, args: Value) -> Value {
    let r = call(svc, tool, args.clone()).await;
    assert!(!r.is_error, "{tool} {args} failed:\n{}", r.text);
    r.structured
}

/// The root of `pid` whose title contains `title` (any title when empty), waiting up to 20 s.
pub async fn root_of(svc: &Service, pid: u32, title: &str) -> String {
    let t0 = Instant::now();
    loop {
        let v = ok(svc, "find_roots", json!({ "pid": pid })).await;
        if let Some(r) = v["roots"].as_array().and_then(|a| {
            a.iter().find(|r| {
                r["title"].as_str().is_some_and(|t| t.contains(title))
                    && !matches!(r["kind"].as_str(), Some("menu" | "popover"))
            })
        }) {
            return r["ref"].as_str().expect("ref").to_string();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "no root of {pid} titled {title:?}: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until the windows of `pid` keep their geometry for 300 ms (gtk3-widget-factory
/// resizes itself once after showing).
pub async fn settled(svc: &Service, pid: u32) {
    let t0 = Instant::now();
    let mut last = Value::Null;
    loop {
        let v = ok(svc, "find_roots", json!({ "pid": pid })).await;
        let now: Vec<Value> = v["roots"]
            .as_array()
            .map(|a| a.iter().map(|r| r["bounds"].clone()).collect())
            .unwrap_or_default();
        let now = Value::Array(now);
        if now == last || t0.elapsed() > Duration::from_secs(5) {
            return;
        }
        last = now;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// A fresh semantic observation: its stateId.
pub async fn observe(svc: &Service, root: &str) -> String {
    let v = ok(
        svc,
        "observe_ui",
        json!({ "root": root, "mode": "semantic" }),
    )
    .await;
    v["stateId"].as_str().expect("stateId").to_string()
}

/// Matches of a search (showing elements only).
pub async fn search(svc: &Service, state: &str, q: Value) -> Vec<Value> {
    let mut args = q;
    args["stateId"] = json!(state);
    args["ocrFallback"] = json!(false);
    let v = ok(svc, "search_ui", args).await;
    v["matches"].as_array().cloned().unwrap_or_default()
}

pub async fn one(svc: &Service, state: &str, q: Value) -> Value {
    let m = search(svc, state, q.clone()).await;
    assert!(!m.is_empty(), "nothing matches {q} in {state}");
    m[0].clone()
}

pub fn r(v: &Value) -> String {
    v["ref"].as_str().expect("ref").to_string()
}

/// `act_ui`; prints what the model would read.
pub async fn act(svc: &Service, state: &str, actions: Value, extra: Value) -> ToolResult {
    let mut args = json!({ "stateId": state, "actions": actions });
    if let Value::Object(m) = extra {
        for (k, v) in m {
            args[k] = v;
        }
    }
    let res = call(svc, "act_ui", args).await;
    eprintln!("--- act_ui {actions}\n{}", first_lines(&res.text, 14));
    res
}

pub fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join("\n")
}

pub fn step_outcomes(res: &ToolResult) -> Vec<String> {
    res.structured["steps"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s["outcome"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The node of `reference` in a state, as inspect_ui shows it.
pub async fn inspect(svc: &Service, state: &str, reference: &str) -> Value {
    let v = ok(
        svc,
        "inspect_ui",
        json!({ "stateId": state, "ref": reference }),
    )
    .await;
    v["node"].clone()
}

pub fn states(node: &Value) -> Vec<String> {
    node["states"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The roots `rootChanges.opened` lists, as (ref, kind).
pub fn opened(res: &ToolResult) -> Vec<(String, String)> {
    res.structured["rootChanges"]["opened"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r["ref"].as_str().unwrap_or_default().to_string(),
                        r["kind"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A fresh directory of the calling test's own. Tests run side by side in one process and
/// each removes its directory when done, so two must never share one: the name carries a
/// counter of this process, and `create_dir` (not `create_dir_all`) refuses a name already
/// taken (a leftover of an earlier process with the same pid), which is then passed over.
pub fn tempdir() -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("uidriver-live-{}-{n}", std::process::id()));
        match std::fs::create_dir(&d) {
            Ok(()) => return d,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => panic!("temp dir {}: {e}", d.display()),
        }
    }
}

/// The successor state an `act_ui` answer names.
pub fn successor(res: &ToolResult) -> String {
    res.structured["stateId"]
        .as_str()
        .unwrap_or_else(|| panic!("no successor state:\n{}", res.text))
        .to_string()
}
