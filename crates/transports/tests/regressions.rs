//! One test per bug fixed in the transports, named for what must stay true, with where it was
//! found. A new fix adds its test here.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use uidriver_transports::{DaemonClient, ToolCaller};

mod support;
use support::{code, policy, Dir};

/// A fake daemon on `path`: each connection reads request lines and writes what `answer` gives
/// for (the connection's number from 0, the request), closing the connection at `None`. Counts
/// the connections it took.
fn fake_daemon(
    path: &Path,
    answer: fn(usize, &Value) -> Option<Value>,
) -> Arc<std::sync::atomic::AtomicUsize> {
    let listener = tokio::net::UnixListener::bind(path).unwrap();
    let taken = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = taken.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(async move {
                let mut lines = BufReader::new(stream);
                let mut line = String::new();
                while lines.read_line(&mut line).await.unwrap_or(0) > 0 {
                    let req: Value = serde_json::from_str(&line).unwrap();
                    let Some(reply) = answer(n, &req) else {
                        return;
                    };
                    let mut out = serde_json::to_vec(&reply).unwrap();
                    out.push(b'\n');
                    lines.get_mut().write_all(&out).await.unwrap();
                    line.clear();
                }
            });
        }
    });
    taken
}

/// A daemon that dies just after a request reached it: the first connection reads one line and
/// closes unanswered; later ones answer every `ping` by id.
fn dies_on_the_first_request(path: &Path) -> Arc<std::sync::atomic::AtomicUsize> {
    fake_daemon(path, |n, req| {
        (n > 0).then(|| json!({"id": req["id"], "pong": {"pid": 7}}))
    })
}

/// CI (41e40ea, e7cfe60): a read-only call whose answer was lost when its daemon died as it
/// was sent is sent again on a new daemon (it used to fail the desktop reliability test), and
/// an act is never replayed: it may have run.
#[tokio::test]
async fn a_read_whose_answer_was_lost_is_sent_again_and_an_act_is_not() {
    let dir = Dir::new("replay");
    let taken = dies_on_the_first_request(&dir.socket());
    let client = DaemonClient::connect(&dir.socket()).await.unwrap();
    let pong = client
        .ping()
        .await
        .expect("the ping is replayed on a new connection");
    assert_eq!(pong["pid"], 7);
    assert_eq!(taken.load(std::sync::atomic::Ordering::SeqCst), 2);

    let dir = Dir::new("no-replay");
    let taken = dies_on_the_first_request(&dir.socket());
    let client = DaemonClient::connect(&dir.socket()).await.unwrap();
    let r = client
        .call("act_ui", json!({"stateId": "s", "actions": []}))
        .await;
    assert_eq!(code(&r), "backend_unavailable", "{}", r.text);
    assert_eq!(r.structured["error"]["delivery"], "maybe", "{}", r.text);
    assert_eq!(
        taken.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "not replayed"
    );
}

/// Issue 15 (cbb7d5f): a daemon from before policies drops the field unread, so a client with a
/// policy must not send it a call; the connection `connect()` opened was not checked (the
/// policy came after it).
#[tokio::test]
async fn a_client_with_a_policy_refuses_a_daemon_that_would_ignore_it() {
    let dir = Dir::new("old-daemon");
    let listener = tokio::net::UnixListener::bind(dir.socket()).unwrap();
    let ops = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = ops.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stream);
                let mut line = String::new();
                while lines.read_line(&mut line).await.unwrap_or(0) > 0 {
                    let req: Value = serde_json::from_str(&line).unwrap();
                    seen.lock()
                        .unwrap()
                        .push(req["op"].as_str().unwrap_or("call").into());
                    let answer = json!({"id": req["id"], "pong": {"pid": 7, "version": "0.1.0"}});
                    let mut out = serde_json::to_vec(&answer).unwrap();
                    out.push(b'\n');
                    lines.get_mut().write_all(&out).await.unwrap();
                    line.clear();
                }
            });
        }
    });
    // The connection connect() opened is checked too, before the first call uses it.
    let client = DaemonClient::connect(&dir.socket())
        .await
        .unwrap()
        .with_policy(Some(policy("[tools]\ndeny = [\"act_ui\"]\n")));
    let r = client.call("observe_ui", json!({ "root": "@r1" })).await;
    assert_eq!(code(&r), "backend_unavailable", "{}", r.text);
    assert!(r.text.contains("would ignore its policy"), "{}", r.text);
    assert_eq!(r.structured["error"]["delivery"], "not_delivered");
    assert!(
        !ops.lock().unwrap().iter().any(|o| o == "call"),
        "no call reached it: {:?}",
        ops.lock().unwrap()
    );
}

/// CI at stop 32: a client that brings rules (file roots, which every MCP session has since
/// issue 27) checks a new connection with a ping before its call; when that ping went to a
/// daemon that was dying, the call failed at once (`backend_unavailable`, the daemon "closed the
/// connection before answering") instead of trying again on the daemon that replaced it, though
/// nothing of the call had been sent. The first connection here reads one line and closes; later
/// ones answer the ping (enforcing rules) and the call. Both a read and an act go through.
#[tokio::test]
async fn a_call_whose_connection_check_hit_a_dying_daemon_tries_again() {
    for tool in ["find_roots", "act_ui"] {
        let dir = Dir::new("dying-check");
        let taken = fake_daemon(&dir.socket(), |n, req| {
            (n > 0).then(|| match req["op"].as_str() {
                Some("ping") => json!({"id": req["id"],
                    "pong": {"pid": 7, "policies": true, "files": true}}),
                _ => json!({"id": req["id"], "result": {"text": "answered", "structured": {}}}),
            })
        });
        let client = DaemonClient::connect(&dir.socket())
            .await
            .unwrap()
            .with_files(uidriver_service::FileAccess::within(
                [std::env::temp_dir()],
                "the test",
            ));
        let r = client.call(tool, json!({})).await;
        assert_eq!(r.text, "answered", "{tool}: {}", r.text);
        assert!(
            taken.load(std::sync::atomic::Ordering::SeqCst) >= 2,
            "a new connection"
        );
    }
}
