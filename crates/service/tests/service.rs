//! Contract tests of the service on the in-memory backend: the tool loop, states and refs,
//! lanes and epochs, diffs, folding, search, and the error catalogue. Live backends are tested
//! in their own crates and in the binary's live tests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uidriver_core::testing::MemoryBackend;
use uidriver_core::{Backend, ErrorCode};
use uidriver_service::{FileAccess, Service, ServiceConfig, ToolResult};

fn service(backend: Arc<MemoryBackend>) -> Service {
    Service::new(
        vec![backend as Arc<dyn Backend>],
        vec![],
        ServiceConfig::default().with_files(FileAccess::unrestricted("a test of other rules")),
    )
}

async fn call(svc: &Service, tool: &str, args: Value) -> ToolResult {
    svc.call(tool, args).await
}

fn code(r: &ToolResult) -> &str {
    r.structured["error"]["code"].as_str().unwrap_or("")
}

async fn root_of(svc: &Service, app: &str) -> String {
    let r = call(svc, "find_roots", json!({ "app": app })).await;
    assert!(!r.is_error, "{}", r.text);
    r.structured["roots"][0]["ref"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn observe(svc: &Service, root: &str) -> ToolResult {
    let r = call(
        svc,
        "observe_ui",
        json!({ "root": root, "mode": "semantic" }),
    )
    .await;
    assert!(!r.is_error, "{}", r.text);
    r
}

async fn find(svc: &Service, state: &str, text: &str) -> String {
    let r = call(svc, "search_ui", json!({ "stateId": state, "text": text })).await;
    assert!(!r.is_error, "{}", r.text);
    r.structured["matches"][0]["ref"]
        .as_str()
        .unwrap_or_else(|| panic!("no match for {text}: {}", r.text))
        .to_string()
}

fn sid(r: &ToolResult) -> String {
    r.structured["stateId"].as_str().unwrap().to_string()
}

mod tool_loop {
    use super::*;

    /// Input that reached an app which then does not answer the look after the steps (busy
    /// saving, say): the act keeps its steps' reports and says why it has no successor, rather
    /// than failing whole; the root is still there, and a later look sees it.
    #[tokio::test]
    async fn an_act_whose_app_does_not_answer_the_look_after_keeps_its_steps() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = Service::new(
            vec![mem.clone() as Arc<dyn Backend>],
            vec![],
            ServiceConfig {
                observe_timeout: Duration::from_millis(200),
                ..ServiceConfig::default()
                    .with_files(FileAccess::unrestricted("a test of other rules"))
            },
        );
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "increment").await;
        mem.set_observe_delay(Duration::from_millis(600));
        let act = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
        mem.set_observe_delay(Duration::ZERO);
        assert!(!act.is_error, "{}", act.text);
        assert_eq!(act.structured["outcome"], "worked", "{}", act.text);
        assert_eq!(act.structured["steps"][0]["outcome"], "worked");
        assert!(act.structured["stateId"].is_null(), "{}", act.text);
        assert_eq!(
            act.structured["successorError"]["code"], "app_unresponsive",
            "{}",
            act.text
        );
        assert!(act.structured.get("targetClosed").is_none(), "{}", act.text);
        assert!(
            act.text.starts_with(
                "worked · no successor: the app did not answer the look after the steps\n"
            ),
            "{}",
            act.text
        );
        assert!(act.text.contains("look after the steps: "), "{}", act.text);
        assert_eq!(mem.deliveries.lock().unwrap().len(), 1);
        // The app answers again: a look sees what the press did.
        let again = observe(&svc, &root).await;
        assert!(again.text.contains("Count: 1"), "{}", again.text);
    }

    #[tokio::test]
    async fn find_observe_search_inspect_act_and_refs_stay_stable() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let obs = observe(&svc, &root).await;
        assert!(obs.text.contains("\"Increment\""), "{}", obs.text);
        assert!(obs.text.starts_with("state s"));
        let s1 = sid(&obs);
        let inc = find(&svc, &s1, "increment").await;
        let label = find(&svc, &s1, "Count:").await;
        let ins = call(&svc, "inspect_ui", json!({ "stateId": s1, "ref": inc })).await;
        assert_eq!(ins.structured["node"]["role"], "button");
        assert!(ins.structured["node"]["capabilities"]
            .as_array()
            .unwrap()
            .contains(&json!("press")));

        let act = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
        assert!(!act.is_error, "{}", act.text);
        assert_eq!(act.structured["outcome"], "worked");
        let s2 = act.structured["stateId"].as_str().unwrap().to_string();
        assert_ne!(s1, s2);
        // The diff names the label by its old ref, updated.
        assert!(
            act.text.contains(&format!("~ {label} label \"Count: 1\"")),
            "{}",
            act.text
        );
        // Unchanged controls keep their refs in the successor.
        assert_eq!(find(&svc, &s2, "increment").await, inc);
        assert_eq!(find(&svc, &s2, "Count:").await, label);
        // Every step's outcome is in the text the model reads.
        assert!(act.text.contains("1. press"), "{}", act.text);
        assert!(act.text.contains("→ worked"), "{}", act.text);
        assert_eq!(
            act.structured["steps"][0]["delivery"]["delivered"],
            "delivered"
        );
    }

    #[tokio::test]
    async fn expect_postcondition_verdicts() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "Increment").await;
        let r = call(&svc, "act_ui", json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }], "expect": { "text": "Count: 1" } })).await;
        assert_eq!(r.structured["expect"]["verdict"], "verified", "{}", r.text);
        let s2 = r.structured["stateId"].as_str().unwrap().to_string();
        let r = call(&svc, "act_ui", json!({ "stateId": s2, "actions": [{ "action": "press", "ref": inc }], "expect": { "text": "Increment" } })).await;
        assert_eq!(
            r.structured["expect"]["verdict"], "preexisting",
            "{}",
            r.text
        );
        let s3 = r.structured["stateId"].as_str().unwrap().to_string();
        let r = call(&svc, "act_ui", json!({ "stateId": s3, "actions": [{ "action": "press", "ref": inc }], "expect": { "text": "Count: 99", "timeoutMs": 300 } })).await;
        assert_eq!(r.structured["expect"]["verdict"], "failed");
        assert_eq!(r.structured["outcome"], "didnt");
        assert_eq!(code(&r), "postcondition_failed");
        assert!(r.is_error);
        assert_eq!(r.structured["error"]["delivery"], "delivered");
    }

    /// Keys whose effect could not be read do not stop the keys after them, and `expect` is
    /// checked after an `unknown` step: a verified `expect` makes the batch `worked`.
    #[tokio::test]
    async fn unread_keys_go_on_and_a_verified_expect_makes_the_batch_worked() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "Increment").await;
        let steps = json!([
            { "action": "press", "ref": inc },
            { "action": "keypress", "keys": "ctrl+a" },
            { "action": "keypress", "keys": "Return" }
        ]);
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": steps, "expect": { "text": "Count: 1" } }),
        )
        .await;
        assert_eq!(
            r.structured["steps"].as_array().unwrap().len(),
            3,
            "{}",
            r.text
        );
        assert_eq!(r.structured["steps"][1]["outcome"], "unknown", "{}", r.text);
        assert_eq!(r.structured["expect"]["verdict"], "verified", "{}", r.text);
        assert_eq!(r.structured["outcome"], "worked", "{}", r.text);
        assert!(!r.is_error, "{}", r.text);
        // Without an expect the same batch is honest: unknown.
        let s2 = sid(&r);
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s2, "actions": [{ "action": "keypress", "keys": "Return" }] }),
        )
        .await;
        assert_eq!(r.structured["outcome"], "unknown", "{}", r.text);
    }

    /// `setFiles` with a readable file on a backend without file inputs: `not_supported`,
    /// nothing delivered, the batch stopped before the next step.
    #[tokio::test]
    async fn set_files_is_refused_unsent_where_there_are_no_file_inputs() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "Increment").await;
        let file = std::env::temp_dir().join(format!("uidriver-upload-{}.txt", std::process::id()));
        std::fs::write(&file, "x").unwrap();
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [
                { "action": "setFiles", "ref": inc, "paths": [file] },
                { "action": "press", "ref": inc },
            ] }),
        )
        .await;
        std::fs::remove_file(&file).unwrap();
        assert_eq!(code(&r), "not_supported", "{}", r.text);
        assert_eq!(
            r.structured["error"]["delivery"], "not_delivered",
            "{}",
            r.text
        );
        assert_eq!(r.structured["stoppedAt"], 0, "{}", r.text);
        assert!(r.text.contains("no file inputs"), "{}", r.text);
        let s = sid(&observe(&svc, &root).await);
        find(&svc, &s, "Count: 0").await;
    }

    /// Keys whose effect is unknown let typing into the same element go on: the batch ran to
    /// its end, so it says neither `stoppedAt` nor "later steps were not run" (it said both).
    #[tokio::test]
    async fn typing_after_unknown_keys_runs_on_and_is_not_reported_as_stopped() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let notes = find(&svc, &s1, "Notes").await;
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [
            { "action": "keypress", "ref": notes, "keys": "ctrl+a" },
            { "action": "typeText", "ref": notes, "text": "hi" },
        ] }),
        )
        .await;
        let steps = r.structured["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 2, "{}", r.text);
        assert_eq!(steps[0]["outcome"], "unknown", "{}", r.text);
        assert_eq!(steps[1]["outcome"], "worked", "{}", r.text);
        assert!(r.structured.get("stoppedAt").is_none(), "{}", r.text);
        assert!(!r.text.contains("stopped at"), "{}", r.text);
    }

    #[tokio::test]
    async fn a_batch_stops_at_the_first_step_that_did_not_work() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "Increment").await;
        let notes = find(&svc, &s1, "Notes").await;
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [
            { "action": "setText", "ref": notes, "text": "hello" },
            { "action": "scroll", "ref": notes, "scrollY": 2 },
            { "action": "press", "ref": inc },
        ] }),
        )
        .await;
        assert_eq!(r.structured["stoppedAt"], 1, "{}", r.text);
        assert_eq!(r.structured["steps"].as_array().unwrap().len(), 2);
        assert_eq!(code(&r), "not_supported");
        assert!(r.text.contains("stopped at step 2"), "{}", r.text);
        // The third step never ran: the counter is unchanged.
        let s = sid(&observe(&svc, &root).await);
        find(&svc, &s, "Count: 0").await;
    }

    #[tokio::test]
    async fn a_dialog_opening_is_a_root_change_and_closing_is_target_closed() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let open = find(&svc, &s1, "Open dialog").await;
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": open }] }),
        )
        .await;
        let opened = r.structured["rootChanges"]["opened"].as_array().unwrap();
        assert_eq!(opened.len(), 1, "{}", r.text);
        assert_eq!(opened[0]["kind"], "dialog");
        assert!(
            r.text
                .lines()
                .any(|l| l.starts_with("+ root") && l.contains(" · modal")),
            "{}",
            r.text
        );
        // The ref in the act result is the one find_roots gives.
        let listed = call(&svc, "find_roots", json!({ "kind": "dialog" })).await;
        assert_eq!(listed.structured["roots"][0]["ref"], opened[0]["ref"]);

        let s2 = r.structured["stateId"].as_str().unwrap().to_string();
        let close = find(&svc, &s2, "Close").await;
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s2, "actions": [{ "action": "press", "ref": close }] }),
        )
        .await;
        assert_eq!(
            r.structured["targetClosed"]["code"], "target_closed",
            "{}",
            r.text
        );
        assert_eq!(r.structured["targetClosed"]["cause"], "closed");
        assert!(r.structured["stateId"].is_null());
        let again = call(&svc, "observe_ui", json!({ "root": root })).await;
        assert_eq!(code(&again), "target_closed");
    }

    /// `close_root` judges by the listing: a window with nothing unsaved is gone; one with
    /// unsaved work (the memory backend's `*` title) stays and its "Save changes?" dialog is
    /// reported as a new root.
    #[tokio::test]
    async fn close_root_reports_closed_or_the_dialog_that_asks_first() {
        use uidriver_core::testing::{app_nodes, mem_root, MemNode};
        use uidriver_core::{Role, RootKind};
        let mem = Arc::new(MemoryBackend::sample());
        mem.add_root(
            mem_root("mem:draft", "Writer", 400, RootKind::Window, "*Draft"),
            app_nodes("*Draft", vec![MemNode::new(Role::Text, "Body")]),
        );
        let svc = service(mem.clone());
        let counter = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &counter).await);
        let r = call(&svc, "close_root", json!({ "root": counter })).await;
        assert!(!r.is_error, "{}", r.text);
        assert_eq!(r.structured["closed"], true, "{}", r.text);
        assert!(r.text.starts_with("closed @r"), "{}", r.text);
        let left = call(&svc, "find_roots", json!({ "app": "Counter" })).await;
        assert_eq!(left.structured["total"], 0, "{}", left.text);
        // Closing changed the app: its states are stale for writes, and the root is gone.
        let inc = find(&svc, &s1, "Increment").await;
        let stale = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
        assert_eq!(code(&stale), "stale_state", "{}", stale.text);
        let again = call(&svc, "close_root", json!({ "root": counter })).await;
        assert_eq!(code(&again), "target_closed", "{}", again.text);

        let draft = root_of(&svc, "Writer").await;
        let r = call(&svc, "close_root", json!({ "root": draft })).await;
        assert!(!r.is_error, "{}", r.text);
        assert_eq!(r.structured["closed"], false, "{}", r.text);
        let opened = r.structured["rootChanges"]["opened"].as_array().unwrap();
        assert_eq!(opened.len(), 1, "{}", r.text);
        assert_eq!(opened[0]["title"], "Save changes?");
        assert!(r.text.contains("still open"), "{}", r.text);
        assert!(r.text.contains("+ root @r"), "{}", r.text);
        let still = call(&svc, "find_roots", json!({ "app": "Writer" })).await;
        assert_eq!(still.structured["total"], 2, "{}", still.text);

        let bad = call(&svc, "close_root", json!({ "root": draft, "timeoutMs": 1 })).await;
        assert_eq!(code(&bad), "invalid_args", "{}", bad.text);
    }
}

