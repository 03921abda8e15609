//! Tabs and popups (issue 16): a `target=_blank` link and a `window.open` popup are listed as
//! page roots as soon as the press that opened them returns, with their loaded title, and
//! their content reads; a page asked to close (`Page.close`) is gone from the listing; one
//! with a `beforeunload` handler stays behind its "leave site?" dialog; a new tab opens by
//! URL; a launch with a size gets that viewport, measured by the page itself.

use std::time::{Duration, Instant};

use uidriver_core::{
    Backend, ErrorCode, LaunchRequest, ObserveRequest, Outcome, Role, RootInfo, RootKind, Step,
};

use crate::support::{deadline, find, live, Env};

const OPENER: &str = r#"<!doctype html><title>Opener</title>
<a href="/tab.html" target="_blank">Open tab</a>
<button onclick="window.open('/popup.html', 'pop', 'width=500,height=400')">Open popup</button>"#;
const TAB: &str = "<!doctype html><title>Tab page</title><p>Body of the tab</p>";
const POPUP: &str = "<!doctype html><title>Popup page</title><p>Body of the popup</p>";
const GUARDED: &str = r#"<!doctype html><title>Unsaved form</title>
<button onclick="this.textContent = 'Touched'">Touch</button>
<script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; });</script>"#;

async fn pages(env: &Env) -> Vec<RootInfo> {
    env.backend.list_roots(deadline()).await.expect("list")
}

/// Presses the control named `label` of the opener and returns the page root that is listed
/// right after the press and was not before it.
async fn open_by(env: &mut Env, role: Role, label: &str) -> RootInfo {
    let before = pages(env).await;
    let s = env.observe(None).await;
    let r = env
        .act(&s, vec![Step::Press(find(&s, Some(role), label))])
        .await;
    assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
    let new: Vec<RootInfo> = pages(env)
        .await
        .into_iter()
        .filter(|p| !before.iter().any(|b| b.key == p.key))
        .collect();
    assert_eq!(new.len(), 1, "one new page right after the press: {new:#?}");
    assert_eq!(new[0].kind, RootKind::BrowserPage);
    new[0].clone()
}

/// Whether the page's observation has an element named `text`.
async fn reads(env: &Env, root: &RootInfo, text: &str) -> bool {
    let snap = env
        .backend
        .observe(root, &ObserveRequest::default(), deadline())
        .await
        .expect("observe");
    snap.nodes.iter().any(|n| n.name.text() == Some(text))
}

/// Waits up to 5 s for a root to leave the listing.
async fn gone(env: &Env, key: &str) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5) {
        if !pages(env).await.iter().any(|p| p.key == key) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn popups_and_tabs_are_roots_that_read_and_close() {
    live(
        "popups_and_tabs_are_roots_that_read_and_close",
        120,
        || async {
            let mut env = Env::start(
                &[
                    ("/opener.html", OPENER),
                    ("/tab.html", TAB),
                    ("/popup.html", POPUP),
                    ("/guarded.html", GUARDED),
                ],
                None,
            )
            .await;
            env.goto("/opener.html").await;

            let tab = open_by(&mut env, Role::Link, "Open tab").await;
            assert_eq!(tab.title, "Tab page", "loaded before the press returned");
            assert!(reads(&env, &tab, "Body of the tab").await);
            let popup = open_by(&mut env, Role::Button, "Open popup").await;
            assert_eq!(popup.title, "Popup page");
            assert!(reads(&env, &popup, "Body of the popup").await);
            assert_eq!(popup.pid, env.root.pid, "a root of the same browser");

            for p in [&tab, &popup] {
                env.backend.close_root(p, deadline()).await.expect("close");
                assert!(gone(&env, &p.key).await, "{} still listed", p.title);
            }
            let e = env
                .backend
                .observe(&tab, &ObserveRequest::default(), deadline())
                .await
                .unwrap_err();
            assert!(
                matches!(e.code, ErrorCode::TargetClosed | ErrorCode::RootNotFound),
                "{e:?}"
            );
            assert!(reads(&env, &env.root, "Open tab").await, "the opener lives");

            // A new tab by URL, loaded when it is returned.
            let url = env.server.url("/guarded.html");
            let guarded = env
                .backend
                .browser()
                .unwrap()
                .new_page(Some(&env.root), &url, deadline())
                .await
                .expect("new tab");
            assert_eq!(guarded.title, "Unsaved form");
            assert_eq!(pages(&env).await.len(), 2);
            // Touched (a user gesture), its beforeunload handler keeps it open behind a dialog.
            let s = env.observe_root(&guarded, None).await;
            let r = env
                .act_on(
                    &guarded,
                    &s,
                    vec![Step::Press(find(&s, Some(Role::Button), "Touch"))],
                )
                .await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            env.backend
                .close_root(&guarded, deadline())
                .await
                .expect("close");
            let t = Instant::now();
            let dialog = loop {
                let d = pages(&env)
                    .await
                    .into_iter()
                    .find(|r| r.kind == RootKind::Dialog);
                if let Some(d) = d {
                    break d;
                }
                assert!(t.elapsed() < Duration::from_secs(5), "no leave-site dialog");
                tokio::time::sleep(Duration::from_millis(100)).await;
            };
            assert!(
                pages(&env).await.iter().any(|p| p.key == guarded.key),
                "still open"
            );
            let e = env
                .backend
                .close_root(&dialog, deadline())
                .await
                .unwrap_err();
            assert_eq!(
                e.code,
                ErrorCode::InvalidArgs,
                "a dialog is answered: {e:?}"
            );
            let ds = env.observe_root(&dialog, None).await;
            assert!(dialog.title.starts_with("Leave site?"), "{dialog:#?}");
            let leave = find(&ds, Some(Role::Button), "Leave");
            let r = env.act_on(&dialog, &ds, vec![Step::Press(leave)]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            assert!(gone(&env, &guarded.key).await, "closed after Leave");
            env.finish().await;
        },
    );
}

#[test]
#[ignore = "live: starts headless Chromium; scripts/test.sh runs it"]
fn a_launch_with_a_size_gets_that_viewport() {
    live("a_launch_with_a_size_gets_that_viewport", 60, || async {
        let env = Env::start(&[("/a.html", "<!doctype html><title>A</title>")], None).await;
        let b = env.backend.browser().unwrap();
        let roots = b
            .launch(
                LaunchRequest {
                    url: Some(env.server.url("/a.html")),
                    headless: true,
                    endpoint: None,
                    size: Some((800, 600)),
                    ..LaunchRequest::default()
                },
                deadline(),
            )
            .await
            .expect("launch");
        let seen = b
            .evaluate(&roots[0], "[innerWidth, innerHeight]", deadline())
            .await
            .expect("evaluate");
        assert_eq!(seen, serde_json::json!([800, 600]));
        // The default is not that size (so the size is what made it).
        assert_ne!(env.eval("[innerWidth, innerHeight]").await, seen);
        env.finish().await;
    });
}
