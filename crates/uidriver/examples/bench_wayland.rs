//! Benchmark program (not a test): Wayland (a headless sway) against X11 (Xvfb + openbox) in
//! one run, through the service, on gnome-calculator (GTK 4) in private desktops this program
//! starts and stops. Each of `--runs` rounds (default 10) starts one desktop of each kind, in
//! alternating order, and measures there:
//! - sandbox start: `Sandbox::start` until the display server and both buses answer;
//! - first look: `find_roots` and a semantic `observe_ui` of the calculator once it shows;
//! - press round trip: `act_ui` pressing the "1" button until the successor diff is back;
//! - click round trips: `act_ui` clicking the "2" button, the first physical input of the
//!   backend (XTEST, or the virtual pointer, readied in the background at connect), then the
//!   median of five more clicks (3 to 7); each with the landing check;
//! - screenshot: `desktop_screenshot` of the whole screen (X11 GetImage or screencopy).
//!
//! Prints medians and the Wayland/X11 ratio of each (`BENCH_DEBUG=1` also prints each click's
//! time and verification); writes JSON (`--json PATH`, default
//! `target/bench_wayland.json`).
//!
//! ```text
//! cargo run --release -p uidriver --example bench_wayland -- --runs 10
//! ```
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::Backend;
use uidriver_sandbox::{DisplayServer, Sandbox, SandboxConfig};
use uidriver_service::{Service, ServiceConfig};

fn arg(name: &str) -> Option<String> {
    std::env::args().skip_while(|a| a != name).nth(1)
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

async fn call(svc: &Service, tool: &str, args: Value) -> Value {
    let r = svc.call(tool, args.clone()).await;
    assert!(!r.is_error, "{tool} {args}: {}", r.text);
    r.structured
}

/// What one desktop measured, milliseconds.
#[derive(Default)]
struct Round {
    start: f64,
    first_look: f64,
    press: f64,
    first_click: f64,
    click: f64,
    screenshot: f64,
}

/// The ref of the button named exactly `label` in `state`.
async fn button(svc: &Service, state: &str, label: &str) -> String {
    let v = call(
        svc,
        "search_ui",
        json!({ "stateId": state, "text": label, "role": "button", "ocrFallback": false }),
    )
    .await;
    v["matches"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["name"] == label))
        .and_then(|m| m["ref"].as_str())
        .unwrap_or_else(|| panic!("no button {label} in {state}"))
        .to_string()
}

async fn one_round(server: DisplayServer) -> Round {
    let mut r = Round::default();
    let t = Instant::now();
    let sb = Sandbox::start(SandboxConfig {
        display_server: server,
        ..SandboxConfig::default()
    })
    .expect("sandbox");
    r.start = ms(t);
    let pid = sb.spawn(&["gnome-calculator".to_string()]).expect("spawn");
    sb.wait_for_app_window(pid, Duration::from_secs(30))
        .expect("calculator window");
    let cfg = LinuxConfig::from_vars(sb.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let linux = LinuxBackend::connect(cfg).await.expect("backend");
    let svc = Service::new(
        vec![Arc::new(linux) as Arc<dyn Backend>],
        vec![],
        ServiceConfig::default(),
    );
    let t = Instant::now();
    let state = loop {
        let roots = call(&svc, "find_roots", json!({ "pid": pid })).await;
        if let Some(root) = roots["roots"][0]["ref"].as_str() {
            let v = call(
                &svc,
                "observe_ui",
                json!({ "root": root, "mode": "semantic" }),
            )
            .await;
            if v["nodeCount"].as_u64().unwrap_or(0) > 20 {
                break v["stateId"].as_str().expect("stateId").to_string();
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "no look of the calculator"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    r.first_look = ms(t);
    let one = button(&svc, &state, "1").await;
    let t = Instant::now();
    let v = call(
        &svc,
        "act_ui",
        json!({ "stateId": state, "actions": [{ "action": "press", "ref": one }] }),
    )
    .await;
    r.press = ms(t);
    let mut state = v["stateId"].as_str().expect("successor").to_string();
    let mut clicks = Vec::new();
    for label in ["2", "3", "4", "5", "6", "7"] {
        let b = button(&svc, &state, label).await;
        let t = Instant::now();
        let v = call(
            &svc,
            "act_ui",
            json!({ "stateId": state, "actions": [{ "action": "click", "ref": b }] }),
        )
        .await;
        clicks.push(ms(t));
        if std::env::var_os("BENCH_DEBUG").is_some() {
            eprintln!(
                "{server:?} click {label}: {:.0} ms: {}",
                ms(t),
                v["steps"][0]["verification"]
            );
        }
        state = v["stateId"].as_str().expect("successor").to_string();
    }
    r.first_click = clicks[0];
    r.click = median(clicks[1..].to_vec());
    let t = Instant::now();
    call(&svc, "desktop_screenshot", json!({})).await;
    r.screenshot = ms(t);
    drop(svc);
    sb.stop().expect("stop");
    r
}

fn main() {
    let runs: usize = arg("--runs").and_then(|s| s.parse().ok()).unwrap_or(10);
    let json_path = arg("--json").unwrap_or_else(|| "target/bench_wayland.json".into());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (mut x11, mut wl) = (Vec::new(), Vec::new());
    // One warm-up of each (page cache, fonts), then alternating order.
    rt.block_on(one_round(DisplayServer::X11));
    rt.block_on(one_round(DisplayServer::Wayland));
    for i in 0..runs {
        let order = if i % 2 == 0 {
            [DisplayServer::X11, DisplayServer::Wayland]
        } else {
            [DisplayServer::Wayland, DisplayServer::X11]
        };
        for s in order {
            let round = rt.block_on(one_round(s));
            if s == DisplayServer::X11 {
                x11.push(round);
            } else {
                wl.push(round);
            }
        }
    }
    type Pick = fn(&Round) -> f64;
    let rows: [(&str, Pick); 6] = [
        ("sandbox start", |r| r.start),
        ("first look", |r| r.first_look),
        ("press round trip", |r| r.press),
        ("first click", |r| r.first_click),
        ("click round trip", |r| r.click),
        ("screenshot", |r| r.screenshot),
    ];
    println!("{runs} rounds, gnome-calculator; medians in ms");
    println!("{:<18} {:>9} {:>9} {:>8}", "", "X11", "Wayland", "W/X");
    let mut out = serde_json::Map::new();
    for (name, pick) in rows {
        let (a, b) = (
            median(x11.iter().map(pick).collect()),
            median(wl.iter().map(pick).collect()),
        );
        println!("{name:<18} {a:>9.1} {b:>9.1} {:>7.2}x", b / a);
        out.insert(
            name.into(),
            json!({ "x11": a, "wayland": b, "ratio": b / a }),
        );
    }
    let _ = std::fs::write(&json_path, Value::Object(out).to_string());
}
