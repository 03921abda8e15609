//! Browsers and pages coming and going: two browsers at once, a page that closes, a browser
//! that dies. Nothing hangs and every failure carries a catalogued code.

use std::time::{Duration, Instant};

use uidriver_backend_cdp::{CdpBackend, CdpConfig};
use uidriver_core::{Backend, Deadline, ErrorCode, LaunchRequest, ObserveRequest};

use crate::support::{deadline, live, Env};

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn two_browsers_closed_page_and_killed_browser() {
    live(
        "two_browsers_closed_page_and_killed_browser",
        120,
        || async {
            let mut env =
                Env::start(&[("/a.html", "<!doctype html><title>A</title><p>a")], None).await;
            env.goto("/a.html").await;
            // A second browser in the same backend.
            let b = env.backend.browser().unwrap();
            let headless_at = |url: String| LaunchRequest {
                url: Some(url),
                headless: true,
                endpoint: None,
                size: None,
                ..LaunchRequest::default()
            };
            let second = b
                .launch(headless_at(env.server.url("/a.html")), deadline())
                .await
                .unwrap();
            let roots = env.backend.list_roots(deadline()).await.unwrap();
            assert_eq!(roots.len(), 2, "{roots:#?}");
            assert_ne!(roots[0].key, roots[1].key);
            assert_ne!(roots[0].pid, roots[1].pid);
            assert!(roots.iter().all(|r| r.title == "A"));

            // A page opened by the page, then closed by it.
            b.evaluate(
                &env.root,
                "window.popup = window.open('/a.html', '_blank'); 1",
                deadline(),
            )
            .await
            .unwrap();
            let mut popup = None;
            for _ in 0..50 {
                let roots = env.backend.list_roots(deadline()).await.unwrap();
                if roots.len() == 3 {
                    popup = roots
                        .into_iter()
                        .find(|r| r.key != env.root.key && r.key != second[0].key);
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let popup = popup.expect("the popup is listed");
            env.backend
                .observe(&popup, &ObserveRequest::default(), deadline())
                .await
                .unwrap();
            b.evaluate(&env.root, "window.popup.close(); 1", deadline())
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(500)).await;
            let e = env
                .backend
                .observe(&popup, &ObserveRequest::default(), deadline())
                .await
                .unwrap_err();
            assert!(
                matches!(e.code, ErrorCode::TargetClosed | ErrorCode::RootNotFound),
                "{e:?}"
            );

            // The second browser dies: its page fails fast, the first browser is unaffected.
            let pid = second[0].pid.unwrap() as i32;
            std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status()
                .unwrap();
            tokio::time::sleep(Duration::from_millis(500)).await;
            let t = Instant::now();
            let e = env
                .backend
                .observe(
                    &second[0],
                    &ObserveRequest::default(),
                    Deadline::after(Duration::from_secs(20)),
                )
                .await
                .unwrap_err();
            assert!(t.elapsed() < Duration::from_secs(5), "failed fast");
            assert!(
                matches!(
                    e.code,
                    ErrorCode::TargetClosed | ErrorCode::BackendUnavailable
                ),
                "{e:?}"
            );
            let roots = env.backend.list_roots(deadline()).await.unwrap();
            assert_eq!(roots.len(), 1);
            env.backend
                .observe(&env.root, &ObserveRequest::default(), deadline())
                .await
                .unwrap();

            // A browser comes back: the same backend launches a new one after the kill, lists
            // its page beside the first and reads it (issue 14: a browser lost and back).
            let again = b
                .launch(headless_at(env.server.url("/a.html")), deadline())
                .await
                .unwrap();
            assert_ne!(again[0].pid, second[0].pid, "a new browser process");
            let roots = env.backend.list_roots(deadline()).await.unwrap();
            assert_eq!(roots.len(), 2, "{roots:#?}");
            let snap = env
                .backend
                .observe(&again[0], &ObserveRequest::default(), deadline())
                .await
                .unwrap();
            assert!(
                snap.nodes.iter().any(|n| n.name.text() == Some("a")),
                "the new page reads"
            );
            env.finish().await;
        },
    );
}

#[test]
fn launch_failure_is_backend_unavailable() {
    // Needs no browser: the binary does not exist.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let backend = CdpBackend::new(CdpConfig {
            chromium: "/nonexistent/chromium".into(),
            ..CdpConfig::default()
        });
        let e = backend
            .browser()
            .unwrap()
            .launch(
                LaunchRequest {
                    url: None,
                    headless: true,
                    endpoint: None,
                    size: None,
                    ..LaunchRequest::default()
                },
                deadline(),
            )
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::BackendUnavailable);
        let e = backend
            .browser()
            .unwrap()
            .launch(
                LaunchRequest {
                    url: Some("javascript:1".into()),
                    headless: true,
                    endpoint: None,
                    size: None,
                    ..LaunchRequest::default()
                },
                deadline(),
            )
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgs);
        assert!(backend.list_roots(deadline()).await.unwrap().is_empty());
    });
}
