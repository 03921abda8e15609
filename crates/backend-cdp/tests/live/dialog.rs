//! JavaScript dialogs: the click that opens one ends at once (delivered, the dialog's opening
//! as its evidence), the dialog is a root of its own beside the page, the page answers
//! observations and evaluations at once while it is open, and pressing OK or Cancel (with a
//! prompt's text) reaches the page's script: judged by what the page itself recorded.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_core::{
    Backend, Delivery, ErrorCode, ObserveRequest, Outcome, Role, RootInfo, RootKind, State, Step,
};

use crate::support::{deadline, find, live, Env};

const PAGE: &str = r#"<!doctype html><title>Dialogs</title>
<button onclick="alert('Saved'); record.push('after alert')">Alert</button>
<button onclick="record.push(confirm('Delete the file?'))">Confirm</button>
<button onclick="record.push(prompt('Your name?', 'Ada'))">Prompt</button>
<script>window.record = [];</script>"#;

/// The dialog roots the backend lists now.
async fn dialogs(env: &Env) -> Vec<RootInfo> {
    env.backend
        .list_roots(deadline())
        .await
        .expect("list")
        .into_iter()
        .filter(|r| r.kind == RootKind::Dialog)
        .collect()
}

/// Presses the button named `label` of the page; the press must end quickly, delivered, with
/// the dialog's opening as its evidence, and the dialog must then be listed as a root.
async fn open(env: &mut Env, label: &str, kind: &str, message: &str) -> RootInfo {
    let s = env.observe(None).await;
    let b = find(&s, Some(Role::Button), label);
    let t = Instant::now();
    let r = env.act(&s, vec![Step::Press(b)]).await;
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
    assert_eq!(r[0].delivery.delivered, Delivery::Delivered);
    let detail = r[0].verification.detail.clone().unwrap_or_default();
    // The dialog's message is its root's title (below), not repeated in the evidence.
    assert!(
        detail.contains(&format!("{kind} dialog opened")),
        "{detail}"
    );
    let listed = dialogs(env).await;
    assert_eq!(listed.len(), 1, "{listed:#?}");
    let d = listed[0].clone();
    assert_eq!(d.title, message);
    assert!(d.modal);
    assert_eq!(d.resource, env.root.resource);
    assert_eq!(d.backend, "cdp");
    d
}

/// Acts on the dialog root and checks the step worked and the dialog is gone.
async fn answer(env: &mut Env, d: &RootInfo, state: &State, steps: Vec<Step>) {
    let r = env.act_on(d, state, steps).await;
    assert!(r.iter().all(|r| r.outcome == Outcome::Worked), "{r:#?}");
    let last = r.last().unwrap();
    assert_eq!(
        last.verification.method,
        uidriver_core::VerificationMethod::Event,
        "{last:#?}"
    );
    assert!(dialogs(env).await.is_empty(), "the dialog is still listed");
}

