//! Faults: a stopped app ends its own observation within the deadline (partial or
//! `app_unresponsive`) while listing and other apps stay prompt; an app killed mid-walk gives
//! `target_closed`, never a hang or a panic.

use std::time::{Duration, Instant};

use uidriver_core::{Backend, ErrorCode, ObserveRequest};

use crate::support::*;

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn stopped_app_does_not_block_others() {
    live_test(
        "stopped_app_does_not_block_others",
        180,
        &["mousepad", "gtk3-widget-factory"],
        |tracker| async move {
            let sb = tracker.start();
            let frozen = launch(&sb, &["mousepad"]);
            let other = launch(&sb, &["gtk3-widget-factory"]);
            let linux = backend(&sb).await;
            let f_root = roots_of(&linux, frozen, |r| r.title.contains("Mousepad")).await;
            let f_root = f_root
                .iter()
                .find(|r| r.has_tree && r.window_id.is_some())
                .expect("mousepad root")
                .clone();
            let o_root = roots_of(&linux, other, |r| r.title.contains("widget")).await;
            let o_root = o_root
                .iter()
                .find(|r| r.has_tree && r.window_id.is_some())
                .expect("factory root")
                .clone();
            linux
                .observe(&f_root, &ObserveRequest::default(), secs(10))
                .await
                .expect("warm observe");

            signal(frozen, "STOP");
            let deadline = Duration::from_secs(3);
            let t0 = Instant::now();
            let frozen_obs = {
                let linux = linux.clone();
                let root = f_root.clone();
                tokio::spawn(async move {
                    let r = linux
                        .observe(
                            &root,
                            &ObserveRequest::default(),
                            uidriver_core::Deadline::after(deadline),
                        )
                        .await;
                    (r, t0.elapsed())
                })
            };
            // While the frozen observation is in flight: list and observe another app.
            tokio::time::sleep(Duration::from_millis(50)).await;
            let t1 = Instant::now();
            let roots = linux
                .list_roots(secs(5))
                .await
                .expect("list_roots with a stopped app");
            let list_ms = t1.elapsed().as_millis();
            let listed = roots
                .iter()
                .find(|r| r.key == f_root.key)
                .expect("stopped app's window still listed");
            assert_eq!(listed.bounds, f_root.bounds);
            let t2 = Instant::now();
            let snap = linux
                .observe(&o_root, &ObserveRequest::default(), secs(5))
                .await
                .expect("other app");
            let other_ms = t2.elapsed().as_millis();
            assert!(snap.complete);
            let (frozen_result, frozen_elapsed) = frozen_obs.await.expect("join");
            eprintln!(
            "stopped app: observe ended after {} ms ({}), list_roots {} ms, other app observe {} ms ({} nodes)",
            frozen_elapsed.as_millis(),
            match &frozen_result {
                Ok(s) => format!("partial: complete={} notes={:?}", s.complete, s.notes),
                Err(e) => e.code.to_string(),
            },
            list_ms,
            other_ms,
            snap.nodes.len()
        );
            match &frozen_result {
                Ok(s) => assert!(
                    !s.complete,
                    "a stopped app cannot give a complete observation"
                ),
                Err(e) => assert_eq!(e.code, ErrorCode::AppUnresponsive, "{e}"),
            }
            assert!(
                frozen_elapsed <= deadline + Duration::from_millis(300),
                "frozen observe took {frozen_elapsed:?}"
            );
            assert!(list_ms < 1500, "list_roots took {list_ms} ms");
            assert!(other_ms < 1500, "other app's observe took {other_ms} ms");

            signal(frozen, "CONT");
            let again = linux
                .observe(&f_root, &ObserveRequest::default(), secs(10))
                .await
                .expect("after SIGCONT");
            assert!(again.complete);
            drop(linux);
            sb.stop().expect("stop");
        },
    );
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn killed_app_mid_walk_is_target_closed() {
    live_test(
        "killed_app_mid_walk_is_target_closed",
        180,
        &["gtk3-widget-factory"],
        |tracker| async move {
            let sb = tracker.start();
            let linux = backend(&sb).await;
            let mut mid_walk = 0;
            for attempt in 0..3 {
                let pid = launch(&sb, &["gtk3-widget-factory"]);
                let roots = roots_of(&linux, pid, |r| r.title.contains("widget")).await;
                let root = roots
                    .iter()
                    .find(|r| r.has_tree && r.window_id.is_some())
                    .expect("root")
                    .clone();
                let warm = linux
                    .observe(&root, &ObserveRequest::default(), secs(10))
                    .await
                    .expect("observe");
                let walk_ms = warm.timings.total_ms;
                let t0 = Instant::now();
                let obs = {
                    let linux = linux.clone();
                    let root = root.clone();
                    tokio::spawn(async move {
                        let r = linux
                            .observe(&root, &ObserveRequest::default(), secs(5))
                            .await;
                        (r, t0.elapsed())
                    })
                };
                // Kill a third of the way into a typical observation.
                tokio::time::sleep(Duration::from_secs_f64(walk_ms / 3000.0)).await;
                tracker.let_go(pid); // killed on purpose
                signal(pid, "KILL");
                let killed_at = t0.elapsed();
                let (r, took) = obs.await.expect("observation task must not panic");
                assert!(
                    took < Duration::from_secs(5),
                    "observation hung for {took:?}"
                );
                match r {
                Err(e) => {
                    assert_eq!(e.code, ErrorCode::TargetClosed, "attempt {attempt}: {e}");
                    mid_walk += 1;
                    eprintln!("attempt {attempt}: killed at {killed_at:?}, observation ended {took:?} with target_closed");
                }
                Ok(s) => eprintln!(
                    "attempt {attempt}: observation finished ({} nodes, {:?}) before the kill at {killed_at:?}",
                    s.nodes.len(),
                    took
                ),
            }
                // After the kill, the root is closed for good.
                let after = linux
                    .observe(&root, &ObserveRequest::default(), secs(5))
                    .await;
                let code = after.expect_err("observing a killed app").code;
                assert!(
                    matches!(code, ErrorCode::TargetClosed | ErrorCode::RootNotFound),
                    "{code}"
                );
                if mid_walk > 0 {
                    break;
                }
            }
            assert!(mid_walk > 0, "never caught the app mid-walk");
            drop(linux);
            sb.stop().expect("stop");
        },
    );
}
