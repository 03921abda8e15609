//! One test per bug fixed in the Linux backend, named for what must stay true, with where it
//! was found. A new fix adds its test here (live: the bugs are in how real toolkits answer).

use uidriver_core::{Backend, ObserveRequest, Role};

use crate::support::*;

/// Found in issue 11 (a 400-section page): Chromium answers `Action.GetActions` with empty
/// names (the call gives localized names), so its buttons offered no `press` and a press fell
/// back to a click at a point scrolled off screen. Names come from `GetName(i)`.
#[test]
fn chromium_buttons_list_their_action_names() {
    live_test(
        "chromium_buttons_list_their_action_names",
        180,
        &["/usr/lib/chromium/chromium"],
        |tracker| async move {
            let sb = tracker.start();
            let tmp = sb.state_dir().join("chromium-regression");
            std::fs::create_dir_all(&tmp).expect("tmp");
            let args = chromium_args(&tmp);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let pid = launch(&sb, &args);
            let linux = backend(&sb).await;
            let roots = roots_of(&linux, pid, |r| r.title.contains("Test Page")).await;
            let root = roots
                .iter()
                .find(|r| r.has_tree)
                .expect("the page's window");
            let mut button = None;
            for _ in 0..40 {
                let s = linux
                    .observe(root, &ObserveRequest::default(), secs(10))
                    .await
                    .expect("observe");
                button = s
                    .nodes
                    .into_iter()
                    .find(|n| n.role == Role::Button && n.name.text() == Some("Click me"));
                if button.is_some() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
            let button = button.expect("the page's button");
            assert!(
                button.actions.iter().any(|a| a == "press"),
                "actions: {:?}",
                button.actions
            );
        },
    );
}

/// Found in issue 12 (menus by path): mousepad pads its menu items' names with blanks
/// (`"Select All      "`), which then stood in outlines, searches and menu paths. Names are
/// trimmed for every toolkit.
#[test]
fn names_carry_no_surrounding_blanks() {
    live_test(
        "names_carry_no_surrounding_blanks",
        180,
        &["mousepad"],
        |tracker| async move {
            let sb = tracker.start();
            let pid = launch(&sb, &["mousepad"]);
            let linux = backend(&sb).await;
            let roots = roots_of(&linux, pid, |r| r.title.contains("Mousepad")).await;
            let root = roots
                .iter()
                .find(|r| r.has_tree)
                .expect("mousepad's window");
            let s = linux
                .observe(root, &ObserveRequest::default(), secs(10))
                .await
                .expect("observe");
            let names: Vec<&str> = s.nodes.iter().filter_map(|n| n.name.text()).collect();
            assert!(names.contains(&"Edit"), "{names:?}");
            let padded: Vec<&&str> = names.iter().filter(|n| n.trim() != **n).collect();
            assert!(
                padded.is_empty(),
                "names with blanks around them: {padded:?}"
            );
        },
    );
}