/// Issue 15 item 2 on the memory backend: progress while a call runs, and a cancelled act.
mod progress_and_cancel {
    use super::*;
    use uidriver_service::CallContext;

    /// A press, a long wait, a press, cancelled during the wait: the first press counted, the
    /// wait refused as cancelled, the second press never sent (the counter says 1, not 2).
    #[tokio::test]
    async fn a_cancelled_act_sends_no_step_after_the_cancel() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "increment").await;
        let got: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
        let g = got.clone();
        let ctx = CallContext::default().with_progress(Arc::new(move |p| {
            g.lock().unwrap().push(p.message);
        }));
        let c = ctx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            c.cancel();
        });
        let actions = json!([
            { "action": "press", "ref": inc },
            { "action": "wait", "ms": 5000 },
            { "action": "press", "ref": inc }
        ]);
        let start = Instant::now();
        let r = svc
            .call_with(
                &ctx,
                &[],
                "act_ui",
                json!({ "stateId": s1, "actions": actions }),
            )
            .await;
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        let steps = r.structured["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 2, "{}", r.text);
        assert_eq!(steps[0]["delivery"]["delivered"], "delivered");
        assert_eq!(steps[1]["error"]["code"], "cancelled", "{}", r.text);
        assert_eq!(steps[1]["delivery"]["delivered"], "not_delivered");
        assert!(r.text.contains("cancelled"), "{}", r.text);
        let s2 = r.structured["stateId"].as_str().unwrap().to_string();
        let count = find(&svc, &s2, "Count:").await;
        let node = call(&svc, "inspect_ui", json!({ "stateId": s2, "ref": count })).await;
        assert_eq!(node.structured["node"]["name"], "Count: 1", "{}", node.text);
        let got = got.lock().unwrap();
        assert!(
            got.iter().any(|m| m.starts_with("act_ui: 3 steps in")),
            "{got:?}"
        );
    }
}

