//! Live tests of backend loss and return (issue 14 item 3): the accessibility bus, the X server
//! and Chromium each die under one `Service` (what a daemon runs) that is never rebuilt. Calls
//! in between answer `backend_unavailable` naming what is missing, within a bound, never
//! `root_not_found`; once the part is back, the same service lists and observes a newly started
//! app. The sandbox kills and restarts only the processes it recorded, by pid; whether the new
//! app is really on the new bus is judged by the sandbox's own registry connection
//! (`wait_for_app_window`), and its widgets by a search of the observation.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_backend_cdp::{CdpBackend, CdpConfig};
use uidriver_core::Backend;
use uidriver_sandbox::testing::live_test as live;
use uidriver_sandbox::Component;
use uidriver_service::{Service, ServiceConfig};

mod desk;
use desk::*;

/// Longest any call may take while a part is away: every external call has a deadline.
const ANSWER_WITHIN: Duration = Duration::from_secs(12);

/// A call that must fail: its `error` object, after checking it answered within the bound.
async fn failure(svc: &Service, tool: &str, args: Value) -> Value {
    let t0 = Instant::now();
    let r = call(svc, tool, args.clone()).await;
    let took = t0.elapsed();
    eprintln!(
        "--- {tool} {args} ({} ms)\n{}",
        took.as_millis(),
        first_lines(&r.text, 6)
    );
    assert!(took < ANSWER_WITHIN, "{tool} took {took:?}");
    assert!(
        r.is_error,
        "{tool} {args} worked while a part was away:\n{}",
        r.text
    );
    r.structured["error"].clone()
}

/// Asserts `e` is `backend_unavailable` and its message names `cause`.
fn unavailable_naming(e: &Value, cause: &str) {
    assert_eq!(e["code"], "backend_unavailable", "{e}");
    let msg = e["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains(cause),
        "the message does not name {cause:?}: {msg}"
    );
}

/// `find_roots` answers (the browser backend is fine) with an issue naming `cause`.
async fn listing_names(svc: &Service, cause: &str) {
    let t0 = Instant::now();
    let v = ok(svc, "find_roots", json!({})).await;
    assert!(
        t0.elapsed() < ANSWER_WITHIN,
        "find_roots took {:?}",
        t0.elapsed()
    );
    let issues = v["issues"].to_string();
    assert!(
        issues.contains(cause),
        "find_roots issues do not name {cause:?}: {v}"
    );
}

/// The calls an agent makes while a part is away: observing a root it knows, observing by app
/// name (which must not send it to find_roots with `root_not_found`), and listing.
async fn in_between(svc: &Service, root: &str, app: &str, cause: &str) {
    let e = failure(svc, "observe_ui", json!({ "root": root })).await;
    if cause.contains("X server") {
        // The app died with its display: its root is closed, or the display named.
        let code = e["code"].as_str().unwrap_or_default();
        assert!(
            code == "target_closed" || code == "backend_unavailable",
            "observing a root of a dead display: {e}"
        );
    } else {
        unavailable_naming(&e, cause);
    }
    let e = failure(svc, "observe_ui", json!({ "app": app })).await;
    unavailable_naming(&e, cause);
    listing_names(svc, cause).await;
}

/// A newly started gtk3-widget-factory is listed and observed by the same service: its check
/// boxes are found in the observation.
async fn observes_a_new_app(d: &Desk) {
    let app = d.launch(&["gtk3-widget-factory"]).await;
    let root = root_of(&d.svc, app.pid, "").await;
    let state = observe(&d.svc, &root).await;
    let boxes = search(&d.svc, &state, json!({ "role": "check-box" })).await;
    assert!(
        boxes.len() >= 2,
        "no check boxes observed in {root}: {boxes:?}"
    );
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.expect("join")
}

/// (a) The AT-SPI bus (launcher, its dbus-daemon, registryd) SIGKILLed and started again.
#[test]
fn one_service_survives_the_accessibility_bus_restarting() {
    live(
        "one_service_survives_the_accessibility_bus_restarting",
        240,
        &["mousepad", "gtk3-widget-factory"],
        |t| async move {
            let d = Desk::start(&t).await;
            let pad = d.launch(&["mousepad"]).await;
            let root = root_of(&d.svc, pad.pid, "").await;
            observe(&d.svc, &root).await;

            let sb = d.sb.clone();
            let killed = blocking(move || sb.kill(Component::AccessibilityBus))
                .await
                .expect("kill the AT-SPI bus");
            eprintln!("killed the AT-SPI bus: {killed:?}");
            in_between(&d.svc, &root, "mousepad", "the accessibility bus is gone").await;

            let sb = d.sb.clone();
            blocking(move || sb.restart(Component::AccessibilityBus))
                .await
                .expect("restart the AT-SPI bus");
            observes_a_new_app(&d).await;

            // mousepad joined the old bus: an answer that says why its tree is missing (or its
            // tree, if it rejoined), never a hang or an internal error.
            let t0 = Instant::now();
            let r = call(&d.svc, "observe_ui", json!({ "root": root })).await;
            eprintln!(
                "--- the old app after the restart\n{}",
                first_lines(&r.text, 4)
            );
            assert!(t0.elapsed() < ANSWER_WITHIN, "{:?}", t0.elapsed());
            if r.is_error {
                let e = &r.structured["error"];
                let msg = e["message"].as_str().unwrap_or_default();
                assert!(
                    (e["code"] == "not_supported" && msg.contains("restarted"))
                        || e["code"] == "target_closed",
                    "{e}"
                );
            }
        },
    );
}

