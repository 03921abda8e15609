//! The other step kinds, each judged by an independent read of the page: keyboard chords,
//! expand/collapse, scroll, hover, focus, plus read_text and scoped re-observation.

use uidriver_core::action::Button;
use uidriver_core::{Backend, KeyChord, ObserveRequest, Outcome, Role, StateFlag, Step, Target};

use crate::support::{deadline, find, live, Env};

const PAGE: &str = r#"<!doctype html><title>Interact</title>
<style>
  #box { width: 200px; height: 80px; overflow: auto; border: 1px solid #999 }
  #hov:hover { outline: 3px solid red }
  body { height: 3000px }
</style>
<form method="post" action="/keys">
  <input id="first" name="first" aria-label="First">
  <input id="second" name="second" aria-label="Second">
  <button>Go</button>
</form>
<details><summary>More info</summary><p>Hidden details text</p></details>
<button id="menu" aria-expanded="false" onclick="this.setAttribute('aria-expanded', this.getAttribute('aria-expanded') === 'true' ? 'false' : 'true')">Menu</button>
<div id="box" role="region" aria-label="Scroller"><p style="height: 600px">Tall content</p></div>
<p><span id="hov" tabindex="0" aria-label="Hover me">hover target</span></p>
<p id="long">The quick brown fox jumps over the lazy dog.</p>
<p id="styled">😀 Plain <b>bold</b> <i>lean</i> <u><span>under</span></u> <s>gone</s> <span style="font-weight: 700">heavy</span> end</p>
<ul id="list"><li>One</li><li>Two</li><li>Three</li></ul>
<div id="pad" role="application" aria-label="Pad" style="width: 300px; height: 60px; background: #eee"></div>
<script>
  const pad = document.getElementById('pad');
  let start = null;
  pad.addEventListener('mousedown', (e) => { start = e.clientX; });
  document.addEventListener('mouseup', (e) => { if (start !== null) window.dragged = e.clientX - start; start = null; });
</script>"#;