mod states_and_lanes {
    use super::*;

    #[tokio::test]
    async fn the_129th_state_evicts_the_first() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem);
        let root = root_of(&svc, "Editor").await;
        let first = sid(&observe(&svc, &root).await);
        for _ in 0..128 {
            observe(&svc, &root).await;
        }
        let r = call(
            &svc,
            "search_ui",
            json!({ "stateId": first, "text": "Save" }),
        )
        .await;
        assert_eq!(code(&r), "stale_state");
        assert_eq!(r.structured["error"]["details"]["reason"], "evicted");
        assert!(r.text.contains("evicted"), "{}", r.text);
        let r = call(
            &svc,
            "search_ui",
            json!({ "stateId": "s999999", "text": "Save" }),
        )
        .await;
        assert_eq!(r.structured["error"]["details"]["reason"], "unknown");
    }

    #[tokio::test]
    async fn stale_epoch_is_rejected_before_dispatch_while_another_resource_acts() {
        let mem = Arc::new(MemoryBackend::sample());
        mem.set_act_delay(Duration::from_millis(300));
        let svc = Arc::new(service(mem.clone()));
        let counter = root_of(&svc, "Counter").await;
        let editor = root_of(&svc, "Editor").await;
        let c1 = sid(&observe(&svc, &counter).await);
        let e1 = sid(&observe(&svc, &editor).await);
        let inc = find(&svc, &c1, "Increment").await;
        let save = find(&svc, &e1, "Save").await;

        let t0 = Instant::now();
        let a = {
            let svc = svc.clone();
            let (c1, inc) = (c1.clone(), inc.clone());
            tokio::spawn(async move {
                call(
                    &svc,
                    "act_ui",
                    json!({ "stateId": c1, "actions": [{ "action": "press", "ref": inc }] }),
                )
                .await
            })
        };
        let b = {
            let svc = svc.clone();
            tokio::spawn(async move {
                call(
                    &svc,
                    "act_ui",
                    json!({ "stateId": e1, "actions": [{ "action": "press", "ref": save }] }),
                )
                .await
            })
        };
        let (a, b) = (a.await.unwrap(), b.await.unwrap());
        assert_eq!(a.structured["outcome"], "worked", "{}", a.text);
        assert_eq!(b.structured["outcome"], "worked", "{}", b.text);
        let log = mem.deliveries.lock().unwrap().clone();
        let (da, db) = (&log[0], &log[1]);
        // Different resources overlap in time (each delivery takes 300 ms).
        assert!(
            da.start < db.end && db.start < da.end,
            "no overlap: {:?}",
            log.iter()
                .map(|d| (d.start - t0, d.end - t0))
                .collect::<Vec<_>>()
        );
        eprintln!(
            "overlap: counter {:?}–{:?}, editor {:?}–{:?}",
            da.start - t0,
            da.end - t0,
            db.start - t0,
            db.end - t0
        );

        // A write from the older state of the same app is rejected, and nothing is sent.
        let before = mem.deliveries.lock().unwrap().len();
        let stale = call(
            &svc,
            "act_ui",
            json!({ "stateId": c1, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
        assert_eq!(code(&stale), "stale_state", "{}", stale.text);
        assert_eq!(stale.structured["error"]["delivery"], "not_delivered");
        assert_eq!(stale.structured["error"]["details"]["reason"], "epoch");
        assert_eq!(mem.deliveries.lock().unwrap().len(), before);
    }

    #[tokio::test]
    async fn same_resource_acts_do_not_interleave() {
        let mem = Arc::new(MemoryBackend::sample());
        mem.set_act_delay(Duration::from_millis(150));
        let svc = Arc::new(service(mem.clone()));
        let counter = root_of(&svc, "Counter").await;
        let s = sid(&observe(&svc, &counter).await);
        let notes = find(&svc, &s, "Notes").await;
        // Two writes from the same state: one runs, the other is rejected as stale after it.
        let calls: Vec<_> = (0..2)
            .map(|i| {
                let (svc, s, notes) = (svc.clone(), s.clone(), notes.clone());
                tokio::spawn(async move {
                    call(&svc, "act_ui", json!({ "stateId": s, "actions": [{ "action": "typeText", "ref": notes, "text": format!("{i}") }] })).await
                })
            })
            .collect();
        let mut codes = Vec::new();
        for c in calls {
            let r = c.await.unwrap();
            codes.push(if r.is_error {
                code(&r).to_string()
            } else {
                "ok".into()
            });
        }
        codes.sort();
        assert_eq!(codes, vec!["ok".to_string(), "stale_state".to_string()]);
        assert_eq!(mem.deliveries.lock().unwrap().len(), 1);
    }
}

mod views {
    use super::*;

    #[tokio::test]
    async fn large_state_is_folded_and_search_reaches_everything() {
        let mem = Arc::new(MemoryBackend::big(5000));
        let svc = service(mem);
        let root = root_of(&svc, "Big").await;
        let obs = observe(&svc, &root).await;
        assert_eq!(obs.structured["nodeCount"], 5000);
        let lines = obs.structured["outlineLines"].as_u64().unwrap();
        assert!(lines <= 160, "outline has {lines} lines");
        assert!(obs.text.contains('▸'), "folded lines say what they hide");
        let s = sid(&obs);
        // An item deep in the fold is found by search and shown by expand.
        let r = call(
            &svc,
            "search_ui",
            json!({ "stateId": s, "text": "Item 400.3 alpha beta" }),
        )
        .await;
        assert_eq!(
            r.structured["matches"][0]["name"], "Item 400.3 alpha beta",
            "{}",
            r.text
        );
        let group = call(
            &svc,
            "search_ui",
            json!({ "stateId": s, "text": "Group 400", "role": "group" }),
        )
        .await;
        let g = group.structured["matches"][0]["ref"].as_str().unwrap();
        let ex = call(&svc, "expand_ui", json!({ "stateId": s, "ref": g })).await;
        assert!(ex.text.contains("Item 400.3"), "{}", ex.text);
        // Ranking: exact before prefix before substring.
        let r = call(
            &svc,
            "search_ui",
            json!({ "stateId": s, "text": "Group 4", "limit": 3 }),
        )
        .await;
        assert_eq!(r.structured["matches"][0]["name"], "Group 4", "{}", r.text);
        // Paging says how to continue.
        assert!(r.text.contains("offset 3 for more"), "{}", r.text);
    }

    #[tokio::test]
    async fn diff_falls_back_to_the_full_view_when_too_much_changed() {
        let mem = Arc::new(MemoryBackend::big(300));
        let svc = service(mem.clone());
        let root = root_of(&svc, "Big").await;
        let s1 = sid(&observe(&svc, &root).await);
        let btn = find(&svc, &s1, "Item 1.0 alpha beta").await;
        // The app renames 60 labels behind our back; the next act's successor differs a lot.
        for i in 2..62 {
            mem.rename("mem:big", i, &format!("renamed {i}"));
        }
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "focus", "ref": btn }] }),
        )
        .await;
        assert!(
            r.text.contains(" in full (the change is large) · "),
            "{}",
            r.text
        );
        // A small change renders as a diff.
        let s2 = r.structured["stateId"].as_str().unwrap().to_string();
        mem.rename("mem:big", 3, "renamed again");
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s2, "actions": [{ "action": "focus", "ref": btn }] }),
        )
        .await;
        assert!(r.text.contains("changes in"), "{}", r.text);
        assert!(r.text.contains("\"renamed again\""), "{}", r.text);
    }

    #[tokio::test]
    async fn read_text_pages_by_range() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem);
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let notes = find(&svc, &s1, "Notes").await;
        let text = "héllo wörld ".repeat(50);
        let r = call(&svc, "act_ui", json!({ "stateId": s1, "actions": [{ "action": "setText", "ref": notes, "text": text }] })).await;
        let s2 = r.structured["stateId"].as_str().unwrap().to_string();
        let r = call(
            &svc,
            "read_text",
            json!({ "stateId": s2, "ref": notes, "offset": 1, "length": 10 }),
        )
        .await;
        assert_eq!(r.structured["text"], "éllo wörld", "{}", r.text);
        assert_eq!(r.structured["total"], 600);
        assert!(r.text.contains("offset 11"), "{}", r.text);
    }
}

