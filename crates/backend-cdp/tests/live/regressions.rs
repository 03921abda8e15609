//! One test per bug fixed in the browser backend, named for what must stay true, with where
//! it was found. A new fix adds its test here.

use uidriver_core::Backend;

use crate::support::{deadline, live, Env};

/// Whether `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// Found in issue 16 (a persistent profile stayed locked, so the next launch on it failed):
/// `Service::shutdown` asked the browser control to stop, and the CDP backend had no
/// `BrowserControl::shutdown`, so launched browsers ran until the backend was dropped. Now
/// shutting down stops every browser it launched.
#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn shutdown_stops_the_browsers_it_launched() {
    live("shutdown_stops_the_browsers_it_launched", 120, || async {
        let env = Env::start(&[("/a.html", "<!doctype html><title>A</title><p>a")], None).await;
        let roots = env.backend.list_roots(deadline()).await.expect("roots");
        let pid = roots
            .first()
            .and_then(|r| r.pid)
            .expect("the browser's pid");
        assert!(alive(pid), "the browser runs");
        env.backend
            .browser()
            .expect("browser control")
            .shutdown()
            .await;
        let t0 = std::time::Instant::now();
        while alive(pid) && t0.elapsed() < std::time::Duration::from_secs(10) {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(!alive(pid), "browser {pid} still runs after shutdown");
    });
}
