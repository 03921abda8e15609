//! The entry of the `cdp_message` fuzz target: arbitrary text where the browser's text arrives
//! — a WebSocket frame routed to its waiter or to subscribers (`client.rs`), the walker's
//! output turned into a page snapshot with its frames grafted (`extract.rs`), a screenshot's
//! base64 (`capture.rs`). Hidden from the API; the cargo-fuzz target
//! (`fuzz/fuzz_targets/cdp_message.rs`), the proptest in `tests/fuzz.rs` and the replay of kept
//! crash inputs all call [`message`] (`docs/FUZZING.md`).

use std::sync::Arc;

use tokio::sync::{broadcast, oneshot};

use crate::capture::base64_decode;
use crate::client::{route, Pending};
use crate::extract::{build, cross_origin, frame_document, graft, Viewport, WalkOut};
use crate::protocol::Evaluated;

/// Byte 0 picks where the text goes (0: a WebSocket frame, 1: the walker's output, 2: a
/// screenshot's base64); the rest is the text (UTF-8, as tungstenite and `Runtime.evaluate`
/// deliver it). Panics only when a rule breaks: a decoder panicked, a reply reached the wrong
/// waiter, or a page snapshot came out malformed.
pub fn message(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match mode % 3 {
        0 => frame(text),
        1 => walk(text),
        _ => {
            let _ = base64_decode(text);
        }
    }
}

/// Routes `text` with callers waiting on ids 1–3; a reply wakes at most its own waiter, and
/// a walker text in an evaluation reply is read as `observe` reads it.
fn frame(text: &str) {
    let pending: Pending = Arc::default();
    let mut waiters = Vec::new();
    if let Ok(mut map) = pending.lock() {
        for id in 1..=3u64 {
            let (tx, rx) = oneshot::channel();
            map.insert(id, tx);
            waiters.push((id, rx));
        }
    }
    let (events, mut sub) = broadcast::channel(4);
    route(text, &pending, &events);
    let id = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("id").and_then(serde_json::Value::as_u64));
    let mut woken = 0;
    for (want, mut rx) in waiters {
        if let Ok(reply) = rx.try_recv() {
            assert_eq!(id, Some(want), "a reply woke the waiter of another id");
            woken += 1;
            if let Ok(Some(raw)) = reply {
                if let Ok(ev) = serde_json::from_str::<Evaluated>(raw.get()) {
                    if let Some(serde_json::Value::String(s)) = ev.result.value {
                        walk(&s);
                    }
                }
            }
        }
    }
    assert!(woken <= 1, "one reply woke {woken} waiters");
    let mut routed = 0;
    while sub.try_recv().is_ok() {
        routed += 1;
    }
    assert!(routed <= 1, "one frame became {routed} events");
}

/// The walker's output as `observe` reads it: the page, then a copy of the page grafted as the
/// document of every cross-origin frame, renumbered into pre-order. A non-empty result must be
/// a well-formed tree (`Snapshot::check`).
fn walk(text: &str) {
    let Ok(out) = serde_json::from_str::<WalkOut>(text) else {
        return;
    };
    for headless in [true, false] {
        let vp = Viewport::from_vp(&out.vp.unwrap_or_default(), headless);
        let mut snap = build(&out, &vp);
        let owners: Vec<usize> = (0..snap.nodes.len())
            .filter(|&i| cross_origin(&snap.nodes[i]))
            .take(4)
            .collect();
        for owner in owners {
            if let Ok(child) = frame_document(&out, &vp) {
                graft(&mut snap, owner, child);
            }
        }
        let snap = snap.into_preorder();
        if !snap.nodes.is_empty() {
            if let Err(why) = snap.check() {
                panic!("a page snapshot is malformed: {why}");
            }
        }
    }
}