/// (b) Xvfb SIGKILLed (its apps and window manager die with it) and started again.
#[test]
fn one_service_survives_the_x_server_restarting() {
    live(
        "one_service_survives_the_x_server_restarting",
        240,
        &["mousepad", "gtk3-widget-factory"],
        |t| async move {
            let d = Desk::start(&t).await;
            let pad = d.launch(&["mousepad"]).await;
            let root = root_of(&d.svc, pad.pid, "").await;
            observe(&d.svc, &root).await;
            let shot = ok(
                &d.svc,
                "observe_ui",
                json!({ "root": root, "mode": "visual" }),
            )
            .await;
            assert!(shot["stateId"].is_string(), "{shot}");

            let sb = d.sb.clone();
            let killed = blocking(move || sb.kill(Component::XServer))
                .await
                .expect("kill Xvfb");
            eprintln!("killed Xvfb: {killed:?}");
            let cause = format!("X server {}", d.sb.display());
            in_between(&d.svc, &root, "mousepad", &cause).await;

            let sb = d.sb.clone();
            blocking(move || sb.restart(Component::XServer))
                .await
                .expect("restart Xvfb");
            observes_a_new_app(&d).await;
        },
    );
}

const PAGE: &str = "<!doctype html><title>Loss test</title><h1>Loss</h1><button>Send</button>";

/// SIGKILLs `pid` (a browser this test's service launched) and waits until it is dead.
fn sigkill(pid: u32) {
    let p = rustix::process::Pid::from_raw(pid as i32).expect("a pid");
    rustix::process::kill_process(p, rustix::process::Signal::KILL).expect("SIGKILL");
    let t0 = Instant::now();
    while std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    }) {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "{pid} outlived SIGKILL"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The page root `launch_browser` opened, with its browser's pid.
async fn launch_page(svc: &Service, url: &str) -> (String, u32) {
    let v = ok(
        svc,
        "launch_browser",
        json!({ "url": url, "headless": true }),
    )
    .await;
    let root = &v["roots"][0];
    let pid = root["pid"]
        .as_u64()
        .unwrap_or_else(|| panic!("no pid: {v}")) as u32;
    (root["ref"].as_str().expect("ref").to_string(), pid)
}

/// (c) Chromium SIGKILLed: its page is reported closed (not hung, not internal), the listing
/// no longer shows it, and the next launch_browser of the same service works.
#[test]
fn one_service_survives_chromium_being_killed() {
    live(
        "one_service_survives_chromium_being_killed",
        180,
        &[CdpConfig::default().chromium.to_str().unwrap_or("chromium")],
        |_t| async move {
            let dir = tempdir();
            std::fs::write(dir.join("loss.html"), PAGE).expect("page");
            let url = format!("file://{}", dir.join("loss.html").display());
            let cdp = Arc::new(CdpBackend::new(CdpConfig {
                headless: Some(true),
                ..CdpConfig::default()
            }));
            let svc = Service::new(
                vec![cdp.clone() as Arc<dyn Backend>],
                vec![],
                ServiceConfig::default(),
            );
            let (page, pid) = launch_page(&svc, &url).await;
            let state = observe(&svc, &page).await;
            assert!(!search(&svc, &state, json!({ "text": "Send" }))
                .await
                .is_empty());

            blocking(move || sigkill(pid)).await;
            let e = failure(&svc, "observe_ui", json!({ "root": page })).await;
            assert_eq!(e["code"], "target_closed", "{e}");
            let msg = e["message"].as_str().unwrap_or_default();
            assert!(
                msg.contains(&format!("its browser (pid {pid}) exited")),
                "{msg}"
            );
            let listed = ok(&svc, "find_roots", json!({})).await;
            assert!(
                !listed["roots"].to_string().contains(&page),
                "the dead page is still listed: {listed}"
            );

            let (again, new_pid) = launch_page(&svc, &url).await;
            assert_ne!(new_pid, pid);
            let state = observe(&svc, &again).await;
            assert!(!search(&svc, &state, json!({ "text": "Send" }))
                .await
                .is_empty());
            cdp.shutdown().await;
            let _ = std::fs::remove_dir_all(&dir);
        },
    );
}