fn button(s: &State, name: &str) -> uidriver_core::ElementRef {
    find(s, Some(Role::Button), name)
}

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn dialogs_are_roots_answered_by_press_and_text() {
    live(
        "dialogs_are_roots_answered_by_press_and_text",
        120,
        || async {
            let mut env = Env::start(&[("/dialogs.html", PAGE)], None).await;
            env.goto("/dialogs.html").await;

            // alert: OK only.
            let d = open(&mut env, "Alert", "alert", "Saved").await;
            // While it is open the page answers at once: its observation shows the dialog, an
            // evaluation is refused with the reason.
            let t = Instant::now();
            let page = tokio::time::timeout(
                Duration::from_secs(2),
                env.backend
                    .observe(&env.root, &ObserveRequest::default(), deadline()),
            )
            .await
            .expect("the page's observation answered within 2 s")
            .expect("observe the page");
            let shown = page.nodes.iter().find(|n| n.role == Role::Dialog).unwrap();
            assert_eq!(shown.name.text(), Some("Saved"));
            assert!(page
                .notes
                .iter()
                .any(|n| n.contains("answer an alert dialog")));
            let ev = env
                .backend
                .browser()
                .unwrap()
                .evaluate(&env.root, "1 + 1", deadline())
                .await
                .unwrap_err();
            assert_eq!(ev.code, ErrorCode::NotSupported, "{ev:?}");
            assert!(ev.message.contains("an alert dialog"), "{ev:?}");
            assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
            let s = env.observe_root(&d, None).await;
            assert_eq!(s.snapshot.nodes[0].role, Role::Dialog);
            let roles: Vec<Role> = s.snapshot.nodes.iter().map(|n| n.role).collect();
            assert_eq!(
                roles,
                [Role::Dialog, Role::Label, Role::Button],
                "alert: OK only"
            );
            let ok = button(&s, "OK");
            answer(&mut env, &d, &s, vec![Step::Press(ok)]).await;
            // The answered dialog's root is closed: nothing more can be sent to it.
            let lock = uidriver_core::InputLock::new();
            let req = uidriver_core::ActRequest {
                root: &d,
                state: &s,
                steps: &[Step::Press(ok)],
                headless: true,
                input: &lock,
                expect_follows: false,
                defer_settle: false,
            };
            let gone = env.backend.act(req, deadline()).await.unwrap_err();
            assert_eq!(gone.code, ErrorCode::TargetClosed);

            // confirm: accepted, then dismissed from the page's own observation.
            let d = open(&mut env, "Confirm", "confirm", "Delete the file?").await;
            let s = env.observe_root(&d, None).await;
            assert!(s
                .snapshot
                .nodes
                .iter()
                .any(|n| n.name.text() == Some("Cancel")));
            answer(&mut env, &d, &s, vec![Step::Press(button(&s, "OK"))]).await;
            open(&mut env, "Confirm", "confirm", "Delete the file?").await;
            let p = env.observe(None).await;
            let r = env.act(&p, vec![Step::Press(button(&p, "Cancel"))]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            assert!(dialogs(&env).await.is_empty());
            // Return on the focused button opens it too; Escape answers Cancel.
            let p = env.observe(None).await;
            let keys = |k: &str| vec![uidriver_core::KeyChord::parse(k).unwrap()];
            let confirm = button(&p, "Confirm");
            let r = env
                .act(&p, vec![Step::Keypress(Some(confirm), keys("Return"))])
                .await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            let detail = r[0].verification.detail.clone().unwrap_or_default();
            assert!(detail.contains("a confirm dialog opened"), "{detail}");
            let d = dialogs(&env).await.pop().expect("a dialog root");
            let s = env.observe_root(&d, None).await;
            answer(&mut env, &d, &s, vec![Step::Keypress(None, keys("Escape"))]).await;

            // prompt: the field holds the default text; setText then OK; Cancel; typeText then OK.
            let d = open(&mut env, "Prompt", "prompt", "Your name?").await;
            let s = env.observe_root(&d, None).await;
            let field = find(&s, Some(Role::Text), "Your name?");
            assert_eq!(
                s.node(field).unwrap().value.known().map(String::as_str),
                Some("Ada")
            );
            let steps = vec![
                Step::SetText(field, "Grace Hopper".into()),
                Step::Press(button(&s, "OK")),
            ];
            answer(&mut env, &d, &s, steps).await;
            let d = open(&mut env, "Prompt", "prompt", "Your name?").await;
            let s = env.observe_root(&d, None).await;
            answer(&mut env, &d, &s, vec![Step::Press(button(&s, "Cancel"))]).await;
            let d = open(&mut env, "Prompt", "prompt", "Your name?").await;
            let s: Arc<State> = env.observe_root(&d, None).await;
            let field = find(&s, Some(Role::Text), "Your name?");
            let steps = vec![
                Step::TypeText(Some(field), " Lovelace".into()),
                Step::Press(button(&s, "OK")),
            ];
            answer(&mut env, &d, &s, steps).await;

            // The page's own record of what each dialog returned; and it runs scripts again.
            assert_eq!(
                env.eval("record").await,
                json!([
                    "after alert",
                    true,
                    false,
                    false,
                    "Grace Hopper",
                    null,
                    "Ada Lovelace"
                ])
            );
            let after = env.observe(None).await;
            find(&after, Some(Role::Button), "Prompt");
            env.finish().await;
        },
    );
}

const ORDER: &str = r#"<!doctype html><title>Order</title>
<button onclick="if (confirm('Place the order?')) setTimeout(() => { location.href = '/placed.html'; }, 20)">Place order</button>"#;
const PLACED: &str = "<!doctype html><title>Order placed</title><h1>Order placed</h1>";

/// A page whose script goes on to another page once its `confirm()` is answered OK: the act
/// that answers waits for that navigation (`page/navigation.rs`), so the very next look, taken
/// at once, is the new page rather than the one left.
#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn a_dialog_answer_that_submits_a_form_shows_the_next_page() {
    live(
        "a_dialog_answer_that_submits_a_form_shows_the_next_page",
        120,
        || async {
            let mut env =
                Env::start(&[("/order.html", ORDER), ("/placed.html", PLACED)], None).await;
            for _ in 0..3 {
                env.goto("/order.html").await;
                let d = open(&mut env, "Place order", "confirm", "Place the order?").await;
                let s = env.observe_root(&d, None).await;
                let r = env
                    .act_on(&d, &s, vec![Step::Press(button(&s, "OK"))])
                    .await;
                assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
                let after = env.observe(None).await;
                assert_eq!(
                    after.snapshot.nodes[0].name.text(),
                    Some("Order placed"),
                    "the look right after the answer: {:#?}",
                    after.snapshot.nodes.first()
                );
            }
            env.finish().await;
        },
    );
}

