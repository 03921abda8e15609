//! The daemon socket and its client, in process, on a real Unix socket with a real service over
//! the in-memory backend: oversized and malformed lines are answered by id and the connection
//! stays in step; the client reconnects after its daemon died and tells truthfully whether a
//! call cut off in flight may have run; the daemon does not idle-exit while a client is attached.
//! A "dead daemon" is one whose runtime was dropped: its listener and every connection close,
//! as when the process is killed (the killed-process case is tests/mcp/reliability.py).
//! A fixed bug's test goes to `regressions.rs`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use uidriver_core::testing::MemoryBackend;
use uidriver_core::Backend;
use uidriver_service::{CallContext, Service, ServiceConfig};
use uidriver_transports::{bind_socket, serve_daemon, DaemonClient, DaemonOptions, ToolCaller};

mod support;
use support::{code, policy, Dir};

/// A daemon on its own runtime (two threads), so dropping it closes everything it holds.
struct Daemon {
    rt: Option<tokio::runtime::Runtime>,
    done: tokio::sync::oneshot::Receiver<()>,
    exited: bool,
    path: std::path::PathBuf,
}

impl Daemon {
    fn start(path: &Path, idle: Option<Duration>) -> Daemon {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (tx, done) = tokio::sync::oneshot::channel();
        let path = path.to_path_buf();
        let socket = path.clone();
        let bound = std::sync::mpsc::channel();
        rt.spawn(async move {
            let listener = bind_socket(&path).await.expect("bind");
            let _ = bound.0.send(());
            let svc = Service::new(
                vec![Arc::new(MemoryBackend::sample()) as Arc<dyn Backend>],
                vec![],
                ServiceConfig::default(),
            );
            let opts = DaemonOptions { idle_timeout: idle };
            let _ = serve_daemon(listener, Arc::new(svc), opts, std::future::pending()).await;
            let _ = tx.send(());
        });
        bound
            .1
            .recv_timeout(Duration::from_secs(10))
            .expect("listening");
        Daemon {
            rt: Some(rt),
            done,
            exited: false,
            path: socket,
        }
    }

