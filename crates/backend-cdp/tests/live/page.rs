//! Pages that change and pages that get in the way: content added after a click, an element
//! covered by an overlay, and content inside an iframe.

use std::time::Duration;

use uidriver_core::{Backend, Delivery, ErrorCode, Outcome, Role, Step};

use crate::support::{deadline, find, live, Env};

const DYNAMIC: &str = r#"<!doctype html><title>Dynamic</title>
<button id="more" onclick="setTimeout(() => { const li = document.createElement('li'); li.textContent = 'Item ' + (document.querySelectorAll('li').length + 1); document.querySelector('ul').append(li); }, 150)">Load more</button>
<ul><li>Item 1</li><li>Item 2</li></ul>"#;

#[test]
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
        assert_eq!(r[0].delivery.method, "cdp-dom");
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
        assert_eq!(r[1].delivery.method, "cdp-input");
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
        assert_eq!(r[0].delivery.method, "cdp-input");
        let out = env.eval("document.querySelector('iframe').contentDocument.getElementById('out').textContent").await;
        assert_eq!(out, "clicked");

        // A click by point (CSS viewport pixels: the state has no image) lands there too.
        env.eval("document.querySelector('iframe').contentDocument.getElementById('out').textContent = 'reset'").await;
        let (x, y) = bb.center();
        let r = env
            .act(
                &s,
                vec![Step::Click {
                    target: uidriver_core::Target::Point(uidriver_core::action::Point {
                        x: x as f64,
                        y: y as f64,
                    }),
                    button: uidriver_core::action::Button::Left,
                    count: 1,
                }],
            )
            .await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(r[0].grounding.method, "point");
        let out = env.eval("document.querySelector('iframe').contentDocument.getElementById('out').textContent").await;
        assert_eq!(out, "clicked");

        // A cross-origin frame (localhost is another site than 127.0.0.1, so Chromium puts it
        // in another process): its node is there, marked as not read, and the state says so.
        let cross = format!("http://localhost:{}/inner.html", env.server.port);
        let js = format!(
            "new Promise(r => {{ const f = document.createElement('iframe'); f.title = 'Cross frame'; \
             f.onload = () => r(true); f.src = {cross:?}; document.body.append(f); }})"
        );
        assert_eq!(env.eval(&js).await, true);
        let s = env.observe(None).await;
        let cross = s
            .resolve(find(&s, Some(Role::Document), "Cross frame"))
            .unwrap();
        let t = s.snapshot.nodes[cross]
            .truncated
            .as_ref()
            .expect("marked truncated");
        assert!(t.reason.contains("cross-origin"), "{t:?}");
        assert!(!s.snapshot.complete);
        assert!(
            s.snapshot.notes.iter().any(|n| n.contains("cross-origin")),
            "{:?}",
            s.snapshot.notes
        );
        env.finish().await;
    });
}

const PIXELS: &str = r#"<!doctype html><title>Pixels</title>
<body style="margin: 0; background: white">
<div style="position: absolute; left: 50px; top: 60px; width: 40px; height: 40px; background: rgb(255, 0, 0)" aria-label="Red"></div>"#;

#[test]
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