const LEAVE: &str = r#"<!doctype html><title>Editor</title>
<button onclick="document.title = 'Touched'">Touch</button>
<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });</script>"#;

/// Leaving a page whose `beforeunload` handler objects: the navigation ends at once naming
/// the dialog; Cancel keeps the page, Leave lets the navigation go on.
#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn beforeunload_dialog_keeps_or_leaves_the_page() {
    live(
        "beforeunload_dialog_keeps_or_leaves_the_page",
        120,
        || async {
            let mut env =
                Env::start(&[("/leave.html", LEAVE), ("/dialogs.html", PAGE)], None).await;
            env.goto("/leave.html").await;
            for leave in [false, true] {
                // The handler only objects after the user touched the page.
                let s = env.observe(None).await;
                let r = env.act(&s, vec![Step::Press(button(&s, "Touch"))]).await;
                assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
                let t = Instant::now();
                let url = uidriver_core::Navigation::Url(env.server.url("/dialogs.html"));
                let e = env
                    .backend
                    .browser()
                    .unwrap()
                    .navigate(&env.root, url, deadline())
                    .await
                    .unwrap_err();
                assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
                assert_eq!(e.code, ErrorCode::NotSupported, "{e:?}");
                assert!(e.message.contains("a beforeunload dialog opened"), "{e:?}");
                assert_eq!(e.delivery, Delivery::Delivered);
                let listed = dialogs(&env).await;
                assert_eq!(listed.len(), 1, "{listed:#?}");
                assert!(listed[0].title.starts_with("Leave site?"), "{listed:#?}");
                let s = env.observe_root(&listed[0], None).await;
                let b = button(&s, if leave { "Leave" } else { "Cancel" });
                answer(&mut env, &listed[0], &s, vec![Step::Press(b)]).await;
                let want = if leave {
                    "/dialogs.html"
                } else {
                    "/leave.html"
                };
                let mut at = Value::Null;
                for _ in 0..50 {
                    at = env.eval("location.pathname").await;
                    if at == want {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                assert_eq!(at, want);
            }
            env.finish().await;
        },
    );
}

const OPENER: &str = r#"<!doctype html><title>Opener</title>
<button onclick="window.open('/alerting.html')">Open</button>"#;
// The delay lets the opener's click be verified first: the popup shares the opener's renderer,
// whose main thread its dialog blocks too (a limitation: the opener's commands then wait).
const ALERTING: &str = r#"<!doctype html><title>Alerting</title>
<script>setTimeout(() => alert('Popup says hi'), 500)</script>"#;

/// A popup that opens a dialog as it starts (before anyone asked for the page) has it
/// listed, and listing does not wait out its deadline on the held renderer.
#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn a_popup_dialog_opened_as_it_starts_is_listed() {
    live(
        "a_popup_dialog_opened_as_it_starts_is_listed",
        60,
        || async {
            let mut env = Env::start(
                &[("/opener.html", OPENER), ("/alerting.html", ALERTING)],
                None,
            )
            .await;
            env.goto("/opener.html").await;
            let s = env.observe(None).await;
            let r = env.act(&s, vec![Step::Press(button(&s, "Open"))]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            let mut listed = Vec::new();
            for _ in 0..30 {
                tokio::time::sleep(Duration::from_millis(200)).await;
                let t = Instant::now();
                listed = dialogs(&env).await;
                // The opener's look is capped at 2 s while its renderer waits in the popup's dialog.
                assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
                if !listed.is_empty() {
                    break;
                }
            }
            assert_eq!(listed.len(), 1, "{listed:#?}");
            assert_eq!(listed[0].title, "Popup says hi");
            assert_ne!(
                listed[0].resource, env.root.resource,
                "the popup's, not the opener's"
            );
            // The opener shares the popup's renderer: its evaluation ends, naming the dialog.
            let t = Instant::now();
            let e = env
                .backend
                .browser()
                .unwrap()
                .evaluate(&env.root, "1 + 1", deadline())
                .await
                .unwrap_err();
            assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
            assert_eq!(e.code, ErrorCode::NotSupported, "{e:?}");
            assert!(e.message.contains("dialog of another page"), "{e:?}");
            let s = env.observe_root(&listed[0], None).await;
            answer(
                &mut env,
                &listed[0],
                &s,
                vec![Step::Press(button(&s, "OK"))],
            )
            .await;
            env.finish().await;
        },
    );
}
