//! The contract every backend keeps, as test bodies that see only a [`Fixture`] and the public
//! tools (`Service::call`): roots, states and refs, stale refs and states, epochs, batches,
//! `expect`, text, waits, deadlines and errors. A body asserts only what every backend must do;
//! a backend that needs something different gets it from its fixture, never from a branch here.

use std::time::{Duration, Instant};

use serde_json::json;

use uidriver_service::ToolResult;

use crate::fixture::{code, state_id, Fixture};

/// `find_roots` lists the fixture app by its title, and filters out what does not match.
pub async fn find_roots_lists_the_fixture(f: &Fixture) {
    let r = f.ok("find_roots", json!({ "text": "Conformance" })).await;
    let roots = r["roots"].as_array().expect("roots");
    let mine = roots
        .iter()
        .find(|x| x["ref"] == f.root.as_str())
        .unwrap_or_else(|| panic!("{} is not listed: {r}", f.root));
    assert_eq!(mine["title"], "Conformance", "{mine}");
    let none = f
        .ok("find_roots", json!({ "text": "no such window zqxj" }))
        .await;
    assert_eq!(none["total"], 0, "{none}");
}

/// `observe_ui` answers a state of the root: its id, refs in the outline, the app's controls.
pub async fn observe_gives_a_state_with_refs(f: &Fixture) {
    let r = f.observe().await;
    let s = state_id(&r.structured);
    assert!(s.starts_with('s'), "{s}");
    assert_eq!(r.structured["root"], f.root.as_str(), "{}", r.text);
    assert!(
        r.structured["nodeCount"].as_u64().unwrap_or(0) >= 5,
        "{}",
        r.text
    );
    for name in ["Increment", "Count: 0", "Agree"] {
        assert!(r.text.contains(name), "{name} not in:\n{}", r.text);
    }
    assert!(r.text.contains("@e"), "no refs in:\n{}", r.text);
    // A second look is a new state of the same root.
    let again = f.state().await;
    assert_ne!(again, s);
}

/// `observe_ui` can name the root by its title instead of its ref, and gets the same root.
pub async fn observe_by_title_finds_the_same_root(f: &Fixture) {
    let r = f
        .ok(
            "observe_ui",
            json!({ "title": "Conformance", "mode": "semantic" }),
        )
        .await;
    assert_eq!(r["root"], f.root.as_str(), "{r}");
    assert!(f.has(&state_id(&r), "Increment").await);
}

/// `search_ui` finds controls by name and role, and answers no match for what is not there.
pub async fn search_finds_by_name_and_role(f: &Fixture) {
    let s = f.state().await;
    let r = f
        .ok(
            "search_ui",
            json!({ "stateId": s, "text": "Increment", "role": "button", "ocrFallback": false }),
        )
        .await;
    assert_eq!(r["matches"][0]["name"], "Increment", "{r}");
    assert!(r["matches"][0]["ref"]
        .as_str()
        .unwrap_or("")
        .starts_with("@e"));
    assert!(f.has(&s, "Count: 0").await);
    let none = f
        .ok(
            "search_ui",
            json!({ "stateId": s, "text": "zqxj nothing", "ocrFallback": false }),
        )
        .await;
    assert_eq!(none["matches"].as_array().map(Vec::len), Some(0), "{none}");
}

/// `inspect_ui` of a ref gives its role, name and what can be done with it.
pub async fn inspect_shows_role_and_capabilities(f: &Fixture) {
    let s = f.state().await;
    let inc = f.find(&s, "Increment").await;
    let r = f
        .ok("inspect_ui", json!({ "stateId": s, "ref": inc }))
        .await;
    let node = &r["node"];
    assert_eq!(node["role"], "button", "{node}");
    assert_eq!(node["name"], "Increment", "{node}");
    assert!(has_token(&node["capabilities"], "press"), "{node}");
    let note = f.find(&s, "Note").await;
    let r = f
        .ok("inspect_ui", json!({ "stateId": s, "ref": note }))
        .await;
    assert!(has_token(&r["node"]["capabilities"], "set-text"), "{r}");
}

/// `expand_ui` of the root element shows the controls under it.
pub async fn expand_shows_the_subtree(f: &Fixture) {
    let obs = f.observe().await;
    let s = state_id(&obs.structured);
    let top = first_ref(&obs.text);
    let r = f
        .call("expand_ui", json!({ "stateId": s, "ref": top }))
        .await;
    assert!(!r.is_error, "{}", r.text);
    assert!(
        r.structured["nodeCount"].as_u64().unwrap_or(0) >= 5,
        "{}",
        r.text
    );
    assert!(r.text.contains("Increment"), "{}", r.text);
}

