//! The entry of the `daemon_frames` fuzz target: arbitrary bytes sent to a real daemon
//! ([`serve_daemon`] on a real Unix socket, with a caller that only echoes) as one client's
//! stream of request lines. Hidden from the API; the cargo-fuzz target
//! (`fuzz/fuzz_targets/daemon_frames.rs`), the proptest in `tests/fuzz.rs` and the replay of
//! kept crash inputs all call [`daemon_frames`] (`docs/FUZZING.md`).
//!
//! One daemon serves every input of a process (a runtime and a socket per input would cost
//! more than the input); a `shutdown` line stops it, and the next input starts another.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use uidriver_service::ToolResult;

use crate::caller::ToolCaller;
use crate::daemon::{bind_socket, serve_daemon, DaemonOptions};
use crate::protocol::Response;

/// How long one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(10);

/// A caller that runs nothing: it answers with the sizes of what it got.
struct Echo;

#[async_trait]
impl ToolCaller for Echo {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        ToolResult::ok(format!("{} {}", tool.len(), args.is_object()), &Value::Null)
    }
}

struct Harness {
    rt: Runtime,
    path: PathBuf,
    server: Mutex<Option<JoinHandle<std::io::Result<()>>>>,
    one: Mutex<()>,
}

/// Set by the panic hook for a panic on a thread driving the daemon: Tokio catches a panic
/// inside a daemon task, so it is recorded here and turned into a failure of the input.
static PANICKED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Whether this thread is inside the daemon's `block_on` (where the daemon's tasks run).
    static DRIVING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `$TMPDIR/uidriver-fuzz-PID`: the socket directory of the harness in process PID.
const HARNESS_DIR: &str = "uidriver-fuzz-";

/// Removes the socket directories earlier harnesses left (a static is never dropped, so each
/// test process left one): those whose process is gone.
fn sweep_dead_harness_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(HARNESS_DIR))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn harness() -> &'static Harness {
    static H: OnceLock<Harness> = OnceLock::new();
    H.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if DRIVING.with(|d| d.get()) {
                PANICKED.store(true, Ordering::SeqCst);
            }
            previous(info);
        }));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("a runtime for the fuzz daemon: {e}"));
        sweep_dead_harness_dirs();
        let path = std::env::temp_dir()
            .join(format!("{HARNESS_DIR}{}", std::process::id()))
            .join("daemon.sock");
        Harness {
            rt,
            path,
            server: Mutex::new(None),
            one: Mutex::new(()),
        }
    })
}

/// Sends `data` as one connection's bytes and reads every answer. Panics only when a rule
/// breaks: a daemon task panicked, an answer line is not a `Response`, the daemon did not
/// answer every request line exactly once, or the exchange hung.
pub fn daemon_frames(data: &[u8]) {
    let h = harness();
    // One input at a time (test threads share the daemon; one input's `shutdown` must not
    // stop the daemon under another's feet).
    let _one = h.one.lock().unwrap_or_else(|e| e.into_inner());
    PANICKED.store(false, Ordering::SeqCst);
    DRIVING.with(|d| d.set(true));
    let lines = h.rt.block_on(async {
        start(h, false).await;
        let stream = match UnixStream::connect(&h.path).await {
            Ok(s) => s,
            // A `shutdown` line of the last input stopped it as this one connected.
            Err(_) => {
                start(h, true).await;
                UnixStream::connect(&h.path)
                    .await
                    .unwrap_or_else(|e| panic!("the fuzz daemon does not listen: {e}"))
            }
        };
        let (read, mut write) = stream.into_split();
        let send = async move {
            // The daemon may stop reading (an error, a limit): a failed write is its right.
            let _ = write.write_all(data).await;
            let _ = write.shutdown().await;
        };
        let receive = async move {
            let mut out = Vec::new();
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                out.push(line);
            }
            out
        };
        let lines = tokio::time::timeout(HANG, async { tokio::join!(send, receive).1 })
            .await
            .unwrap_or_else(|_| panic!("the daemon hung on a {}-byte input", data.len()));
        // Let a daemon told to shut down finish, so the next input finds it stopped, not
        // half-way (this runtime runs tasks only inside `block_on`).
        for _ in 0..8 {
            tokio::task::yield_now().await;
        }
        lines
    });
    DRIVING.with(|d| d.set(false));
    assert!(
        !PANICKED.load(Ordering::SeqCst),
        "a daemon task panicked (see above)"
    );
    for line in &lines {
        if let Err(e) = serde_json::from_str::<Response>(line) {
            panic!("the daemon wrote a line that is not a response ({e})");
        }
    }
    // A line is a request when its `\n` arrived (a last line without one is a writer that died
    // mid-line) and it is not blank (blank lines are skipped).
    let mut segments: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    segments.pop();
    let requests = segments
        .iter()
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .count();
    assert_eq!(
        lines.len(),
        requests,
        "every request line gets exactly one answer"
    );
}

/// Binds and serves when no daemon runs (the first input, or after a `shutdown` line), or
/// always with `again`.
async fn start(h: &Harness, again: bool) {
    let running = h
        .server
        .lock()
        .map(|s| s.as_ref().is_some_and(|s| !s.is_finished()))
        .unwrap_or(false);
    if running && !again {
        return;
    }
    let listener = bind_socket(&h.path)
        .await
        .unwrap_or_else(|e| panic!("binding the fuzz daemon's socket: {e}"));
    let server = tokio::spawn(serve_daemon(
        listener,
        Arc::new(Echo),
        DaemonOptions::default(),
        std::future::pending::<()>(),
    ));
    if let Ok(mut s) = h.server.lock() {
        *s = Some(server);
    }
}
