//! Benchmark program (not a test): how long one verified action takes through the service, on
//! gtk3-widget-factory in a private desktop this program starts and stops.
//!
//! Measured in one run, medians over `--runs` (default 20) after two warm-ups:
//! - `press` round trip: `act_ui` pressing a check button (it toggles each time) until the
//!   rendered successor diff is back — delivery (`DoAction`), verification (the checked state
//!   read back), the service's settle, the successor observation and the diff;
//! - settle: how long after `DoAction` the toggled state read back (from the step's
//!   verification, "after N ms");
//! - the successor observation inside that round trip (its own timings);
//! - `setText` round trip on an entry, for comparison;
//! - the keyboard flow as one call: focus the entry, `ctrl+a`, 20 characters typed, `Return`,
//!   with `expect` on the typed text (issue 12: unread typing goes on, `expect` decides);
//! - `click` round trip on the check button: XTEST input under the lease, the landing check
//!   (the toolkit's hit test at the click point) and the same verification as `press`;
//! - a fresh `observe_ui` (semantic) of the same window: the cost of one look, which every
//!   round trip contains once.
//!
//! Every call runs as one MCP session's (one viewer), as an agent's would.
//!
//! Prints a table and writes JSON (`--json PATH`, default `target/bench_act.json`).
//!
//! ```text
//! cargo run --release -p uidriver --example bench_act -- --runs 20
//! ```
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::Backend;
use uidriver_sandbox::{Sandbox, SandboxConfig};
use uidriver_service::{CallContext, Service, ServiceConfig, ViewerId};

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

/// One tool call as one MCP session makes it: every call of the run under the same viewer, so
/// the service treats the program as a single session (`service/src/shown.rs`).
async fn call(svc: &Service, tool: &str, args: Value) -> Value {
    static SESSION: std::sync::OnceLock<CallContext> = std::sync::OnceLock::new();
    let ctx = SESSION.get_or_init(|| CallContext::default().with_viewer(Some(ViewerId::new())));
    let r = svc.call_with(ctx, &[], tool, args.clone()).await;
    assert!(!r.is_error, "{tool} {args}: {}", r.text);
    r.structured
}

/// `… (after 3 ms)` in a step's verification detail.
/// One `act_ui` call typing into `entry` as a person would, judged by `expect`: its time, its
/// outcome and the successor state.
async fn keyboard_flow(svc: &Service, state: &str, entry: &str, i: usize) -> (f64, String, String) {
    let text = format!("keyboard flow run {i:02}");
    let text = format!("{text:.<20}");
    let t = Instant::now();
    let r = call(
        svc,
        "act_ui",
        json!({
            "stateId": state,
            "actions": [
                { "action": "focus", "ref": entry },
                { "action": "keypress", "keys": "ctrl+a" },
                { "action": "typeText", "text": text },
                { "action": "keypress", "keys": "Return" }
            ],
            "expect": { "text": text, "timeoutMs": 3000 }
        }),
    )
    .await;
    let took = ms(t);
    let outcome = r["outcome"].as_str().unwrap_or("?").to_string();
    let next = r["stateId"].as_str().expect("successor").to_string();
    (took, outcome, next)
}

/// One `act_ui` call of one step on `state`: its time and its answer.
async fn one_step(svc: &Service, state: &str, step: Value) -> (f64, Value) {
    let t = Instant::now();
    let r = call(
        svc,
        "act_ui",
        json!({ "stateId": state, "actions": [step] }),
    )
    .await;
    (ms(t), r)
}

fn after_ms(step: &Value) -> Option<f64> {
    let d = step["verification"]["detail"].as_str()?;
    let i = d.rfind("(after ")?;
    d[i + 7..].split(' ').next()?.parse().ok()
}

