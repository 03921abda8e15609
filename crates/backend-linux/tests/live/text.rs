//! Text by range (character offsets, UTF-8 safe), re-observing a region, waiting for an
//! accessibility event, and capturing a window's pixels — on mousepad with a known file.

use std::process::Command;
use std::time::{Duration, Instant};

use uidriver_core::{
    Backend, Deadline, NewState, ObserveRequest, Role, RootRef, State, StateFlag, StateId,
};

use crate::support::*;

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI) and its apps; scripts/test.sh runs it"]
fn text_region_events_and_capture() {
    live_test(
        "text_region_events_and_capture",
        180,
        &["mousepad"],
        |tracker| async move {
            let sb = tracker.start();
            let file = sb.state_dir().join("notes.txt");
            // 3 lines; multi-byte characters so byte and character offsets differ.
            let content = "héllo wörld 日本語\nsecond line ✓\n".to_string() + &"x".repeat(300);
            std::fs::write(&file, &content).expect("file");
            let pid = launch(&sb, &["mousepad", file.to_str().expect("path")]);
            let linux = backend(&sb).await;
            let roots = roots_of(&linux, pid, |r| r.title.contains("notes")).await;
            let root = roots
                .iter()
                .find(|r| r.has_tree && r.window_id.is_some())
                .expect("root")
                .clone();
            let snap = linux
                .observe(&root, &ObserveRequest::default(), secs(10))
                .await
                .expect("observe");
            let (ti, text_node) = snap
                .nodes
                .iter()
                .enumerate()
                .find(|(_, n)| n.role == Role::Text && n.has_state(StateFlag::MultiLine))
                .expect("text view");
            let total = content.chars().count() as u32;
            assert_eq!(text_node.text_len, Some(total));
            let shown = text_node.value.text().expect("value");
            assert_eq!(
                shown.chars().count(),
                200,
                "value holds the first 200 characters"
            );
            assert!(content.starts_with(shown));

            let slice = linux
                .read_text(&root, text_node, 6, 15, secs(5))
                .await
                .expect("read_text");
            assert_eq!(slice.text, "wörld 日本語");
            assert_eq!((slice.start, slice.end, slice.total), (6, 15, total));
            let tail = linux
                .read_text(&root, text_node, total - 5, total + 50, secs(5))
                .await
                .expect("tail");
            assert_eq!(tail.text, "xxxxx");
            assert_eq!(tail.end, total);

            // Region: the text view's parent subtree again; index 0 is that node.
            let parent = text_node.parent.expect("parent");
            let state = State::build(NewState {
                id: StateId::new(1).expect("id"),
                root: RootRef::new(1).expect("ref"),
                root_info: root.clone(),
                epoch: 0,
                snapshot: snap.clone(),
                image: None,
                ocr: Vec::new(),
                previous: None,
                successor: false,
            });
            let region = linux
                .observe_region(&root, &state, parent, &ObserveRequest::default(), secs(5))
                .await
                .expect("region");
            region.check().expect("region invariants");
            assert_eq!(region.nodes[0].handle, snap.nodes[parent].handle);
            assert!(region
                .nodes
                .iter()
                .any(|n| n.handle == snap.nodes[ti].handle));

            // Let the app go quiet (events from our own calls and startup drain), so the wait below
            // can only be resolved by the keystroke.
            let wid = root.window_id.expect("window");
            let mut quiet = false;
            for _ in 0..20 {
                let t = Instant::now();
                linux
                    .wait_change(&root, Deadline::after(Duration::from_millis(400)))
                    .await
                    .expect("wait_change");
                if t.elapsed() >= Duration::from_millis(390) {
                    quiet = true;
                    break;
                }
            }
            assert!(quiet, "mousepad never went 400 ms without an AT-SPI event");
            let waiter = {
                let linux = linux.clone();
                let root = root.clone();
                tokio::spawn(async move {
                    let t = Instant::now();
                    linux
                        .wait_change(&root, Deadline::after(Duration::from_secs(10)))
                        .await
                        .expect("wait_change");
                    t.elapsed()
                })
            };
            tokio::time::sleep(Duration::from_millis(300)).await;
            let typed_at = Instant::now();
            let mut cmd = Command::new("xdotool");
            cmd.env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default());
            for (k, v) in sb.env() {
                cmd.env(k, v);
            }
            let typed = cmd
                .args(["windowactivate", "--sync", &wid.to_string(), "type", "Z"])
                .status()
                .expect("xdotool");
            assert!(typed.success());
            let waited = waiter.await.expect("join");
            let after_key = typed_at.elapsed();
            eprintln!(
                "wait_change resolved after {waited:?} ({after_key:?} after the keystroke began)"
            );
            assert!(
                waited >= Duration::from_millis(290),
                "resolved before the keystroke: {waited:?}"
            );
            assert!(
                waited < Duration::from_secs(5),
                "wait_change waited {waited:?}"
            );

            // Capture: the window's rectangle, RGB, not blank.
            let img = linux.capture(&root, secs(5)).await.expect("capture");
            let b = root.bounds.expect("bounds");
            assert_eq!((img.width as i32, img.height as i32), (b.width, b.height));
            assert_eq!(img.rgb.len(), (img.width * img.height * 3) as usize);
            assert_eq!(img.screen, b);
            let first = &img.rgb[..3];
            assert!(
                img.rgb.chunks(3).any(|p| p != first),
                "captured image is uniform"
            );
            eprintln!(
                "captured {}x{} occluded={}",
                img.width, img.height, img.maybe_occluded
            );

            // A window whose app has no accessibility tree (ImageMagick `display`) is a root.
            if have("display") {
                let pid = sb
                    .spawn(&argv(&["display", "-size", "120x80", "xc:red"]))
                    .expect("spawn display");
                let t0 = Instant::now();
                let root = loop {
                    let roots = linux.list_roots(secs(3)).await.expect("list_roots");
                    // ImageMagick may set no _NET_WM_PID: then it is found by its title.
                    let found = roots.iter().find(|r| {
                        r.pid == Some(pid)
                            || (r.pid.is_none() && r.title.to_lowercase().contains("imagemagick"))
                    });
                    if let Some(r) = found {
                        break r.clone();
                    }
                    assert!(
                        t0.elapsed() < Duration::from_secs(20),
                        "display never listed: {roots:#?}"
                    );
                    tokio::time::sleep(Duration::from_millis(200)).await;
                };
                assert!(!root.has_tree);
                assert_eq!(root.kind, uidriver_core::RootKind::Window);
                let wid = root.window_id.expect("window id");
                match root.pid {
                    Some(p) => {
                        assert_eq!(
                            root.resource,
                            uidriver_core::ResourceKey::new(format!("desktop-pid:{}", p))
                        );
                        assert!(root.key.starts_with(&format!("x11:{wid:#x}:{p}:")));
                    }
                    None => {
                        assert_eq!(
                            root.resource,
                            uidriver_core::ResourceKey::new(format!("x11-window:{:#x}", wid))
                        );
                        assert_eq!(root.key, format!("x11:{wid:#x}:nopid"));
                    }
                }
                assert_eq!(root.bounds, Some(xwininfo(&sb, wid)));
                let e = linux
                    .observe(&root, &ObserveRequest::default(), secs(3))
                    .await
                    .expect_err("no tree to observe");
                assert_eq!(e.code, uidriver_core::ErrorCode::NotSupported);
                let img = linux
                    .capture(&root, secs(5))
                    .await
                    .expect("capture display");
                let red = img
                    .rgb
                    .chunks(3)
                    .filter(|p| p[0] > 200 && p[1] < 50 && p[2] < 50)
                    .count();
                assert!(
                    red * 2 > (img.width * img.height) as usize,
                    "display is mostly red"
                );
                eprintln!("display: {} {:?} has_tree=false", root.key, root.bounds);
            }
            drop(linux);
            sb.stop().expect("stop");
        },
    );
}