fn chords(keys: &[&str]) -> Vec<KeyChord> {
    keys.iter().map(|k| KeyChord::parse(k).unwrap()).collect()
}

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn keys_expand_scroll_hover_focus_and_reads() {
    live("keys_expand_scroll_hover_focus_and_reads", 120, || async {
        let mut env = Env::start(&[("/interact.html", PAGE)], None).await;
        env.goto("/interact.html").await;
        let s = env.observe(None).await;
        let first = find(&s, Some(Role::Text), "First");
        let second = find(&s, Some(Role::Text), "Second");

        // shift+Tab moves focus backwards; typed keys land in the focused field.
        let r = env
            .act(
                &s,
                vec![
                    Step::Focus(second),
                    Step::Keypress(None, chords(&["shift+Tab", "h", "shift+i"])),
                ],
            )
            .await;
        assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
        assert_eq!(
            env.eval("[document.activeElement.id, first.value]").await,
            serde_json::json!(["first", "hI"])
        );
        // Return in a text field submits its form.
        let r = env
            .act(&s, vec![Step::Keypress(Some(first), chords(&["Return"]))])
            .await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        for _ in 0..100 {
            if !env.server.posts().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(env.server.posts()[0].body, "first=hI&second=");

        env.goto("/interact.html").await;
        let s = env.observe(None).await;
        let summary = find(&s, Some(Role::Button), "More info");
        let menu = find(&s, Some(Role::Button), "Menu");
        assert!(s.node(summary).unwrap().has_state(StateFlag::Collapsed));
        assert!(s.node(menu).unwrap().has_state(StateFlag::Collapsed));
        let r = env
            .act(
                &s,
                vec![
                    Step::Expand(summary),
                    Step::Expand(menu),
                    Step::Expand(menu),
                ],
            )
            .await;
        assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
        assert_eq!(
            r[2].delivery.delivered,
            uidriver_core::Delivery::NotDelivered,
            "already expanded: nothing sent"
        );
        assert_eq!(
            env.eval(
                "[document.querySelector('details').open, menu.getAttribute('aria-expanded')]"
            )
            .await,
            serde_json::json!([true, "true"])
        );
        let r = env.act(&s, vec![Step::Collapse(menu)]).await;
        assert_eq!(r[0].outcome, Outcome::Worked);
        assert_eq!(
            env.eval("menu.getAttribute('aria-expanded')").await,
            "false"
        );

        // Scroll an element, then the page.
        let scroller = find(&s, None, "Scroller");
        assert!(s
            .node(scroller)
            .unwrap()
            .caps
            .contains(uidriver_core::Capability::Scroll));
        let r = env
            .act(
                &s,
                vec![
                    Step::Scroll {
                        target: Some(Target::Ref(scroller)),
                        dx: 0,
                        dy: 2,
                    },
                    Step::Scroll {
                        target: None,
                        dx: 0,
                        dy: 3,
                    },
                ],
            )
            .await;
        assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
        let pos = env
            .eval("[document.getElementById('box').scrollTop, scrollY]")
            .await;
        assert!(
            pos[0].as_f64().unwrap() > 0.0 && pos[1].as_f64().unwrap() > 0.0,
            "{pos}"
        );

        // Hover and focus, each verified in the page.
        let hov = find(&s, None, "Hover me");
        let r = env
            .act(&s, vec![Step::Hover(Target::Ref(hov)), Step::Focus(hov)])
            .await;
        assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
        assert_eq!(
            env.eval("[hov.matches(':hover'), document.activeElement.id]")
                .await,
            serde_json::json!([true, "hov"])
        );

        // A right click reaches the element as a context menu event.
        let r = env
            .act(
                &s,
                vec![Step::Click {
                    target: Target::Ref(menu),
                    button: Button::Right,
                    count: 1,
                }],
            )
            .await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");

        // A drag along a path (viewport pixels: the state has no image), and a move to a point,
        // in a fresh state (the page scrolled since `s`).
        let s = env.observe(Some(s)).await;
        let pad = s.snapshot.nodes[s.resolve(find(&s, None, "Pad")).unwrap()]
            .bounds
            .unwrap();
        let (x0, y0) = ((pad.x + 10) as f64, (pad.y + pad.height / 2) as f64);
        let path = vec![
            uidriver_core::action::Point { x: x0, y: y0 },
            uidriver_core::action::Point {
                x: x0 + 190.0,
                y: y0,
            },
        ];
        let r = env
            .act(
                &s,
                vec![
                    Step::Drag {
                        path,
                        from: None,
                        button: Button::Left,
                    },
                    Step::MoveMouse(Target::Point(uidriver_core::action::Point { x: x0, y: y0 })),
                ],
            )
            .await;
        assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
        assert_eq!(env.eval("window.dragged").await, 190);
        assert_eq!(env.eval("pad.matches(':hover')").await, true);

        // read_text pages through an element's text.
        let long = find(&s, Some(Role::Paragraph), "quick brown fox");
        let node = s.node(long).unwrap().clone();
        let t = env
            .backend
            .read_text(&env.root, &node, 4, 15, deadline())
            .await
            .unwrap();
        assert_eq!((t.text.as_str(), t.total), ("quick brown", 44));

        // With its formatting, in characters (the emoji is one): bold by tag and by weight,
        // italic, an underline drawn by an ancestor, strikethrough; a page clips the runs.
        let styled = find(&s, Some(Role::Paragraph), "Plain bold");
        let node = s.node(styled).unwrap().clone();
        let t = env
            .backend
            .read_text(&env.root, &node, 0, 200, deadline())
            .await
            .unwrap();
        let at = |w: &str| {
            let b = t
                .text
                .find(w)
                .unwrap_or_else(|| panic!("{w} in {:?}", t.text));
            let s = t.text[..b].chars().count() as u32;
            (s, s + w.chars().count() as u32)
        };
        let runs: Vec<(u32, u32, Vec<String>)> = t
            .styles
            .iter()
            .map(|r| (r.start, r.end, r.style.clone()))
            .collect();
        let want = |w: &str, style: &str| (at(w).0, at(w).1, vec![style.to_string()]);
        assert_eq!(
            runs,
            vec![
                want("bold", "bold"),
                want("lean", "italic"),
                want("under", "underline"),
                want("gone", "strikethrough"),
                want("heavy", "bold"),
            ],
            "{:?}",
            t.text
        );
        let (b0, _) = at("bold");
        let part = env
            .backend
            .read_text(&env.root, &node, b0 + 2, b0 + 8, deadline())
            .await
            .unwrap();
        assert_eq!(part.styles.len(), 2, "{:?}", part.styles);
        assert_eq!((part.styles[0].start, part.styles[0].end), (b0 + 2, b0 + 4));

        // A scoped look at one element: index 0 is that element.
        let list = s.resolve(find(&s, Some(Role::ListItem), "Two")).unwrap();
        let ul = s.snapshot.nodes[list].parent.unwrap();
        let region = env
            .backend
            .observe_region(&env.root, &s, ul, &ObserveRequest::default(), deadline())
            .await
            .unwrap();
        region.check().unwrap();
        assert_eq!(region.nodes[0].handle, s.snapshot.nodes[ul].handle);
        assert_eq!(region.nodes.len(), s.subtree(ul).len());
        env.finish().await;
    });
}

/// ARIA widgets scripted the way component libraries do it: state in aria-* attributes, set by
/// click handlers; the page records what its own handlers chose.
const ARIA: &str = r#"<!doctype html><title>ARIA</title>
<div role="listbox" aria-label="Fruit" id="fruit">
  <div role="option" aria-selected="true">Apple</div>
  <div role="option" aria-selected="false">Banana</div>
  <div role="option" aria-selected="false" aria-disabled="true">Cherry</div>
</div>
<div role="combobox" aria-label="Size" aria-expanded="false" aria-controls="sizes" tabindex="0" id="size">Small</div>
<ul role="listbox" id="sizes" hidden>
  <li role="option" aria-selected="true">Small</li><li role="option" aria-selected="false">Large</li>
</ul>
<div role="slider" aria-label="Volume" tabindex="0" aria-valuenow="3" aria-valuemin="0" aria-valuemax="10" data-step="1">3</div>
<div role="slider" aria-label="Even" tabindex="0" aria-valuenow="4" aria-valuemin="0" aria-valuemax="10" data-step="2">4</div>
<div role="tablist" aria-label="Sections">
  <button role="tab" aria-selected="true">Intro</button><button role="tab" aria-selected="false">Details</button>
</div>
<script>
  window.chosen = [];
  const pick = (list, o) => {
    for (const x of list.querySelectorAll('[role=option],[role=tab]')) x.setAttribute('aria-selected', String(x === o));
    chosen.push(o.textContent);
  };
  for (const list of document.querySelectorAll('[role=listbox],[role=tablist]')) {
    list.addEventListener('click', (e) => {
      const o = e.target.closest('[role=option],[role=tab]');
      if (!o || o.getAttribute('aria-disabled') === 'true') return;
      pick(list, o);
      if (list.id === 'sizes') { size.textContent = o.textContent; sizes.hidden = true; size.setAttribute('aria-expanded', 'false'); }
    });
  }
  size.addEventListener('click', () => { sizes.hidden = false; size.setAttribute('aria-expanded', 'true'); });
  // The slider keyboard contract: arrows step, Home/End go to the ends.
  for (const sl of document.querySelectorAll('[role=slider]')) {
    sl.addEventListener('keydown', (e) => {
      const [v, lo, hi, st] = ['aria-valuenow', 'aria-valuemin', 'aria-valuemax', 'data-step'].map((a) => +sl.getAttribute(a));
      const next = { ArrowRight: v + st, ArrowUp: v + st, ArrowLeft: v - st, ArrowDown: v - st, Home: lo, End: hi }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      sl.setAttribute('aria-valuenow', String(Math.min(hi, Math.max(lo, next))));
      sl.textContent = sl.getAttribute('aria-valuenow');
    });
  }
</script>"#;

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn select_and_set_value_on_aria_widgets() {
    live("select_and_set_value_on_aria_widgets", 90, || async {
        let mut env = Env::start(&[("/aria.html", ARIA)], None).await;
        env.goto("/aria.html").await;
        let s = env.observe(None).await;
        let fruit = find(&s, Some(Role::List), "Fruit");
        let size = find(&s, None, "Size");
        let tabs = find(&s, None, "Sections");
        let select = |t, v: &str| Step::Select(t, v.to_string());

        // A listbox: the option is clicked and reads back selected.
        let r = env.act(&s, vec![select(fruit, "banana")]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(r[0].delivery.method.as_str(), "cdp-input");
        // A combobox whose list is hidden: opened by a click, then the option clicked.
        let r = env.act(&s, vec![select(size, "Large")]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        // A tab list.
        let r = env.act(&s, vec![select(tabs, "Details")]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(
            env.eval("[chosen, size.textContent]").await,
            serde_json::json!([["Banana", "Large", "Details"], "Large"])
        );

        // Already selected: nothing is sent.
        let r = env.act(&s, vec![select(fruit, "Banana")]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(
            r[0].delivery.delivered,
            uidriver_core::Delivery::NotDelivered
        );
        // A disabled option and a missing one are refused, nothing sent.
        for (v, code) in [
            ("Cherry", uidriver_core::ErrorCode::NotSupported),
            ("Durian", uidriver_core::ErrorCode::InvalidArgs),
        ] {
            let r = env.act(&s, vec![select(fruit, v)]).await;
            assert_eq!(r[0].error.as_ref().map(|e| e.code), Some(code), "{r:#?}");
            if v == "Durian" {
                let listed = &r[0].error.as_ref().unwrap().message;
                assert!(
                    listed.contains("\"Apple\", \"Banana\", \"Cherry\""),
                    "{listed}"
                );
            }
            assert_eq!(
                r[0].delivery.delivered,
                uidriver_core::Delivery::NotDelivered
            );
        }
        assert_eq!(env.eval("chosen.length").await, 3);

        // An ARIA slider is moved with its keys and read back; the ends take one key.
        let volume = find(&s, None, "Volume");
        let value_of = "Array.from(document.querySelectorAll('[role=slider]')).map((e) => e.getAttribute('aria-valuenow'))";
        let r = env.act(&s, vec![Step::SetValue(volume, 7.0)]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(
            r[0].delivery.detail.as_deref(),
            Some(&*format!("4 key(s) on the focused {volume}"))
        );
        let r = env.act(&s, vec![Step::SetValue(volume, 0.0)]).await;
        assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
        assert_eq!(env.eval(value_of).await, serde_json::json!(["0", "4"]));
        // Out of range: refused before any key.
        let r = env.act(&s, vec![Step::SetValue(volume, 11.0)]).await;
        assert_eq!(
            r[0].error.as_ref().map(|e| e.code),
            Some(uidriver_core::ErrorCode::InvalidArgs)
        );
        // A value between two steps is not reachable: didnt, with where it stopped.
        let even = find(&s, None, "Even");
        let r = env.act(&s, vec![Step::SetValue(even, 7.0)]).await;
        assert_eq!(r[0].outcome, Outcome::Didnt, "{r:#?}");
        let detail = r[0].verification.detail.clone().unwrap_or_default();
        assert!(detail.contains("the value is 8"), "{detail}");
        assert_eq!(env.eval(value_of).await, serde_json::json!(["0", "8"]));
        env.finish().await;
    });
}