fn main() {
    let runs: usize = arg("--runs").and_then(|s| s.parse().ok()).unwrap_or(20);
    let out = arg("--json").unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench_act.json").to_string()
    });
    let sb = Sandbox::start(SandboxConfig::default()).expect("sandbox");
    let pid = sb
        .spawn(&["gtk3-widget-factory".to_string()])
        .expect("gtk3-widget-factory");
    let pid = sb
        .wait_for_app_window(pid, Duration::from_secs(40))
        .expect("window")
        .pid;
    let env: Vec<(String, String)> = sb.env().to_vec();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let result = rt.block_on(async {
        let cfg = LinuxConfig::from_vars(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let linux = LinuxBackend::connect(cfg).await.expect("backend");
        let svc = Service::new(
            vec![Arc::new(linux) as Arc<dyn Backend>],
            vec![],
            ServiceConfig::default(),
        );
        let roots = call(&svc, "find_roots", json!({ "pid": pid })).await;
        let root = roots["roots"][0]["ref"].as_str().expect("root").to_string();
        let observe = |root: String| {
            let svc = &svc;
            async move {
                call(
                    svc,
                    "observe_ui",
                    // The whole outline each time: the reference is a fresh full look.
                    json!({ "root": root, "mode": "semantic", "full": true }),
                )
                .await
            }
        };
        let s0 = observe(root.clone()).await;
        let mut state = s0["stateId"].as_str().expect("state").to_string();
        let search = |state: String, q: Value| {
            let svc = &svc;
            async move {
                let mut q = q;
                q["stateId"] = json!(state);
                q["ocrFallback"] = json!(false);
                call(svc, "search_ui", q).await["matches"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            }
        };
        let check = search(state.clone(), json!({ "role": "check-box" }))
            .await
            .into_iter()
            .find(|m| !m["states"].to_string().contains("disabled"))
            .expect("an enabled check box");
        let check = check["ref"].as_str().expect("ref").to_string();
        let entry = search(
            state.clone(),
            json!({ "role": "text", "capability": "set-text" }),
        )
        .await
        .into_iter()
        .find(|m| {
            let s = m["states"].to_string();
            !s.contains("disabled") && !s.contains("multi-line")
        })
        .expect("an entry");
        let entry = entry["ref"].as_str().expect("ref").to_string();

        let mut press = (Vec::new(), Vec::new(), Vec::new());
        let mut set_text = (Vec::new(), Vec::new());
        let mut keys = (Vec::new(), Vec::new());
        let mut clicks = (Vec::new(), Vec::new());
        let mut outcomes = Vec::new();
        for i in 0..runs + 2 {
            let (rt_ms, r) =
                one_step(&svc, &state, json!({ "action": "press", "ref": check })).await;
            outcomes.push(r["outcome"].as_str().unwrap_or("?").to_string());
            state = r["stateId"].as_str().expect("successor").to_string();
            if i >= 2 {
                press.0.push(rt_ms);
                if let Some(a) = after_ms(&r["steps"][0]) {
                    press.1.push(a);
                }
                press.2.push(
                    r["successor"]["timings"]["totalMs"]
                        .as_f64()
                        .unwrap_or(f64::NAN),
                );
            }
            let step = json!({ "action": "setText", "ref": entry, "text": format!("run {i}") });
            let (rt_ms, r) = one_step(&svc, &state, step).await;
            state = r["stateId"].as_str().expect("successor").to_string();
            if i >= 2 {
                set_text.0.push(rt_ms);
                if let Some(a) = after_ms(&r["steps"][0]) {
                    set_text.1.push(a);
                }
            }
            let (rt_ms, outcome, next) = keyboard_flow(&svc, &state, &entry, i).await;
            state = next;
            if i >= 2 {
                keys.0.push(rt_ms);
                keys.1.push(outcome);
            }
        }
        // Clicks last: the pointer left over the check box shows its tooltip, whose events
        // would slow the keyboard flows after it.
        for i in 0..runs + 2 {
            let (rt_ms, r) =
                one_step(&svc, &state, json!({ "action": "click", "ref": check })).await;
            state = r["stateId"].as_str().expect("successor").to_string();
            if i >= 2 {
                clicks.0.push(rt_ms);
                clicks
                    .1
                    .push(r["outcome"].as_str().unwrap_or("?").to_string());
            }
        }
        let mut looks = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            let _ = observe(root.clone()).await;
            looks.push(ms(t));
        }
        let worked = outcomes.iter().filter(|o| *o == "worked").count();
        json!({
            "app": "gtk3-widget-factory",
            "runs": runs,
            "pressWorked": format!("{worked}/{}", outcomes.len()),
            "press": {
                "roundTripMs": median(press.0.clone()),
                "settleMs": median(press.1.clone()),
                "successorObserveMs": median(press.2.clone()),
            },
            "setText": {
                "roundTripMs": median(set_text.0.clone()),
                "settleMs": median(set_text.1.clone()),
            },
            "keyboardFlow": {
                "roundTripMs": median(keys.0.clone()),
                "worked": format!(
                    "{}/{}",
                    keys.1.iter().filter(|o| *o == "worked").count(),
                    keys.1.len()
                ),
            },
            "click": {
                "roundTripMs": median(clicks.0.clone()),
                "worked": format!(
                    "{}/{}",
                    clicks.1.iter().filter(|o| *o == "worked").count(),
                    clicks.1.len()
                ),
            },
            "observeMs": median(looks.clone()),
            "raw": { "pressRoundTrip": press.0, "pressSettle": press.1, "observe": looks },
        })
    });
    let _ = sb.stop();
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let p = &result["press"];
    let look = f(&result["observeMs"]);
    println!(
        "act_ui on gtk3-widget-factory, medians of {runs} runs (ms); press worked {}",
        result["pressWorked"].as_str().unwrap_or("?")
    );
    println!("{:<34} {:>9} {:>12}", "", "ms", "× observe");
    let rows = [
        ("press round trip (act_ui → diff)", f(&p["roundTripMs"])),
        ("  press settle (DoAction → state)", f(&p["settleMs"])),
        ("  successor observation", f(&p["successorObserveMs"])),
        ("setText round trip", f(&result["setText"]["roundTripMs"])),
        (
            "  setText settle (read back)",
            f(&result["setText"]["settleMs"]),
        ),
        (
            "keyboard flow (one call)",
            f(&result["keyboardFlow"]["roundTripMs"]),
        ),
        (
            "click round trip (XTEST, landing)",
            f(&result["click"]["roundTripMs"]),
        ),
        ("observe_ui (semantic, fresh)", look),
    ];
    for (name, v) in rows {
        println!("{name:<34} {v:>9.1} {:>12.2}", v / look);
    }
    println!(
        "keyboard flow worked {}; click worked {}",
        result["keyboardFlow"]["worked"].as_str().unwrap_or("?"),
        result["click"]["worked"].as_str().unwrap_or("?")
    );
    if let Some(dir) = std::path::Path::new(&out).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(&out, serde_json::to_vec_pretty(&result).expect("json")).expect("write JSON");
    println!("JSON: {out}");
}