mod errors {
    use super::*;

    #[tokio::test]
    async fn catalogued_errors_with_hints() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "Increment").await;

        // invalid_args names the field.
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "click", "ref": inc, "count": 9 }] }),
        )
        .await;
        assert_eq!(code(&r), "invalid_args");
        assert!(r.structured["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("actions[0].count"));
        let r = call(&svc, "observe_ui", json!({ "root": "r1" })).await;
        assert_eq!(code(&r), "invalid_args");
        assert!(r.text.contains("root"), "{}", r.text);
        let r = call(&svc, "no_such_tool", json!({})).await;
        assert_eq!(code(&r), "invalid_args");

        // stale_ref: a ref that is not in the state.
        let r = call(
            &svc,
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": "@e999" }] }),
        )
        .await;
        assert_eq!(code(&r), "stale_ref");
        assert!(r.structured["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("actions[0].ref"));

        // root_not_found.
        let r = call(&svc, "observe_ui", json!({ "root": "@r999" })).await;
        assert_eq!(code(&r), "root_not_found");

        // ambiguous_target: two roots match.
        let r = call(&svc, "observe_ui", json!({ "app": "e" })).await;
        assert_eq!(code(&r), "ambiguous_target", "{}", r.text);

        // foreground_required under the headless policy, and nothing is sent.
        let before = mem.deliveries.lock().unwrap().len();
        let r = call(&svc, "act_ui", json!({ "stateId": s1, "actions": [{ "action": "keypress", "keys": ["ctrl+s"] }], "headless": true })).await;
        assert_eq!(code(&r), "foreground_required", "{}", r.text);
        assert_eq!(
            r.structured["steps"][0]["delivery"]["delivered"],
            "not_delivered"
        );
        assert_eq!(mem.deliveries.lock().unwrap().len(), before);

        // timeout: wait_for a text that never appears.
        let r = call(
            &svc,
            "wait_for",
            json!({ "root": root, "text": "never", "timeoutMs": 300 }),
        )
        .await;
        assert_eq!(code(&r), "timeout");
        assert!(r.structured["error"]["details"]["lastStateId"].is_string());

        // policy_denied: evaluate_browser is off by default.
        let r = call(
            &svc,
            "evaluate_browser",
            json!({ "root": root, "expression": "1" }),
        )
        .await;
        assert_eq!(code(&r), "policy_denied");

        // backend_unavailable: no browser backend here.
        let r = call(&svc, "launch_browser", json!({})).await;
        assert_eq!(code(&r), "backend_unavailable");

        // invalid_args for a URL scheme that is not allowed.
        let r = call(
            &svc,
            "launch_browser",
            json!({ "url": "javascript:alert(1)" }),
        )
        .await;
        assert_eq!(code(&r), "invalid_args");

        // app_unresponsive: an observation that outlives its deadline.
        mem.set_observe_delay(Duration::from_millis(800));
        let r = call(
            &svc,
            "observe_ui",
            json!({ "root": root, "timeoutMs": 200 }),
        )
        .await;
        assert_eq!(code(&r), "app_unresponsive", "{}", r.text);
        mem.set_observe_delay(Duration::ZERO);

        // Every error result says whether input was delivered.
        assert!(r.text.contains("nothing was sent"));

        // internal: a backend that returns a malformed tree is refused, not stored.
        mem.corrupt_next_observation();
        let r = call(&svc, "observe_ui", json!({ "root": root })).await;
        assert_eq!(code(&r), "internal", "{}", r.text);
        assert!(r.text.contains("malformed tree"), "{}", r.text);
    }

    /// Every catalogued code is produced and asserted by some test (here, in the live backend
    /// tests, or in the binary's live tests), so no code is dead or untested.
    #[test]
    fn every_error_code_is_produced_by_some_test() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut sources = String::new();
        let mut stack = vec![std::path::PathBuf::from(root).join("crates")];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() && !p.ends_with("target") {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs")
                    && p.components().any(|c| c.as_os_str() == "tests")
                {
                    sources.push_str(&std::fs::read_to_string(&p).unwrap());
                }
            }
        }
        for c in ErrorCode::ALL {
            let name = c.as_str();
            assert!(
                sources.contains(&format!("\"{name}\""))
                    || sources.contains(&format!("ErrorCode::{c:?}")),
                "no test asserts error code {name}"
            );
        }
    }

    #[test]
    fn docs_tools_md_matches_the_registry() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/TOOLS.md");
        let doc = std::fs::read_to_string(path).expect("docs/TOOLS.md exists");
        assert!(
            doc.contains(&uidriver_service::tools_markdown()),
            "docs/TOOLS.md is out of date: regenerate it with `uidriver tools --markdown`"
        );
    }

    #[test]
    fn every_tool_schema_is_a_strict_object() {
        for t in uidriver_service::TOOLS {
            let s = (t.schema)();
            assert_eq!(s["type"], "object", "{}", t.name);
            assert_eq!(s["additionalProperties"], false, "{}", t.name);
        }
    }

    /// Issue 14: with no desktop, naming an app must say what is missing, not send the caller
    /// to find_roots (which lists nothing either).
    #[tokio::test]
    async fn an_app_nobody_could_list_is_backend_unavailable_with_the_cause() {
        let cause = uidriver_core::Error::new(
            ErrorCode::BackendUnavailable,
            "DISPLAY is not set: no X display to connect to",
        );
        let svc = Service::new(
            vec![],
            vec![("linux".into(), cause)],
            ServiceConfig::default().with_files(FileAccess::unrestricted("a test of other rules")),
        );
        let r = call(&svc, "observe_ui", json!({ "app": "mousepad" })).await;
        assert_eq!(code(&r), "backend_unavailable", "{}", r.text);
        let e = &r.structured["error"];
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("DISPLAY is not set"),
            "{e}"
        );
        assert!(!e["hint"].as_str().unwrap().contains("find_roots"), "{e}");
        assert_eq!(e["delivery"], "not_delivered");

        // With every backend listing, an app that is not open is still root_not_found.
        let svc = service(Arc::new(MemoryBackend::sample()));
        let r = call(&svc, "observe_ui", json!({ "app": "mousepad" })).await;
        assert_eq!(code(&r), "root_not_found", "{}", r.text);
    }

    #[test]
    fn every_tool_has_a_title_annotations_and_an_object_output_schema() {
        for t in uidriver_service::TOOLS {
            let j = t.to_json();
            assert!(!t.title.is_empty(), "{}", t.name);
            assert_eq!(
                j["annotations"]["readOnlyHint"], t.hints.read_only,
                "{}",
                t.name
            );
            assert_eq!(j["outputSchema"]["type"], "object", "{}", t.name);
            assert!(
                j["outputSchema"]["properties"]
                    .as_object()
                    .is_some_and(|p| !p.is_empty()),
                "{}",
                t.name
            );
        }
    }

    /// What a host hands the model of each tool on every turn: its name, description and input
    /// schema (the output schema goes to the host's validator; issue 24). `python3
    /// bench/tools_list.py` measures it in cl100k tokens against Playwright MCP (at most 0.85×
    /// its 4,634; 3,900 at 13,193 compact characters, 17 tools); this guards the same budget in
    /// characters, which a test can count without a tokenizer.
    #[test]
    fn tool_list_stays_within_its_budget() {
        let seen: Vec<Value> = uidriver_service::TOOLS
            .iter()
            .map(|t| {
                let j = t.to_json();
                json!({"name": j["name"], "description": j["description"], "inputSchema": j["inputSchema"]})
            })
            .collect();
        let chars = serde_json::to_string(&seen).unwrap().chars().count();
        assert!(
            chars <= 13_320,
            "what a model sees of tools/list is {chars} characters (budget 13,320, ~0.85× Playwright MCP's cl100k tokens): shorten descriptions, see bench/tools_list.py"
        );
    }

    #[test]
    fn docs_errors_md_matches_the_catalogue() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/errors.md");
        let doc = std::fs::read_to_string(path).expect("docs/errors.md exists");
        let table = ErrorCode::catalogue_markdown();
        assert!(
            doc.contains(&table),
            "docs/errors.md is out of date: regenerate the table with `uidriver errors`"
        );
    }
}