/// A press that works: outcome `worked`, input delivered, a successor state showing the effect,
/// and refs of unchanged controls carried over into it.
pub async fn press_works_and_the_successor_shows_it(f: &Fixture) {
    let s1 = f.state().await;
    let inc = f.find(&s1, "Increment").await;
    let r = f
        .ok(
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
    assert_eq!(r["outcome"], "worked", "{r}");
    assert_eq!(r["steps"][0]["delivery"]["delivered"], "delivered", "{r}");
    let s2 = state_id(&r);
    assert_ne!(s1, s2);
    assert!(
        f.has(&s2, "Count: 1").await,
        "the successor shows no Count: 1"
    );
    assert_eq!(
        f.find(&s2, "Increment").await,
        inc,
        "the ref was not carried over"
    );
    // An independent look agrees.
    let s3 = f.state().await;
    assert!(f.has(&s3, "Count: 1").await);
}

/// A ref that is not in the state is `stale_ref`, refused before anything is sent.
pub async fn an_unknown_ref_is_stale_ref(f: &Fixture) {
    let s = f.state().await;
    let r = f
        .call(
            "act_ui",
            json!({ "stateId": s, "actions": [{ "action": "press", "ref": "@e9999" }] }),
        )
        .await;
    assert_eq!(code(&r), "stale_ref", "{}", r.text);
    assert_eq!(r.structured["error"]["delivery"], "not_delivered");
    let r = f
        .call("inspect_ui", json!({ "stateId": s, "ref": "@e9999" }))
        .await;
    assert_eq!(code(&r), "stale_ref", "{}", r.text);
    let now = f.state().await;
    assert!(f.has(&now, "Count: 0").await, "something was sent");
}

/// A state id nobody issued is `stale_state` with reason `unknown`.
pub async fn an_unknown_state_is_stale_state(f: &Fixture) {
    let r = f
        .call(
            "search_ui",
            json!({ "stateId": "s999999", "text": "Increment" }),
        )
        .await;
    assert_eq!(code(&r), "stale_state", "{}", r.text);
    assert_eq!(r.structured["error"]["details"]["reason"], "unknown");
    assert!(!r.structured["error"]["hint"]
        .as_str()
        .unwrap_or("")
        .is_empty());
}

/// After an act the root's epoch moved on: the older state may still be read, but acting from
/// it is `stale_state` (reason `epoch`) and sends nothing.
pub async fn an_older_state_is_stale_for_acting(f: &Fixture) {
    let s1 = f.state().await;
    let inc = f.find(&s1, "Increment").await;
    let r = f
        .ok(
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
    let s2 = state_id(&r);
    let stale = f
        .call(
            "act_ui",
            json!({ "stateId": s1, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
    assert_eq!(code(&stale), "stale_state", "{}", stale.text);
    assert_eq!(stale.structured["error"]["details"]["reason"], "epoch");
    assert_eq!(stale.structured["error"]["delivery"], "not_delivered");
    assert!(
        f.has(&s1, "Count: 0").await,
        "the older state is still readable"
    );
    let now = f.state().await;
    assert!(f.has(&now, "Count: 1").await, "the stale press was sent");
    // The successor is current: acting from it works.
    let r = f
        .ok(
            "act_ui",
            json!({ "stateId": s2, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await;
    assert_eq!(r["outcome"], "worked", "{r}");
}

/// A batch runs in order and stops at the first step that did not work: setting the text of a
/// label (which is not editable) stops it, and the step after it is never run.
pub async fn a_batch_stops_at_the_first_step_that_did_not_work(f: &Fixture) {
    let s = f.state().await;
    let note = f.find(&s, "Note").await;
    let label = f.find(&s, "Count: 0").await;
    let inc = f.find(&s, "Increment").await;
    let r = f
        .call(
            "act_ui",
            json!({ "stateId": s, "actions": [
                { "action": "setText", "ref": note, "text": "first" },
                { "action": "setText", "ref": label, "text": "second" },
                { "action": "press", "ref": inc },
            ] }),
        )
        .await;
    let v = &r.structured;
    assert_eq!(v["steps"][0]["outcome"], "worked", "{}", r.text);
    assert_eq!(v["stoppedAt"], 1, "{}", r.text);
    assert_eq!(v["steps"].as_array().map(Vec::len), Some(2), "{}", r.text);
    assert_ne!(v["outcome"], "worked", "{}", r.text);
    let now = f.state().await;
    assert!(f.has(&now, "Count: 0").await, "the third step ran");
}

/// Presses "Increment" in a fresh look with an `expect` on `text`; the raw result.
async fn press_increment_expecting(f: &Fixture, text: &str, timeout_ms: u64) -> ToolResult {
    let s = f.state().await;
    let inc = f.find(&s, "Increment").await;
    f.call(
        "act_ui",
        json!({
            "stateId": s,
            "actions": [{ "action": "press", "ref": inc }],
            "expect": { "text": text, "timeoutMs": timeout_ms }
        }),
    )
    .await
}

/// An `expect` that becomes true is `verified`.
pub async fn expect_met_is_verified(f: &Fixture) {
    let r = press_increment_expecting(f, "Count: 1", 5000).await;
    assert!(!r.is_error, "{}", r.text);
    let r = r.structured;
    assert_eq!(r["expect"]["verdict"], "verified", "{r}");
    assert_eq!(r["outcome"], "worked", "{r}");
}

/// An `expect` that held before the steps ran is `preexisting`: it proves nothing about them.
pub async fn expect_already_true_is_preexisting(f: &Fixture) {
    let r = press_increment_expecting(f, "Agree", 5000).await;
    assert!(!r.is_error, "{}", r.text);
    let r = r.structured;
    assert_eq!(r["expect"]["verdict"], "preexisting", "{r}");
    assert!(
        f.has(&state_id(&r), "Count: 1").await,
        "the press did not happen"
    );
}

/// An `expect` that never becomes true fails the call as `postcondition_failed`, saying the
/// input was delivered (the press did happen).
pub async fn expect_unmet_is_postcondition_failed(f: &Fixture) {
    let r = press_increment_expecting(f, "Count: 99", 500).await;
    assert!(r.is_error, "{}", r.text);
    assert_eq!(code(&r), "postcondition_failed", "{}", r.text);
    assert_eq!(r.structured["expect"]["verdict"], "failed", "{}", r.text);
    assert_eq!(r.structured["outcome"], "didnt", "{}", r.text);
    assert_eq!(r.structured["error"]["delivery"], "delivered", "{}", r.text);
}

/// `setText` replaces a field's text, and `read_text` of the successor reads it back.
pub async fn set_text_is_read_back(f: &Fixture) {
    let s = f.state().await;
    let note = f.find(&s, "Note").await;
    let text = "conformance note";
    let r = f
        .ok(
            "act_ui",
            json!({ "stateId": s, "actions": [{ "action": "setText", "ref": note, "text": text }] }),
        )
        .await;
    assert_eq!(r["outcome"], "worked", "{r}");
    let s2 = state_id(&r);
    let read = f
        .ok("read_text", json!({ "stateId": s2, "ref": note }))
        .await;
    assert_eq!(read["text"], text, "{read}");
    assert_eq!(read["total"], text.chars().count(), "{read}");
    let part = f
        .ok(
            "read_text",
            json!({ "stateId": s2, "ref": note, "offset": 12, "length": 4 }),
        )
        .await;
    assert_eq!(part["text"], "note", "{part}");
}

/// A password field shows only that it holds something, in the outline and to inspect_ui, and
/// its text is never read: read_text refuses it.
pub async fn a_password_is_never_shown_or_read(f: &Fixture) {
    let obs = f.observe().await;
    assert!(!obs.text.contains("hunter2"), "{}", obs.text);
    let s = state_id(&obs.structured);
    let secret = f.find(&s, "Secret").await;
    let node = f
        .ok("inspect_ui", json!({ "stateId": s, "ref": secret }))
        .await;
    assert!(!node.to_string().contains("hunter2"), "{node}");
    assert!(
        node.to_string().contains("••••"),
        "a filled secret shows ••••: {node}"
    );
    let r = f
        .call("read_text", json!({ "stateId": s, "ref": secret }))
        .await;
    assert_eq!(code(&r), "not_supported", "{}", r.text);
    assert!(!r.text.contains("hunter2"), "{}", r.text);
}

/// `check` on a check box leaves it checked, as the successor shows.
pub async fn check_leaves_the_box_checked(f: &Fixture) {
    let s = f.state().await;
    let agree = f.find(&s, "Agree").await;
    let before = f
        .ok("inspect_ui", json!({ "stateId": s, "ref": agree }))
        .await;
    assert!(!has_token(&before["node"]["states"], "checked"), "{before}");
    let r = f
        .ok(
            "act_ui",
            json!({ "stateId": s, "actions": [{ "action": "check", "ref": agree }] }),
        )
        .await;
    assert_eq!(r["outcome"], "worked", "{r}");
    let s2 = state_id(&r);
    let after = f
        .ok("inspect_ui", json!({ "stateId": s2, "ref": agree }))
        .await;
    assert!(has_token(&after["node"]["states"], "checked"), "{after}");
}

/// `wait_for` returns once a text appears that was not there when it started (another call
/// makes it appear a moment later).
pub async fn wait_for_sees_text_appear(f: &Fixture) {
    let s = f.state().await;
    let inc = f.find(&s, "Increment").await;
    let wait = f.call(
        "wait_for",
        json!({ "root": f.root, "text": "Count: 1", "timeoutMs": 15000 }),
    );
    let press = async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        f.call(
            "act_ui",
            json!({ "stateId": s, "actions": [{ "action": "press", "ref": inc }] }),
        )
        .await
    };
    let (w, p) = tokio::join!(wait, press);
    assert!(!p.is_error, "{}", p.text);
    assert!(!w.is_error, "{}", w.text);
    assert_eq!(w.structured["met"], true, "{}", w.text);
    assert!(f.has(&state_id(&w.structured), "Count: 1").await);
}

/// A tiny deadline answers `timeout` promptly, never a hang, even when it passes before the
/// first look is done.
pub async fn a_tiny_deadline_answers_timeout(f: &Fixture) {
    let t0 = Instant::now();
    let r = f
        .call(
            "wait_for",
            json!({ "root": f.root, "text": "zqxj never there", "timeoutMs": 50 }),
        )
        .await;
    assert_eq!(code(&r), "timeout", "{}", r.text);
    assert_eq!(
        r.structured["error"]["delivery"], "not_delivered",
        "{}",
        r.text
    );
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "took {:?}",
        t0.elapsed()
    );
}

/// A wait that runs out after looking answers `timeout` with the last state it looked at.
pub async fn a_wait_that_runs_out_names_its_last_state(f: &Fixture) {
    let t0 = Instant::now();
    let r = f
        .call(
            "wait_for",
            json!({ "root": f.root, "text": "zqxj never there", "timeoutMs": 1500 }),
        )
        .await;
    assert_eq!(code(&r), "timeout", "{}", r.text);
    let last = r.structured["error"]["details"]["lastStateId"]
        .as_str()
        .unwrap_or_else(|| panic!("no lastStateId: {}", r.text));
    assert!(
        f.has(last, "Count: 0").await,
        "the last state is not of the app"
    );
    assert!(
        t0.elapsed() < Duration::from_secs(6),
        "took {:?}",
        t0.elapsed()
    );
}

/// Malformed arguments are `invalid_args` naming the field, with a hint, and reach no app.
pub async fn bad_args_are_invalid_args_with_a_hint(f: &Fixture) {
    let r = f.call("observe_ui", json!({ "root": "r1" })).await;
    assert_eq!(code(&r), "invalid_args", "{}", r.text);
    assert!(r.text.contains("root"), "{}", r.text);
    assert!(
        !r.structured["error"]["hint"]
            .as_str()
            .unwrap_or("")
            .is_empty(),
        "{}",
        r.text
    );
    let s = f.state().await;
    let inc = f.find(&s, "Increment").await;
    let r = f
        .call(
            "act_ui",
            json!({ "stateId": s, "actions": [{ "action": "click", "ref": inc, "count": 9 }] }),
        )
        .await;
    assert_eq!(code(&r), "invalid_args", "{}", r.text);
    let msg = r.structured["error"]["message"].as_str().unwrap_or("");
    assert!(msg.starts_with("actions[0].count"), "{msg}");
    assert_eq!(r.structured["error"]["delivery"], "not_delivered");
    let r = f.call("no_such_tool", json!({})).await;
    assert_eq!(code(&r), "invalid_args", "{}", r.text);
    let now = f.state().await;
    assert!(f.has(&now, "Count: 0").await, "a refused call was sent");
}

/// A `setFiles` step naming a file that does not exist is refused before anything is sent,
/// with the path named, on every backend (the paths are checked once, above the backends).
pub async fn set_files_with_a_missing_file_is_refused_unsent(f: &Fixture) {
    let s = f.state().await;
    let note = f.find(&s, "Note").await;
    let missing = std::env::temp_dir().join("uidriver-no-such-upload.txt");
    let r = f
        .call(
            "act_ui",
            json!({ "stateId": s, "actions": [{ "action": "setFiles", "ref": note, "paths": [missing] }] }),
        )
        .await;
    assert_eq!(code(&r), "invalid_args", "{}", r.text);
    let msg = r.structured["error"]["message"].as_str().unwrap_or("");
    assert!(msg.starts_with("actions[0].paths[0]"), "{msg}");
    assert!(msg.contains("uidriver-no-such-upload.txt"), "{msg}");
    assert_eq!(r.structured["error"]["delivery"], "not_delivered");
    let now = f.state().await;
    assert!(f.has(&now, "Count: 0").await, "a refused call was sent");
}

/// Whether a JSON list of tokens (capabilities, states) holds `token`.
fn has_token(list: &serde_json::Value, token: &str) -> bool {
    list.as_array()
        .is_some_and(|a| a.iter().any(|t| t == token))
}

/// The first ref of an outline: its root element.
fn first_ref(outline: &str) -> String {
    let at = outline.find("@e").expect("the outline has refs");
    outline[at..]
        .chars()
        .take_while(|c| *c == '@' || c.is_ascii_alphanumeric())
        .collect()
}
