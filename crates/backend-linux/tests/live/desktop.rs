//! Roots and observation of real apps: pid, kind and geometry of every root checked against
//! `xdotool`/`xwininfo`; every showing node a libatspi walk reaches is in uidriver's observation;
//! GTK4 bounds land inside the window.

use std::collections::HashSet;
use std::time::Duration;

use uidriver_core::{Backend, Node, ObserveRequest, RootKind, StateFlag};

use crate::support::*;

struct App {
    label: &'static str,
    pid: u32,
    kind: RootKind,
    title_has: &'static str,
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn roots_observation_and_completeness() {
    live_test(
        "roots_observation_and_completeness",
        300,
        &[
            "gtk3-widget-factory",
            "mousepad",
            "gnome-calculator",
            "zenity",
            "/usr/lib/chromium/chromium",
        ],
        |tracker| async move {
            let sb = tracker.start();
            let tmp = sb.state_dir().join("chromium-test");
            std::fs::create_dir_all(&tmp).expect("tmp");
            let chromium: Vec<String> = chromium_args(&tmp);
            let chromium: Vec<&str> = chromium.iter().map(String::as_str).collect();
            let apps = [
                App {
                    label: "gtk3-widget-factory",
                    pid: launch(&sb, &["gtk3-widget-factory"]),
                    kind: RootKind::Window,
                    title_has: "widget-factory",
                },
                App {
                    label: "mousepad",
                    pid: launch(&sb, &["mousepad"]),
                    kind: RootKind::Window,
                    title_has: "Mousepad",
                },
                App {
                    label: "gnome-calculator",
                    pid: launch(&sb, &["gnome-calculator"]),
                    kind: RootKind::Window,
                    title_has: "Calculator",
                },
                App {
                    label: "zenity",
                    pid: launch(&sb, &["zenity", "--info", "--text", "hi"]),
                    kind: RootKind::Dialog,
                    title_has: "",
                },
                App {
                    label: "chromium",
                    pid: launch(&sb, &chromium),
                    kind: RootKind::Window,
                    title_has: "Test Page",
                },
            ];
            let linux = backend(&sb).await;
            // Let first-paint churn settle (Chromium builds its web tree after the window shows).
            tokio::time::sleep(Duration::from_secs(2)).await;
            let mut report = Vec::new();
            for app in &apps {
                let roots = roots_of(&linux, app.pid, |r| r.title.contains(app.title_has)).await;
                let root = roots
                    .iter()
                    .find(|r| {
                        r.has_tree && r.title.contains(app.title_has) && r.window_id.is_some()
                    })
                    .unwrap_or_else(|| {
                        panic!("{}: no root with a tree among {roots:#?}", app.label)
                    })
                    .clone();
                // Independent checks: pid (xdotool), geometry (xwininfo), kind.
                let wid = root.window_id.expect("window id");
                assert_eq!(xdotool_pid(&sb, wid), Some(app.pid), "{}: pid", app.label);
                assert_eq!(root.pid, Some(app.pid), "{}: pid", app.label);
                assert_eq!(
                    root.bounds,
                    Some(xwininfo(&sb, wid)),
                    "{}: geometry",
                    app.label
                );
                assert_eq!(root.kind, app.kind, "{}: kind", app.label);
                assert!(
                    root.key.starts_with(&format!("x11:{wid:#x}:{}:", app.pid)),
                    "{}: key {}",
                    app.label,
                    root.key
                );
                assert!(!root.hidden, "{}: hidden", app.label);

                let snap = linux
                    .observe(&root, &ObserveRequest::default(), secs(10))
                    .await
                    .unwrap_or_else(|e| panic!("{}: observe: {e}", app.label));
                snap.check().expect("tree invariants");
                assert!(snap.complete, "{}: incomplete: {:?}", app.label, snap.notes);
                assert!(snap.timings.calls > 0 && snap.timings.total_ms > 0.0);

                if app.label == "gtk3-widget-factory" {
                    // A node cap cuts the tree and says where and how much.
                    let req = ObserveRequest {
                        max_nodes: 40,
                        max_children: 500,
                        ..ObserveRequest::default()
                    };
                    let small = linux
                        .observe(&root, &req, secs(10))
                        .await
                        .expect("capped observe");
                    small.check().expect("capped invariants");
                    assert!(small.nodes.len() <= 40 && !small.complete);
                    let cut: u32 = small
                        .nodes
                        .iter()
                        .filter_map(|n| n.truncated.as_ref())
                        .filter(|t| t.reason == "cap")
                        .filter_map(|t| t.skipped)
                        .sum();
                    assert!(cut > 0, "no truncation recorded");
                }

                if app.label == "gnome-calculator" {
                    let b = root.bounds.expect("bounds");
                    let boxed: Vec<&Node> = snap
                        .nodes
                        .iter()
                        .filter(|n| {
                            !n.has_state(StateFlag::Hidden)
                                && n.bounds.is_some_and(|b| b.is_visible())
                        })
                        .collect();
                    assert!(boxed.len() > 20, "GTK4 nodes with bounds: {}", boxed.len());
                    for n in &boxed {
                        let nb = n.bounds.expect("bounds");
                        assert!(
                            b.encloses(&nb, 2),
                            "GTK4 node {:?} {nb} outside window {b}",
                            n.name
                        );
                    }
                    let eq = snap
                        .nodes
                        .iter()
                        .find(|n| n.name.text() == Some("="))
                        .expect("= button");
                    let eb = eq.bounds.expect("= bounds");
                    assert!(
                        eb.x > b.x && eb.y > b.y + 40,
                        "= button at {eb} in window {b}"
                    );
                }

                if walk_available() {
                    let walk = atspi_walk(&sb, app.pid, 1);
                    let showing = paths(&walk["showing_paths"]);
                    let app_snap = observe_app(&linux, &root, &snap).await;
                    app_snap.check().expect("app tree invariants");
                    let app_paths: HashSet<String> = app_snap
                        .nodes
                        .iter()
                        .map(|n| path_of(&n.handle).to_string())
                        .collect();
                    let missing: Vec<&String> = showing.difference(&app_paths).collect();
                    assert!(
                        missing.is_empty(),
                        "{}: {} showing nodes of the libatspi walk not observed: {:?}",
                        app.label,
                        missing.len(),
                        &missing[..missing.len().min(10)]
                    );
                    // The window's own observation holds every showing node under the window.
                    let win_path = path_of(&snap.nodes[0].handle);
                    let wi = app_snap
                        .nodes
                        .iter()
                        .position(|n| path_of(&n.handle) == win_path)
                        .expect("window in app observation");
                    let under = subtree_paths(&app_snap, wi);
                    let win_paths: HashSet<String> = snap
                        .nodes
                        .iter()
                        .map(|n| path_of(&n.handle).to_string())
                        .collect();
                    let missing: Vec<&String> = showing
                        .intersection(&under)
                        .filter(|p| !win_paths.contains(*p))
                        .collect();
                    assert!(
                        missing.is_empty(),
                        "{}: window observation misses {missing:?}",
                        app.label
                    );
                    report.push(format!(
                        "{:<20} walk {:>4} nodes ({:>4} showing) | app observe {:>4} | window observe {:>4} nodes, {:>6.1} ms, {} calls",
                        app.label,
                        walk["nodes"],
                        showing.len(),
                        app_snap.nodes.len(),
                        snap.nodes.len(),
                        snap.timings.total_ms,
                        snap.timings.calls
                    ));
                } else {
                    eprintln!("note: /usr/bin/python3 or tools/atspi_walk.py missing; completeness not compared");
                }
            }
            for line in &report {
                eprintln!("{line}");
            }
            drop(linux);
            let stopped = sb.stop().expect("stop");
            assert!(
                stopped.survivors.is_empty(),
                "survivors: {:?}",
                stopped.survivors
            );
        },
    );
}