mod decoder {
    use super::*;
    use proptest::prelude::*;

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>().prop_map(|n| json!(n)),
            "[@a-zA-Z0-9 ._-]{0,12}".prop_map(Value::String),
            prop_oneof![
                Just("@e1"),
                Just("@r1"),
                Just("s1"),
                Just("press"),
                Just("click")
            ]
            .prop_map(|s| json!(s)),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("stateId".to_string()),
                        Just("root".to_string()),
                        Just("ref".to_string()),
                        Just("actions".to_string()),
                        Just("action".to_string()),
                        Just("text".to_string()),
                        Just("count".to_string()),
                        Just("x".to_string()),
                        Just("keys".to_string()),
                        "[a-z]{1,6}"
                    ],
                    inner,
                    0..5
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        #[test]
        fn arbitrary_json_never_panics_and_invalid_input_never_reaches_a_backend(args in arb_json(), tool in prop_oneof![
            Just("act_ui"), Just("observe_ui"), Just("search_ui"), Just("expand_ui"), Just("inspect_ui"), Just("read_text"), Just("wait_for")
        ]) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let mem = Arc::new(MemoryBackend::sample());
            let svc = service(mem.clone());
            let r = rt.block_on(svc.call(tool, args));
            if r.is_error && code(&r) == "invalid_args" {
                prop_assert_eq!(mem.call_count(), 0, "invalid input reached the backend");
            }
            prop_assert!(!r.text.is_empty());
        }
    }
}

