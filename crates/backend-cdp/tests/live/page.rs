//! Pages that change and pages that get in the way: content added after a click, an element
//! covered by an overlay, and content inside an iframe.

use std::time::Duration;

use uidriver_core::{Backend, Delivery, ErrorCode, Outcome, Role, Step};

use crate::support::{deadline, find, live, Env};

const DYNAMIC: &str = r#"<!doctype html><title>Dynamic</title>
<button id="more" onclick="setTimeout(() => { const li = document.createElement('li'); li.textContent = 'Item ' + (document.querySelectorAll('li').length + 1); document.querySelector('ul').append(li); }, 150)">Load more</button>
<ul><li>Item 1</li><li>Item 2</li></ul>"#;

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn dynamic_content_appears_in_reobservation() {
    live("dynamic_content_appears_in_reobservation", 90, || async {
        let mut env = Env::start(&[("/dynamic.html", DYNAMIC)], None).await;
        env.goto("/dynamic.html").await;
        let s = env.observe(None).await;
        assert!(uidriver_core::search::search(&s, &query("Item 3")).is_empty());
        let more = find(&s, Some(Role::Button), "Load more");
        let r = env.act(&s, vec![Step::Press(more)]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        // Wait for the page to change (event-driven), then look again.
        let mut found = None;
        for _ in 0..20 {
            env.backend
                .wait_change(&env.root, deadline().cap(Duration::from_secs(2)))
                .await
                .unwrap();
            let s2 = env.observe(Some(s.clone())).await;
            if let Some(m) = uidriver_core::search::search(&s2, &query("Item 3")).first() {
                found = Some((s2.clone(), m.index));
                break;
            }
        }
        let (s2, i) = found.expect("Item 3 appeared");
        assert_eq!(s2.snapshot.nodes[i].role, Role::ListItem);
        // Unchanged controls keep their refs.
        assert_eq!(find(&s2, Some(Role::Button), "Load more"), more);
        env.finish().await;
    });
}

/// A left click at a point of a state without an image (viewport pixels).
fn click_at((x, y): (i32, i32)) -> Step {
    Step::Click {
        target: uidriver_core::Target::Point(uidriver_core::action::Point {
            x: f64::from(x),
            y: f64::from(y),
        }),
        button: uidriver_core::action::Button::Left,
        count: 1,
    }
}

fn query(text: &str) -> uidriver_core::search::Query {
    uidriver_core::search::Query {
        text: Some(text.into()),
        ..Default::default()
    }
}

const OVERLAY: &str = r#"<!doctype html><title>Overlay</title>
<style>#overlay { position: fixed; inset: 0; background: rgba(0,0,0,.4); }</style>
<p><button id="buy" onclick="window.bought = (window.bought || 0) + 1">Buy</button></p>
<div id="overlay" onclick="window.overlayClicks = (window.overlayClicks || 0) + 1">
  <button id="close" onclick="event.stopPropagation(); document.getElementById('overlay').remove()">Close</button>
</div>"#;

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn covered_element_is_never_clicked_blind() {
    live("covered_element_is_never_clicked_blind", 90, || async {
        let mut env = Env::start(&[("/overlay.html", OVERLAY)], None).await;
        env.goto("/overlay.html").await;
        let s = env.observe(None).await;
        let buy = find(&s, Some(Role::Button), "Buy");

        // click: refused before any input, naming what covers it.
        let r = env
            .act(
                &s,
                vec![Step::Click {
                    target: uidriver_core::Target::Ref(buy),
                    button: uidriver_core::action::Button::Left,
                    count: 1,
                }],
            )
            .await;
        assert_eq!(r[0].outcome, Outcome::Didnt);
        let e = r[0].error.as_ref().unwrap();
        assert_eq!(e.code, ErrorCode::NotSupported);
        assert_eq!(e.delivery, Delivery::NotDelivered);
        assert!(
            e.message.contains("covered by div#overlay"),
            "{}",
            e.message
        );
        let seen = env
            .eval("[window.bought || 0, window.overlayClicks || 0]")
            .await;
        assert_eq!(seen, serde_json::json!([0, 0]));

        // press: reaches the right element through the DOM, and says so.
        let r = env.act(&s, vec![Step::Press(buy)]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(r[0].delivery.method.as_str(), "cdp-dom");
        let seen = env
            .eval("[window.bought || 0, window.overlayClicks || 0]")
            .await;
        assert_eq!(seen, serde_json::json!([1, 0]));

        // Close the overlay with a real click; then the pointer reaches Buy.
        let close = find(&s, Some(Role::Button), "Close");
        let r = env
            .act(
                &s,
                vec![
                    Step::Press(close),
                    Step::Click {
                        target: uidriver_core::Target::Ref(buy),
                        button: uidriver_core::action::Button::Left,
                        count: 1,
                    },
                ],
            )
            .await;
        assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
        assert_eq!(r[1].delivery.method.as_str(), "cdp-input");
        let seen = env
            .eval("[window.bought || 0, window.overlayClicks || 0]")
            .await;
        assert_eq!(seen, serde_json::json!([2, 0]));
        env.finish().await;
    });
}

const OUTER: &str = r#"<!doctype html><title>Outer</title>
<h1>Outer page</h1>
<p style="height: 200px">Some space above the frame.</p>
<iframe src="/inner.html" title="Inner frame" style="width: 400px; height: 200px; border: 4px solid #888"></iframe>"#;
const INNER: &str = r#"<!doctype html><title>Inner</title>
<p>Inside the frame <span id="out">waiting</span></p>
<button onclick="document.getElementById('out').textContent = 'clicked'">Inner button</button>"#;

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn iframe_content_is_observed_and_clickable() {
    live("iframe_content_is_observed_and_clickable", 90, || async {
        let mut env = Env::start(&[("/outer.html", OUTER), ("/inner.html", INNER)], None).await;
        env.goto("/outer.html").await;
        let s = env.observe(None).await;
        let frame = find(&s, Some(Role::Document), "Inner frame");
        let button = find(&s, Some(Role::Button), "Inner button");
        let fi = s.resolve(frame).unwrap();
        let bi = s.resolve(button).unwrap();
        assert!(
            s.ancestors(bi).contains(&fi),
            "the button is inside the frame node"
        );
        let (fb, bb) = (
            s.snapshot.nodes[fi].bounds.unwrap(),
            s.snapshot.nodes[bi].bounds.unwrap(),
        );
        assert!(fb.encloses(&bb, 0), "frame {fb} encloses button {bb}");
        assert!(
            bb.y > 200,
            "button bounds are in top-viewport coordinates: {bb}"
        );

        let r = env.act(&s, vec![Step::Press(button)]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(r[0].delivery.method.as_str(), "cdp-input");
        let out = env.eval("document.querySelector('iframe').contentDocument.getElementById('out').textContent").await;
        assert_eq!(out, "clicked");

        // A click by point (CSS viewport pixels: the state has no image) lands there too.
        env.eval("document.querySelector('iframe').contentDocument.getElementById('out').textContent = 'reset'").await;
        let r = env.act(&s, vec![click_at(bb.center())]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(r[0].grounding.method.as_str(), "point");
        let out = env.eval("document.querySelector('iframe').contentDocument.getElementById('out').textContent").await;
        assert_eq!(out, "clicked");

        env.finish().await;
    });
}

const OUTER_X: &str = r#"<!doctype html><title>Outer X</title>
<h1>Outer page</h1>
<p style="height: 150px">Some space above the frames.</p>
<script>window.got = []; addEventListener('message', (e) => got.push(e.data));</script>
<iframe id="oop" title="Other site" style="width: 420px; height: 200px; border: 3px solid #888; padding: 6px"></iframe>
<iframe id="port" title="Other port" style="width: 420px; height: 200px; border: 0"></iframe>"#;
const X_INNER: &str = r#"<!doctype html><title>X inner</title>
<p id="text">Frame text <span id="out">waiting</span></p>
<div aria-label="Drag pad" style="width: 200px; height: 30px; background: #ddd"
  onmousedown="this.moves = 0" onmousemove="if (event.buttons) this.moves = (this.moves || 0) + 1"
  onmouseup="parent.postMessage(location.host + ' dragged ' + this.moves, '*')"></div>
<button onclick="document.getElementById('out').textContent = 'clicked'; parent.postMessage(location.host + ' clicked', '*')">Frame button</button>
<input aria-label="Frame field" oninput="parent.postMessage(location.host + ' input ' + this.value, '*')">
<button onclick="setTimeout(() => { document.getElementById('out').textContent = 'later'; }, 800)">Change later</button>
<p style="height: 600px">A tall paragraph, so the frame scrolls.</p>
<p>The end of the frame</p>"#;

/// The matches of a role and text, each with the frame node it is inside.
fn in_frames(s: &uidriver_core::State, role: Option<Role>, text: &str) -> Vec<(usize, usize)> {
    let q = uidriver_core::search::Query {
        text: Some(text.into()),
        roles: role.into_iter().collect(),
        ..Default::default()
    };
    uidriver_core::search::search(s, &q)
        .iter()
        .map(|m| {
            let frame = *s
                .ancestors(m.index)
                .iter()
                .find(|&&a| s.snapshot.nodes[a].native_role == "iframe")
                .expect("inside a frame");
            (m.index, frame)
        })
        .collect()
}

/// The frames' messages to the page once there are `n` (posting a message is asynchronous).
async fn messages(env: &Env, n: usize) -> serde_json::Value {
    for _ in 0..40 {
        let v = env.eval("window.got").await;
        if v.as_array().is_some_and(|a| a.len() >= n) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    env.eval("window.got").await
}

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn cross_origin_frames_are_read_and_acted_on() {
    live("cross_origin_frames_are_read_and_acted_on", 120, || async {
        let mut env = Env::start(&[("/outer.html", OUTER_X), ("/inner.html", X_INNER)], None).await;
        // A second server: another port is another origin of the same site, which Chromium keeps
        // in the page's process; localhost is another site, which it runs out of process.
        let other = crate::support::Server::start(
            [("/inner.html".to_string(), X_INNER.to_string())].into(),
            None,
        )
        .await;
        env.goto("/outer.html").await;
        let (oop_host, port_host) = (
            format!("localhost:{}", env.server.port),
            format!("127.0.0.1:{}", other.port),
        );
        let js = format!(
            "Promise.all([['oop', {a:?}], ['port', {b:?}]].map(([id, url]) => new Promise(r => {{ \
             const f = document.getElementById(id); f.onload = () => r(true); f.src = url; }})))",
            a = format!("http://{oop_host}/inner.html"),
            b = format!("http://{port_host}/inner.html"),
        );
        env.eval(&js).await;
        let s = env.observe(None).await;
        let cut: Vec<_> = s
            .snapshot
            .nodes
            .iter()
            .filter_map(|n| n.truncated.as_ref())
            .collect();
        assert!(
            s.snapshot.complete,
            "notes: {:?}; cut: {cut:?}",
            s.snapshot.notes
        );
        let buttons = in_frames(&s, Some(Role::Button), "Frame button");
        assert_eq!(buttons.len(), 2, "one button in each frame");
        let frame_named = |i: usize| {
            s.snapshot.nodes[i]
                .name
                .text()
                .unwrap_or_default()
                .to_string()
        };
        let by_frame = |name: &str| {
            *buttons
                .iter()
                .find(|(_, f)| frame_named(*f) == name)
                .unwrap_or_else(|| panic!("a button in {name}"))
        };
        let (oop_button, oop_frame) = by_frame("Other site");
        let (port_button, port_frame) = by_frame("Other port");
        for (b, f) in [(oop_button, oop_frame), (port_button, port_frame)] {
            let (fb, bb) = (
                s.snapshot.nodes[f].bounds.unwrap(),
                s.snapshot.nodes[b].bounds.unwrap(),
            );
            assert!(fb.encloses(&bb, 0), "frame {fb} encloses its button {bb}");
            assert!(bb.y > 150, "top-viewport coordinates: {bb}");
        }
        // Border 3 + padding 6: the frame's content starts 9 px inside its box.
        let (fb, bb) = (
            s.snapshot.nodes[oop_frame].bounds.unwrap(),
            s.snapshot.nodes[oop_button].bounds.unwrap(),
        );
        assert!(
            bb.x >= fb.x + 9,
            "content offset applied: frame {fb}, button {bb}"
        );

        // Press in the out-of-process frame: real pointer events, seen by the frame's script.
        let r = env.act(&s, vec![Step::Press(s.ref_of(oop_button))]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(r[0].delivery.method.as_str(), "cdp-input");
        assert_eq!(
            messages(&env, 1).await,
            serde_json::json!([format!("{oop_host} clicked")])
        );

        // Text into the same-process frame's field, seen by its script as input.
        let (field, _) = in_frames(&s, Some(Role::Text), "Frame field")
            .into_iter()
            .find(|(_, f)| *f == port_frame)
            .expect("the field of the other-port frame");
        let r = env
            .act(&s, vec![Step::SetText(s.ref_of(field), "héllo".into())])
            .await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        let seen = messages(&env, 2).await;
        assert_eq!(seen[1], format!("{port_host} input héllo"), "{seen}");
        // Typing and keys without a target go where the focus is: inside that frame.
        let r = env
            .act(
                &s,
                vec![
                    Step::TypeText(None, " wörld".into()),
                    Step::Keypress(
                        None,
                        vec![uidriver_core::KeyChord::parse("BackSpace").unwrap()],
                    ),
                ],
            )
            .await;
        assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
        let seen = messages(&env, 4).await;
        let n = seen.as_array().map_or(0, Vec::len);
        assert_eq!(
            seen[n - 1],
            format!("{port_host} input héllo wörl"),
            "{seen}"
        );
        env.eval("window.got = []; true").await;

        // A click by point lands inside each frame and is verified there (a fresh look: acting
        // scrolled the page).
        let refs = [
            (s.ref_of(port_button), &port_host),
            (s.ref_of(oop_button), &oop_host),
        ];
        let s = env.observe(Some(s.clone())).await;
        for (n, (r, host)) in refs.into_iter().enumerate() {
            let button = s.resolve(r).expect("the button keeps its ref");
            let at = s.snapshot.nodes[button].bounds.unwrap().center();
            let r = env.act(&s, vec![click_at(at)]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            let seen = messages(&env, 1 + n).await;
            assert_eq!(seen[n], format!("{host} clicked"), "{seen}");
        }

        // The frames' new text shows in a fresh look and reads back by range.
        let s2 = env.observe(Some(s.clone())).await;
        let texts = in_frames(&s2, Some(Role::Paragraph), "Frame text clicked");
        assert_eq!(texts.len(), 2, "both frames say clicked");
        let node = &s2.snapshot.nodes[texts[0].0];
        let slice = env
            .backend
            .read_text(&env.root, node, 0, 100, deadline())
            .await
            .expect("read_text in a frame");
        assert_eq!(slice.text, "Frame text clicked");

        // A region inside a frame is read again in the frame's world, with the same boxes.
        let frame_doc = s2.snapshot.nodes[texts[0].1].children[0];
        let region = env
            .backend
            .observe_region(
                &env.root,
                &s2,
                frame_doc,
                &uidriver_core::ObserveRequest::default(),
                deadline(),
            )
            .await
            .expect("observe a region in a frame");
        let again = region
            .nodes
            .iter()
            .find(|n| n.handle == node.handle)
            .expect("the paragraph is in the region");
        assert_eq!(again.bounds, node.bounds);

        // Waiting for a change sees one inside a cross-origin frame (the top document does
        // not change: without watching the frame the wait would run its full 8 s).
        let (later, _) = in_frames(&s2, Some(Role::Button), "Change later")
            .into_iter()
            .find(|(_, f)| s2.snapshot.nodes[*f].name.text() == Some("Other site"))
            .expect("the other-site frame's Change later");
        let r = env.act(&s2, vec![Step::Press(s2.ref_of(later))]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        let t = std::time::Instant::now();
        env.backend
            .wait_change(&env.root, deadline().cap(Duration::from_secs(8)))
            .await
            .expect("wait_change");
        assert!(
            t.elapsed() < Duration::from_secs(4),
            "woke after {:?}",
            t.elapsed()
        );
        let s3 = env.observe(Some(s2.clone())).await;
        assert_eq!(
            in_frames(&s3, Some(Role::Paragraph), "Frame text later").len(),
            1
        );

        // A drag that starts on an element of the out-of-process frame is the frame's: its
        // script sees the press, the moves and the release.
        env.eval("window.got = []; true").await;
        let (pad, _) = in_frames(&s3, None, "Drag pad")
            .into_iter()
            .find(|(_, f)| s3.snapshot.nodes[*f].name.text() == Some("Other site"))
            .expect("the other-site frame's drag pad");
        let (cx, cy) = s3.snapshot.nodes[pad].bounds.unwrap().center();
        let r = env
            .act(
                &s3,
                vec![Step::Drag {
                    path: vec![uidriver_core::action::Point {
                        x: f64::from(cx + 60),
                        y: f64::from(cy),
                    }],
                    from: Some(s3.ref_of(pad)),
                    button: uidriver_core::action::Button::Left,
                }],
            )
            .await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        let seen = messages(&env, 1).await;
        let msg = seen[0].as_str().unwrap_or_default().to_string();
        let moves: u32 = msg
            .strip_prefix(&format!("{oop_host} dragged "))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a drag message: {seen}"));
        assert!(moves >= 3, "{msg}");

        // The wheel over an element of the out-of-process frame scrolls that frame.
        let (end, _) = in_frames(&s3, Some(Role::Paragraph), "The end of the frame")
            .into_iter()
            .find(|(_, f)| s3.snapshot.nodes[*f].name.text() == Some("Other site"))
            .expect("the other-site frame's last paragraph");
        let frame_doc = s3.snapshot.nodes[end].parent.expect("the frame's document");
        let r = env
            .act(
                &s3,
                vec![Step::Scroll {
                    target: Some(uidriver_core::Target::Ref(s3.ref_of(frame_doc))),
                    dx: 0,
                    dy: 3,
                }],
            )
            .await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");

        // A frame that is removed takes its refs with it: stale, nothing sent.
        env.eval("document.getElementById('oop').remove(); true")
            .await;
        let oop_button2 = in_frames(&s2, Some(Role::Button), "Frame button")
            .into_iter()
            .find(|(_, f)| s2.snapshot.nodes[*f].name.text() == Some("Other site"))
            .expect("still in the old state")
            .0;
        let r = env
            .act(&s2, vec![Step::Press(s2.ref_of(oop_button2))])
            .await;
        let e = r[0].error.as_ref().expect("an error");
        assert_eq!(e.code, ErrorCode::StaleRef, "{r:#?}");
        assert_eq!(r[0].delivery.delivered, Delivery::NotDelivered);
        env.finish().await;
    });
}

const SPIN: &str = r#"<!doctype html><title>Spin</title><p>Busy frame</p>
<script>setTimeout(() => { for (;;) {} }, 200);</script>"#;

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn a_hung_cross_origin_frame_costs_part_of_the_deadline_not_the_page() {
    live(
        "a_hung_cross_origin_frame_costs_part_of_the_deadline_not_the_page",
        60,
        || async {
            let mut env = Env::start(&[("/outer.html", OUTER_X), ("/spin.html", SPIN)], None).await;
            env.goto("/outer.html").await;
            let js = format!(
            "new Promise(r => {{ const f = document.getElementById('oop'); f.onload = () => r(true); \
             f.src = 'http://localhost:{}/spin.html'; }})",
            env.server.port
        );
            env.eval(&js).await;
            // Let the frame's script start spinning.
            tokio::time::sleep(Duration::from_millis(600)).await;
            let t = std::time::Instant::now();
            let snap = env
                .backend
                .observe(
                    &env.root,
                    &uidriver_core::ObserveRequest::default(),
                    uidriver_core::Deadline::after(Duration::from_secs(4)),
                )
                .await
                .expect("the page is observed");
            assert!(
                t.elapsed() < Duration::from_secs(4),
                "took {:?}",
                t.elapsed()
            );
            assert!(!snap.complete);
            let frame = snap
                .nodes
                .iter()
                .find(|n| n.name.text() == Some("Other site"))
                .expect("the frame's node");
            let why = &frame.truncated.as_ref().expect("marked not read").reason;
            assert!(why.contains("could not be read"), "{why}");
            assert!(
                snap.nodes
                    .iter()
                    .any(|n| n.name.text() == Some("Outer page")),
                "the rest of the page is there"
            );
            env.finish().await;
        },
    );
}

const PIXELS: &str = r#"<!doctype html><title>Pixels</title>
<body style="margin: 0; background: white">
<div style="position: absolute; left: 50px; top: 60px; width: 40px; height: 40px; background: rgb(255, 0, 0)" aria-label="Red"></div>"#;

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn capture_shows_the_viewport_where_bounds_say() {
    live(
        "capture_shows_the_viewport_where_bounds_say",
        60,
        || async {
            let mut env = Env::start(&[("/pixels.html", PIXELS)], None).await;
            env.goto("/pixels.html").await;
            let s = env.observe(None).await;
            let red = s.snapshot.nodes[s.resolve(find(&s, None, "Red")).unwrap()]
                .bounds
                .unwrap();
            let img = env.backend.capture(&env.root, deadline()).await.unwrap();
            assert_eq!(img.rgb.len(), (img.width * img.height * 3) as usize);
            assert_eq!(
                (img.screen.x, img.screen.y),
                (0, 0),
                "headless: viewport pixels"
            );
            assert!(!img.maybe_occluded);
            let px = |x: i32, y: i32| {
                let i = ((y as u32 * img.width + x as u32) * 3) as usize;
                (img.rgb[i], img.rgb[i + 1], img.rgb[i + 2])
            };
            let (cx, cy) = red.center();
            assert_eq!(
                px(cx, cy),
                (255, 0, 0),
                "the node's box is red in the image"
            );
            assert_eq!(px(red.x + red.width + 5, cy), (255, 255, 255));
            env.finish().await;
        },
    );
}

const LABELS: &str = r#"<!doctype html><title>Labels</title>
<label for="plan">Plan</label> <select id="plan"><option>Basic</option><option>Pro</option></select>
<label>Email <input name="email"></label>
<label for="n">Name <a href="/help">(help)</a></label><input id="n">
<label for="q">Query</label><input id="q" aria-label="Search terms">"#;

/// Issue 11: a `<label>` that only names one control is folded into it (one line, not `label
/// "Plan"` then `combo-box "Plan"`); a label that holds more than text (a link) or names a
/// control with a name of its own stays, so nothing the page says is lost.
#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn a_label_that_only_names_its_control_is_folded_into_it() {
    live(
        "a_label_that_only_names_its_control_is_folded_into_it",
        90,
        || async {
            let mut env = Env::start(&[("/labels.html", LABELS)], None).await;
            env.goto("/labels.html").await;
            let s = env.observe(None).await;
            let nodes = &s.snapshot.nodes;
            let named = |role: Role, text: &str| {
                nodes
                    .iter()
                    .filter(|n| n.role == role && n.name.text().is_some_and(|t| t.trim() == text))
                    .count()
            };
            assert_eq!(named(Role::ComboBox, "Plan"), 1);
            assert_eq!(named(Role::Label, "Plan"), 0, "folded into the select");
            assert_eq!(
                named(Role::Label, "Email"),
                0,
                "the wrapping label gave way"
            );
            let email = find(&s, Some(Role::Text), "Email");
            assert!(s.resolve(email).is_ok());
            // Kept: a label with a link inside, and one naming a control that has its own name.
            assert!(nodes.iter().any(
                |n| n.role == Role::Label && n.name.text().is_some_and(|t| t.contains("Name"))
            ));
            assert_eq!(named(Role::Label, "Query"), 1);
            find(&s, Some(Role::Link), "(help)");
            env.finish().await;
        },
    );
}