    /// Kills it: every task and socket of its runtime goes at once.
    fn kill(mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
        // The runtime's threads stop a moment later: dead means the socket refuses, as a
        // killed process's does at once.
        let t0 = std::time::Instant::now();
        while std::os::unix::net::UnixStream::connect(&self.path).is_ok() {
            assert!(
                t0.elapsed() < Duration::from_secs(5),
                "the killed daemon still accepts"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits up to `max` for it to exit; how long it waited.
    async fn wait_exit(&mut self, max: Duration) -> Duration {
        let mut waited = Duration::ZERO;
        while !self.exited() && waited < max {
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += Duration::from_millis(50);
        }
        waited
    }

    fn exited(&mut self) -> bool {
        self.exited = self.exited || self.done.try_recv().is_ok();
        self.exited
    }
}

async fn line_exchange(stream: &mut BufReader<UnixStream>, line: &[u8]) -> Value {
    stream.get_mut().write_all(line).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_line(&mut answer))
        .await
        .expect("an answer")
        .unwrap();
    serde_json::from_str(&answer).unwrap()
}

#[tokio::test]
async fn refused_lines_are_answered_by_id_and_the_connection_stays_in_step() {
    let dir = Dir::new("refused");
    let daemon = Daemon::start(&dir.socket(), None);
    let mut s = BufReader::new(UnixStream::connect(dir.socket()).await.unwrap());

    let text = "x".repeat(5_200_000);
    let big = format!(
        "{}\n",
        json!({"id": 41, "op": "call", "tool": "act_ui",
               "args": {"stateId": "s1", "actions": [{"action": "typeText", "ref": "@e1", "text": text}]}})
    );
    let r = line_exchange(&mut s, big.as_bytes()).await;
    assert_eq!(r["id"], 41, "{r}");
    let e = &r["result"]["structured"]["error"];
    assert_eq!(e["code"], "invalid_args", "{r}");
    assert_eq!(e["message"], "request is 5.2 MB; the limit is 4 MB");
    assert_eq!(e["delivery"], "not_delivered");

    // A line that is not a request, with an id: answered by that id.
    let r = line_exchange(&mut s, b"{\"id\": 42, \"op\": 7}\n").await;
    assert_eq!(r["id"], 42, "{r}");
    assert!(
        r["error"].as_str().unwrap().starts_with("bad request"),
        "{r}"
    );

    // The same connection still serves calls.
    let r = line_exchange(
        &mut s,
        b"{\"id\":43,\"op\":\"call\",\"tool\":\"find_roots\",\"args\":{}}\n",
    )
    .await;
    assert_eq!(r["id"], 43);
    assert_eq!(r["result"]["isError"], false, "{r}");
    daemon.kill();
}

#[tokio::test]
async fn the_client_refuses_an_oversized_call_without_sending_it() {
    let dir = Dir::new("client-refuses");
    let daemon = Daemon::start(&dir.socket(), None);
    let client = DaemonClient::connect(&dir.socket()).await.unwrap();
    let args = json!({"stateId": "s1", "actions": [{"action": "typeText", "ref": "@e1", "text": "x".repeat(4_100_000)}]});
    let r = client.call("act_ui", args).await;
    assert_eq!(code(&r), "invalid_args", "{}", r.text);
    assert!(r.text.contains("the limit is 4 MB"), "{}", r.text);
    assert!(!client.call("find_roots", json!({})).await.is_error);
    daemon.kill();
}

#[tokio::test]
async fn the_client_reconnects_and_a_call_cut_off_says_it_may_have_run() {
    let dir = Dir::new("reconnect");
    let first = Daemon::start(&dir.socket(), None);
    let client = Arc::new(DaemonClient::connect(&dir.socket()).await.unwrap());
    let r = client.call("find_roots", json!({})).await;
    assert!(!r.is_error, "{}", r.text);
    let root = r.structured["roots"][0]["ref"]
        .as_str()
        .unwrap()
        .to_string();
    let obs = client
        .call("observe_ui", json!({"root": root, "mode": "semantic"}))
        .await;
    let state = obs.structured["stateId"].as_str().unwrap().to_string();

    // An act in flight when the daemon dies: it was sent, so it may have run.
    let c = client.clone();
    let st = state.clone();
    let inflight = tokio::spawn(async move {
        c.call(
            "act_ui",
            json!({"stateId": st, "actions": [{"action": "wait", "ms": 5000}]}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    first.kill();
    let r = tokio::time::timeout(Duration::from_secs(10), inflight)
        .await
        .expect("the cut-off call answers")
        .unwrap();
    assert_eq!(code(&r), "backend_unavailable", "{}", r.text);
    assert_eq!(r.structured["error"]["delivery"], "maybe", "{}", r.text);

    // No daemon at all: nothing is sent, and it says so.
    let r = client
        .call(
            "act_ui",
            json!({"stateId": state, "actions": [{"action": "wait", "ms": 1}]}),
        )
        .await;
    assert_eq!(code(&r), "backend_unavailable", "{}", r.text);
    assert_eq!(
        r.structured["error"]["delivery"], "not_delivered",
        "{}",
        r.text
    );

    // A new daemon on the same socket: the same client works again on its next call.
    let second = Daemon::start(&dir.socket(), None);
    let r = client.call("find_roots", json!({})).await;
    assert!(!r.is_error, "{}", r.text);
    second.kill();
}

#[tokio::test]
async fn the_daemon_stays_while_a_client_is_attached_and_idles_out_after() {
    let dir = Dir::new("idle");
    let mut daemon = Daemon::start(&dir.socket(), Some(Duration::from_millis(300)));
    let client = DaemonClient::connect(&dir.socket()).await.unwrap();
    // Silent but attached for several idle periods.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !daemon.exited(),
        "the daemon idle-exited with a client attached"
    );
    assert!(client.ping().await.is_ok());
    drop(client);
    let waited = daemon.wait_exit(Duration::from_secs(5)).await;
    assert!(daemon.exited(), "no idle exit after the client left");
    assert!(
        waited >= Duration::from_millis(250),
        "idle exit too early: {waited:?}"
    );
    daemon.kill();
}

/// A daemon that takes requests and never answers (as one stopped with SIGSTOP): a call gives
/// up at its answer limit with a true delivery, and the client is not wedged.
#[tokio::test]
async fn a_daemon_that_never_answers_costs_a_call_its_limit_not_forever() {
    let dir = Dir::new("silent");
    let listener = tokio::net::UnixListener::bind(dir.socket()).unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let client = DaemonClient::connect(&dir.socket())
        .await
        .unwrap()
        .with_answer_limit(Duration::from_millis(300));
    let t = std::time::Instant::now();
    let r = client
        .call("act_ui", json!({"stateId": "s1", "actions": []}))
        .await;
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(code(&r), "backend_unavailable", "{}", r.text);
    assert_eq!(r.structured["error"]["delivery"], "maybe", "{}", r.text);
    assert!(r.text.contains("did not answer"), "{}", r.text);
    let r = client.call("find_roots", json!({})).await;
    assert_eq!(
        r.structured["error"]["delivery"], "not_delivered",
        "{}",
        r.text
    );
}

/// Issue 15: the shared daemon applies a client's policy to that client's calls only.
#[tokio::test]
async fn a_clients_policy_travels_with_each_call_and_binds_only_that_client() {
    let dir = Dir::new("policy");
    let daemon = Daemon::start(&dir.socket(), None);
    let limited = DaemonClient::connect(&dir.socket())
        .await
        .unwrap()
        .with_policy(Some(policy("[tools]\ndeny = [\"observe_ui\"]\n")));
    let free = DaemonClient::connect(&dir.socket()).await.unwrap();
    let roots = limited
        .call("find_roots", json!({ "app": "Counter" }))
        .await;
    assert!(!roots.is_error, "{}", roots.text);
    let root = roots.structured["roots"][0]["ref"].clone();
    let r = limited.call("observe_ui", json!({ "root": root })).await;
    assert_eq!(code(&r), "policy_denied", "{}", r.text);
    assert!(
        r.text
            .contains("[tools] deny contains \"observe_ui\" (policy p.toml)"),
        "{}",
        r.text
    );
    let r = free.call("observe_ui", json!({ "root": root })).await;
    assert!(
        !r.is_error,
        "the other client is not bound by it: {}",
        r.text
    );
    daemon.kill();
}

/// Issue 15 item 2: a call that asks for progress hears from the daemon at least every second
/// with what it does; one that does not gets only its answer (the protocol older clients
/// know); a `cancel` line stops a `wait_for` at once, and its answer says it was cancelled and
/// that nothing was delivered.
#[tokio::test]
async fn progress_lines_come_before_the_answer_and_a_cancel_stops_a_wait() {
    let dir = Dir::new("progress");
    let daemon = Daemon::start(&dir.socket(), None);
    let client = DaemonClient::connect(&dir.socket()).await.unwrap();
    let roots = client.call("find_roots", json!({ "app": "Counter" })).await;
    let root = roots.structured["roots"][0]["ref"].clone();
    assert!(root.is_string(), "{}", roots.text);
    let wait = json!({ "root": root, "text": "never shown", "timeoutMs": 2500 });

    let got: Arc<std::sync::Mutex<Vec<(f64, String)>>> = Arc::default();
    let g = got.clone();
    let ctx = CallContext::default().with_progress(Arc::new(move |p| {
        g.lock().unwrap().push((p.progress, p.message));
    }));
    let r = client
        .call_tool_in(&ctx, "wait_for", wait.clone())
        .await
        .unwrap();
    assert_eq!(code(&r), "timeout", "{}", r.text);
    let got = got.lock().unwrap().clone();
    assert!(got.len() >= 3, "2.5 s at least one a second: {got:?}");
    assert!(got.windows(2).all(|w| w[1].0 > w[0].0), "{got:?}");
    assert!(
        got.iter().any(|(_, m)| m.starts_with("wait_for: watching")),
        "says what it does: {got:?}"
    );

    // Without `progress`: the first line back is the answer.
    let mut raw = BufReader::new(UnixStream::connect(dir.socket()).await.unwrap());
    let mut line = serde_json::to_vec(&json!({
        "id": 7, "op": "call", "tool": "wait_for",
        "args": { "root": root, "text": "never shown", "timeoutMs": 1600 }
    }))
    .unwrap();
    line.push(b'\n');
    let answer = line_exchange(&mut raw, &line).await;
    assert_eq!(answer["id"], 7);
    assert!(answer.get("progress").is_none(), "{answer}");
    assert_eq!(
        answer["result"]["structured"]["error"]["code"], "timeout",
        "{answer}"
    );

    // Cancelled after 0.3 s of a 10 s wait: answered within a second of the cancel.
    let ctx = CallContext::default();
    let c = ctx.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c.cancel();
    });
    let long = json!({ "root": root, "text": "never shown", "timeoutMs": 10000 });
    let start = std::time::Instant::now();
    let r = client.call_tool_in(&ctx, "wait_for", long).await.unwrap();
    assert!(
        start.elapsed() < Duration::from_millis(1300),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(code(&r), "cancelled", "{}", r.text);
    assert_eq!(r.structured["error"]["delivery"], "not_delivered");
    assert!(r.text.contains("cancelled"), "{}", r.text);
    daemon.kill();
}

/// A daemon whose socket file is removed (its sandbox stopped and took the runtime directory)
/// or taken by another daemon can be reached by no client: it exits once none is attached,
/// even without an idle timeout (stop 23: four such daemons had run for 98 minutes).
#[tokio::test]
async fn a_daemon_whose_socket_file_is_gone_exits_once_no_client_is_attached() {
    let dir = Dir::new("gone");
    let mut daemon = Daemon::start(&dir.socket(), None);
    let client = DaemonClient::connect(&dir.socket()).await.unwrap();
    std::fs::remove_file(dir.socket()).unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(!daemon.exited(), "it left an attached client");
    assert!(client.ping().await.is_ok());
    drop(client);
    daemon.wait_exit(Duration::from_secs(5)).await;
    assert!(daemon.exited(), "it kept running with no way to reach it");
    daemon.kill();
}