/// Policies (`--policy FILE`): a denied call answers `policy_denied` naming the rule and the
/// file, and the backend sees nothing of it; the service's own policy and the caller's both
/// apply; results never show a secret.
mod policy {
    use super::*;
    use uidriver_core::{Bounds, ResourceKey, RootInfo, RootKind};
    use uidriver_service::Policy;

    fn policy(text: &str) -> Arc<Policy> {
        Arc::new(Policy::parse(text, "/etc/uidriver/test.toml", |_| None).expect("valid policy"))
    }

    async fn call_as(svc: &Service, p: &Arc<Policy>, tool: &str, args: Value) -> ToolResult {
        svc.call_as(std::slice::from_ref(p), tool, args).await
    }

    async fn root_titled(svc: &Service, title: &str) -> String {
        let r = call(svc, "find_roots", json!({ "text": title })).await;
        r.structured["roots"][0]["ref"]
            .as_str()
            .unwrap_or_else(|| panic!("no root {title}: {}", r.text))
            .to_string()
    }

    fn message(r: &ToolResult) -> &str {
        r.structured["error"]["message"].as_str().unwrap_or("")
    }

    /// A page root at `url` (the memory backend has no browser; the root is enough for the
    /// origin rules).
    fn page(url: &str, title: &str) -> RootInfo {
        RootInfo {
            key: format!("mem:page:{title}"),
            backend: "memory".into(),
            kind: RootKind::BrowserPage,
            app: "Chromium".into(),
            pid: None,
            title: title.into(),
            focused: false,
            modal: false,
            bounds: Some(Bounds::new(0, 0, 800, 600)),
            resource: ResourceKey::new(format!("page:{title}")),
            stacking: None,
            has_tree: true,
            hidden: false,
            window_id: None,
            url: Some(url.into()),
        }
    }

    #[tokio::test]
    async fn a_denied_tool_answers_policy_denied_naming_the_rule_and_nothing_is_sent() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let p = policy("[tools]\ndeny = [\"act_ui\"]\n");
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let inc = find(&svc, &s1, "Increment").await;
        let calls = mem.call_count();
        let args = json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }] });
        let r = call_as(&svc, &p, "act_ui", args.clone()).await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        assert!(
            message(&r).contains("[tools] deny contains \"act_ui\"")
                && message(&r).contains("/etc/uidriver/test.toml"),
            "{}",
            r.text
        );
        assert_eq!(r.structured["error"]["delivery"], "not_delivered");
        assert_eq!(
            r.structured["error"]["details"]["rule"],
            "[tools] deny contains \"act_ui\""
        );
        assert_eq!(mem.call_count(), calls, "the backend saw nothing");
        assert!(mem.deliveries.lock().unwrap().is_empty());
        // Other tools still work under it; without it the same call acts.
        let r = call_as(
            &svc,
            &p,
            "search_ui",
            json!({ "stateId": s1, "text": "Count" }),
        )
        .await;
        assert!(!r.is_error, "{}", r.text);
        let r = call(&svc, "act_ui", args).await;
        assert_eq!(r.structured["outcome"], "worked", "{}", r.text);
    }

    #[tokio::test]
    async fn a_denied_app_is_not_listed_and_every_way_to_reach_it_is_denied() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let p = policy("[apps]\ndeny = [\"editor\"]\n");
        // Refs and states made without the policy (another client of the same daemon).
        let editor = root_of(&svc, "Editor").await;
        let s_editor = sid(&observe(&svc, &editor).await);
        let save = find(&svc, &s_editor, "Save").await;

        let r = call_as(&svc, &p, "find_roots", json!({})).await;
        let apps: Vec<&str> = r.structured["roots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["app"].as_str().unwrap())
            .collect();
        assert_eq!(apps, ["Counter"], "{}", r.text);
        assert!(!r.text.contains("Editor"), "{}", r.text);
        assert!(
            r.text
                .contains("1 root(s) of applications or pages a policy denies"),
            "{}",
            r.text
        );

        let calls = mem.call_count();
        let rule = "[apps] deny contains \"editor\"";
        for (tool, args) in [
            ("observe_ui", json!({ "root": editor })),
            ("observe_ui", json!({ "app": "Editor" })),
            (
                "wait_for",
                json!({ "root": editor, "text": "Saved", "timeoutMs": 200 }),
            ),
            ("search_ui", json!({ "stateId": s_editor, "text": "Save" })),
            ("inspect_ui", json!({ "stateId": s_editor, "ref": save })),
            ("read_text", json!({ "stateId": s_editor, "ref": save })),
            (
                "act_ui",
                json!({ "stateId": s_editor, "actions": [{ "action": "press", "ref": save }] }),
            ),
        ] {
            let r = call_as(&svc, &p, tool, args).await;
            assert_eq!(code(&r), "policy_denied", "{tool}: {}", r.text);
            assert!(message(&r).contains(rule), "{tool}: {}", r.text);
        }
        // observe_ui {app} lists roots (a backend call) but nothing reached the Editor.
        let reached: Vec<&str> = mem.calls.lock().unwrap()[calls..]
            .iter()
            .copied()
            .filter(|c| *c != "list_roots")
            .collect();
        assert!(reached.is_empty(), "only listing ran: {reached:?}");
        assert!(mem.deliveries.lock().unwrap().is_empty());
        // The allowed app is untouched by the policy.
        let counter = root_of(&svc, "Counter").await;
        let r = call_as(&svc, &p, "observe_ui", json!({ "root": counter })).await;
        assert!(!r.is_error, "{}", r.text);
        // An allow list denies what it does not name.
        let only = policy("[apps]\nallow = [\"Counter\"]\n");
        let r = call_as(&svc, &only, "observe_ui", json!({ "root": editor })).await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        assert!(
            message(&r).contains("[apps] allow contains none"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn denied_origins_are_refused_before_the_browser_and_their_pages_are_unreachable() {
        let mem = Arc::new(MemoryBackend::sample());
        mem.add_root(
            page("https://bank.example/account", "Bank"),
            uidriver_core::testing::app_nodes("Bank", vec![]),
        );
        mem.add_root(
            page("https://docs.example/", "Docs"),
            uidriver_core::testing::app_nodes("Docs", vec![]),
        );
        let svc = service(mem.clone());
        let p = policy("[browser]\ndeny = [\"https://bank.example\"]\n");
        let bank = root_titled(&svc, "Bank").await;
        let r = call_as(&svc, &p, "find_roots", json!({ "kind": "browser_page" })).await;
        assert_eq!(r.structured["total"], 1, "{}", r.text);
        assert_eq!(r.structured["roots"][0]["title"], "Docs");
        let r = call_as(&svc, &p, "observe_ui", json!({ "root": bank })).await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        assert!(message(&r).contains("[browser] deny contains \"https://bank.example\""));
        assert!(
            !r.text.contains("/account"),
            "the path is not echoed: {}",
            r.text
        );
        // No browser runs here: answering policy_denied, not backend_unavailable, shows the
        // URL was refused before any browser was asked.
        let docs = root_titled(&svc, "Docs").await;
        let r = call_as(
            &svc,
            &p,
            "navigate_browser",
            json!({ "root": docs, "url": "https://bank.example/transfer" }),
        )
        .await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        let r = call_as(
            &svc,
            &p,
            "launch_browser",
            json!({ "url": "https://BANK.example:443/" }),
        )
        .await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        let r = call_as(
            &svc,
            &p,
            "launch_browser",
            json!({ "url": "https://docs.example/" }),
        )
        .await;
        assert_eq!(
            code(&r),
            "backend_unavailable",
            "allowed, then no browser: {}",
            r.text
        );
    }

    #[tokio::test]
    async fn a_page_that_moved_to_a_denied_origin_is_withheld_from_the_result() {
        let mem = Arc::new(MemoryBackend::new());
        mem.add_root(
            page("https://docs.example/", "Docs"),
            uidriver_core::testing::app_nodes(
                "Docs",
                vec![uidriver_core::testing::MemNode::new(
                    uidriver_core::Role::Label,
                    "Balance: 1000",
                )],
            ),
        );
        let svc = service(mem.clone());
        let p = policy("[browser]\nallow = [\"https://docs.example\"]\n");
        let r = call_as(&svc, &p, "find_roots", json!({})).await;
        let root = r.structured["roots"][0]["ref"]
            .as_str()
            .unwrap()
            .to_string();
        // The page navigates by itself after it was listed: the call passes the check on the
        // root as listed, and its result, which would show the new origin, is withheld.
        mem.set_url("mem:page:Docs", "https://bank.example/");
        let r = call_as(&svc, &p, "observe_ui", json!({ "root": root })).await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        assert!(
            message(&r).contains("now shows something a policy denies"),
            "{}",
            r.text
        );
        assert!(message(&r).contains("https://bank.example"), "{}", r.text);
        assert!(!r.text.contains("Balance"), "{}", r.text);
        assert_eq!(r.structured["error"]["delivery"], "not_delivered");
        // And from now on the root is denied before anything runs.
        let calls = mem.call_count();
        let r = call_as(&svc, &p, "observe_ui", json!({ "root": root })).await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        assert_eq!(mem.call_count(), calls);
    }

    #[tokio::test]
    async fn raw_input_off_denies_desktop_input_and_keeps_act_ui_headless() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = service(mem.clone());
        let root = root_of(&svc, "Counter").await;
        let s1 = sid(&observe(&svc, &root).await);
        let keys = json!([{ "action": "keypress", "keys": ["ctrl+a"] }]);

        let raw_off = policy("[input]\nraw = false\n");
        let r = call_as(&svc, &raw_off, "desktop_input", json!({ "actions": [] })).await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        assert!(message(&r).contains("[input] raw = false"));
        let r = call_as(
            &svc,
            &raw_off,
            "act_ui",
            json!({ "stateId": s1, "actions": keys, "headless": false }),
        )
        .await;
        assert_eq!(code(&r), "policy_denied", "{}", r.text);
        // Without a word on headless, act_ui is headless: the key is refused unsent.
        let r = call_as(
            &svc,
            &raw_off,
            "act_ui",
            json!({ "stateId": s1, "actions": keys }),
        )
        .await;
        assert_eq!(code(&r), "foreground_required", "{}", r.text);
        assert!(mem.deliveries.lock().unwrap().is_empty());

        // A headless default alone: the caller may still say headless: false.
        let default = policy("[input]\nheadless = true\n");
        let r = call_as(
            &svc,
            &default,
            "act_ui",
            json!({ "stateId": s1, "actions": keys }),
        )
        .await;
        assert_eq!(code(&r), "foreground_required", "{}", r.text);
        let r = call_as(
            &svc,
            &default,
            "act_ui",
            json!({ "stateId": s1, "actions": keys, "headless": false }),
        )
        .await;
        assert_eq!(
            r.structured["steps"][0]["delivery"]["delivered"], "delivered",
            "{}",
            r.text
        );
        assert_eq!(mem.deliveries.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn the_services_policy_and_the_callers_both_apply() {
        let mem = Arc::new(MemoryBackend::sample());
        let svc = Service::new(
            vec![mem.clone() as Arc<dyn Backend>],
            vec![],
            ServiceConfig {
                allow_evaluate: true,
                policy: Some(policy("[browser]\nevaluate = false\n")),
                ..ServiceConfig::default()
                    .with_files(FileAccess::unrestricted("a test of other rules"))
            },
        );
        let root = root_of(&svc, "Counter").await;
        // The service's policy binds a caller without one, despite --allow-evaluate.
        let r = call(
            &svc,
            "evaluate_browser",
            json!({ "root": root, "expression": "1" }),
        )
        .await;
        assert_eq!(code(&r), "policy_denied");
        assert!(
            message(&r).contains("[browser] evaluate = false"),
            "{}",
            r.text
        );
        // A caller's policy narrows it further, never widens it.
        let mine = policy("[tools]\ndeny = [\"observe_ui\"]\n[browser]\nevaluate = true\n");
        let r = call_as(&svc, &mine, "observe_ui", json!({ "root": root })).await;
        assert_eq!(code(&r), "policy_denied");
        let r = call_as(
            &svc,
            &mine,
            "evaluate_browser",
            json!({ "root": root, "expression": "1" }),
        )
        .await;
        assert!(
            message(&r).contains("[browser] evaluate = false"),
            "{}",
            r.text
        );
    }

    #[tokio::test]
    async fn activating_a_denied_app_is_denied_by_its_command_too() {
        let svc = service(Arc::new(MemoryBackend::sample()));
        let p = policy("[apps]\ndeny = [\"mousepad\"]\n");
        for app in ["Mousepad", "/usr/bin/mousepad --disable-server"] {
            let r = call_as(&svc, &p, "desktop_input", json!({ "activateApp": app })).await;
            assert_eq!(code(&r), "policy_denied", "{app}: {}", r.text);
        }
        // Another app gets past the policy (and on to "no screen" here).
        let r = call_as(&svc, &p, "desktop_input", json!({ "activateApp": "gedit" })).await;
        assert_eq!(code(&r), "backend_unavailable", "{}", r.text);
    }

    #[tokio::test]
    async fn a_callers_policy_that_arrives_malformed_is_refused_not_ignored() {
        let svc = service(Arc::new(MemoryBackend::sample()));
        // What a client could send over the socket: a deny list with a bad origin, which
        // would match nothing and so deny nothing if it were used.
        let mut wire =
            serde_json::to_value(&*policy("[browser]\ndeny = [\"https://a.example\"]\n")).unwrap();
        wire["rules"]["browser"]["deny"] = json!(["a.example"]);
        let p: Policy = serde_json::from_value(wire).unwrap();
        let r = svc.call_as(&[Arc::new(p)], "find_roots", json!({})).await;
        assert_eq!(code(&r), "invalid_args", "{}", r.text);
        assert!(r.text.contains("[browser] \"a.example\""), "{}", r.text);
    }

    #[tokio::test]
    async fn secrets_never_appear_in_results() {
        let mem = Arc::new(MemoryBackend::new());
        mem.add_root(
            page("https://docs.example/", "Keys"),
            uidriver_core::testing::app_nodes(
                "Keys",
                vec![uidriver_core::testing::MemNode::new(
                    uidriver_core::Role::Label,
                    "API key: sk-live-0123456789",
                )],
            ),
        );
        let svc = service(mem.clone());
        let p = Arc::new(
            Policy::parse("[secrets]\nenv = [\"KEY\"]\n", "t.toml", |k| {
                (k == "KEY").then(|| "sk-live-0123456789".to_string())
            })
            .unwrap(),
        );
        let root = root_titled(&svc, "Keys").await;
        let obs = call_as(&svc, &p, "observe_ui", json!({ "root": root })).await;
        assert!(!obs.is_error, "{}", obs.text);
        let all = format!("{}{}", obs.text, obs.structured);
        assert!(!all.contains("sk-live"), "{all}");
        assert!(obs.text.contains("API key: ••••"), "{}", obs.text);
        let r = call_as(
            &svc,
            &p,
            "search_ui",
            json!({ "stateId": sid(&obs), "text": "API key" }),
        )
        .await;
        assert!(
            !r.structured.to_string().contains("sk-live"),
            "{}",
            r.structured
        );
        // Without the policy the value is there (the redaction is the policy's doing).
        let r = call(
            &svc,
            "search_ui",
            json!({ "stateId": sid(&obs), "text": "API key" }),
        )
        .await;
        assert!(r.structured.to_string().contains("sk-live"));
    }
}
