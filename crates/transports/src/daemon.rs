//! The daemon: one service shared by every client, served on a Unix socket.
//!
//! The socket sits in a 0700 directory with mode 0600, and a connecting process must have our
//! uid (checked with SO_PEERCRED), so only the user who started the daemon can drive their
//! desktop through it. Each request runs in its own task so a slow observation of one app does
//! not hold up calls on the same connection; responses carry the request id. A connection
//! remembers its calls in flight, so a `cancel` line can stop one, and sends the progress of
//! calls that asked for it on the same line stream (see `protocol.rs`).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, watch};

use uidriver_service::{CallContext, Policy, ToolResult};

use crate::caller::ToolCaller;
use crate::frame::{self, too_large, Head, Line, MAX_REQUEST_BYTES};
use crate::protocol::{Request, Response};

/// How the daemon runs.
#[derive(Clone, Debug, Default)]
pub struct DaemonOptions {
    /// Exit after this long without any connection (None: run until shut down).
    pub idle_timeout: Option<Duration>,
}

/// Creates the socket's private directory and binds the socket with mode 0600. A stale socket
/// file (nobody listening) is replaced; a live one is an error (`AddrInUse`).
pub async fn bind_socket(path: &Path) -> io::Result<UnixListener> {
    if let Some(dir) = path.parent() {
        uidriver_service::private::dir(dir)?;
    }
    if path.exists() {
        if UnixStream::connect(path).await.is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("a daemon already listens on {}", path.display()),
            ));
        }
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

fn my_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

/// How often a daemon checks that its socket file is still its own.
const SOCKET_CHECK: Duration = Duration::from_secs(1);

/// Serves until `shutdown` resolves, a client sends `shutdown`, no client has been attached
/// for the idle timeout (an attached client, even a silent one, keeps the daemon running), or
/// no client can reach it any more: its socket file is gone or is another's (its sandbox's
/// runtime directory was removed, or another daemon took the path) and none is attached.
pub async fn serve_daemon(
    listener: UnixListener,
    caller: Arc<dyn ToolCaller>,
    opts: DaemonOptions,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let (stop_tx, mut stop_rx) = watch::channel(false);
    // How many connections are attached; the idle timer runs only while it is 0.
    let (attached, attached_rx) = watch::channel(0usize);
    let attached = Arc::new(attached);
    let uid = my_uid();
    let unreachable = unreachable(&listener, attached_rx.clone());
    let idle = idle_exit(attached_rx, opts.idle_timeout);
    tokio::pin!(shutdown, idle, unreachable);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            _ = stop_rx.changed() => break,
            _ = &mut unreachable => {
                tracing::info!("the socket file is gone or another's, and no client is attached; exiting");
                break;
            }
            _ = &mut idle => {
                tracing::info!("idle timeout: no client attached; exiting");
                break;
            }
            accepted = listener.accept() => {
                let (stream, _) = accepted?;
                match stream.peer_cred() {
                    Ok(c) if Some(c.uid()) == uid => {}
                    other => {
                        tracing::warn!(?other, "refused a connection from another user");
                        continue;
                    }
                }
                let caller = caller.clone();
                let stop = stop_tx.clone();
                let attached = attached.clone();
                attached.send_modify(|n| *n += 1);
                tokio::spawn(async move {
                    if let Err(e) = connection(stream, caller, stop).await {
                        tracing::debug!(error = %e, "connection ended");
                    }
                    attached.send_modify(|n| *n -= 1);
                });
            }
        }
    }
    Ok(())
}

/// Resolves once the file at the listener's path is not the socket it bound (removed, or
/// replaced by another daemon's) while no connection is attached; never for an unnamed socket.
fn unreachable(
    listener: &UnixListener,
    attached: watch::Receiver<usize>,
) -> impl Future<Output = ()> {
    use std::os::unix::fs::MetadataExt;
    let ino = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    // Read now, not when first polled: the file may be gone by then, which is the case to see.
    let path = listener
        .local_addr()
        .ok()
        .and_then(|a| a.as_pathname().map(Path::to_path_buf));
    let mine = path.as_deref().and_then(ino);
    async move {
        let Some(path) = path else {
            return std::future::pending().await;
        };
        loop {
            tokio::time::sleep(SOCKET_CHECK).await;
            // Gone before it was read counts as gone: nobody can connect to it.
            let gone = mine.is_none() || ino(&path) != mine;
            if gone && *attached.borrow() == 0 {
                return;
            }
        }
    }
}

/// Resolves once no connection has been attached for `timeout` without a break (never when
/// there is no timeout).
async fn idle_exit(mut attached: watch::Receiver<usize>, timeout: Option<Duration>) {
    let Some(t) = timeout else {
        return std::future::pending().await;
    };
    loop {
        if attached.wait_for(|n| *n == 0).await.is_err() {
            return std::future::pending().await;
        }
        tokio::select! {
            () = tokio::time::sleep(t) => {
                if *attached.borrow() == 0 {
                    return;
                }
            }
            _ = attached.changed() => {}
        }
    }
}

/// An answer that carries only a protocol error.
fn protocol_error(id: u64, message: String) -> Response {
    Response {
        id,
        error: Some(message),
        ..Default::default()
    }
}

/// The id of a refused line, so the caller waiting on it hears why (0 when none was found).
fn id_of(head: &Head) -> u64 {
    head.id.as_ref().and_then(|v| v.as_u64()).unwrap_or(0)
}

/// The answer to an oversized line: a refused `call` answers like a tool (`invalid_args`).
fn refuse_oversized(head: &Head, bytes: usize) -> Response {
    match head.method.as_deref() {
        None | Some("call") => Response {
            id: id_of(head),
            result: Some(ToolResult::error(&too_large(bytes))),
            ..Default::default()
        },
        Some(_) => protocol_error(id_of(head), too_large(bytes).message),
    }
}

async fn connection(
    stream: UnixStream,
    caller: Arc<dyn ToolCaller>,
    stop: watch::Sender<bool>,
) -> io::Result<()> {
    let (read, mut write) = stream.into_split();
    let (tx, mut rx) = mpsc::channel::<Response>(64);
    let writer = tokio::spawn(async move {
        while let Some(resp) = rx.recv().await {
            let mut line = serde_json::to_vec(&resp).unwrap_or_default();
            line.push(b'\n');
            if write.write_all(&line).await.is_err() {
                break;
            }
        }
    });
    let (mut reader, mut lines) = (BufReader::new(read), frame::LineReader::default());
    let calls = InFlight::default();
    loop {
        let line = match lines.next(&mut reader, MAX_REQUEST_BYTES).await? {
            Line::Eof => break,
            Line::Refused { bytes, head } => {
                tracing::warn!(bytes, "refused an oversized request");
                let _ = tx.send(refuse_oversized(&head, bytes)).await;
                continue;
            }
            Line::Fits(line) => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let req: Request = match serde_json::from_slice(&line) {
            Ok(r) => r,
            Err(e) => {
                let id = id_of(&frame::scan(&line));
                let _ = tx
                    .send(protocol_error(id, format!("bad request: {e}")))
                    .await;
                continue;
            }
        };
        answer(req, &caller, &tx, &stop, &calls).await;
    }
    drop(tx);
    let _ = writer.await;
    Ok(())
}

/// The calls of one connection that have not answered yet, by request id, so a `cancel` can
/// reach them. A std mutex: it is held for one map operation, never across an await.
type InFlight = Arc<Mutex<HashMap<u64, CallContext>>>;

fn in_flight(calls: &InFlight) -> std::sync::MutexGuard<'_, HashMap<u64, CallContext>> {
    calls.lock().unwrap_or_else(|p| p.into_inner())
}

/// The context of call `req`: its cancellation, registered in `calls`, and when it asked for
/// progress, a sink writing progress lines. A full line queue drops a report rather than wait
/// (the next one comes within a second).
fn context_of(req: &Request, tx: &mpsc::Sender<Response>, calls: &InFlight) -> CallContext {
    let mut ctx = CallContext::default().with_viewer(req.viewer);
    if let Some(files) = &req.files {
        ctx = ctx.with_files(files.clone());
    }
    if req.progress {
        let (tx, id) = (tx.clone(), req.id);
        ctx = ctx.with_progress(Arc::new(move |p| {
            let _ = tx.try_send(Response {
                id,
                progress: Some(p.into()),
                ..Default::default()
            });
        }));
    }
    in_flight(calls).insert(req.id, ctx.clone());
    ctx
}

/// Runs one request: a call in its own task (responses carry the id), the rest inline.
async fn answer(
    req: Request,
    caller: &Arc<dyn ToolCaller>,
    tx: &mpsc::Sender<Response>,
    stop: &watch::Sender<bool>,
    calls: &InFlight,
) {
    let pong = |v| Response {
        id: req.id,
        pong: Some(v),
        ..Default::default()
    };
    match req.op.as_str() {
        "ping" => {
            // `policies`, `files`: this daemon checks the policies and file roots a call
            // brings (clients refuse a daemon that does not say so: it would ignore them).
            let v = json!({
                "pid": std::process::id(),
                "version": env!("CARGO_PKG_VERSION"),
                "policies": true,
                "files": true,
                "progress": true,
            });
            let _ = tx.send(pong(v)).await;
        }
        "shutdown" => {
            let _ = tx.send(pong(json!({"stopping": true}))).await;
            let _ = stop.send(true);
        }
        "call" => {
            let ctx = context_of(&req, tx, calls);
            let (caller, tx, calls) = (caller.clone(), tx.clone(), calls.clone());
            tokio::spawn(async move {
                let tool = req.tool.unwrap_or_default();
                let policies: Vec<Arc<Policy>> = req.policies.into_iter().map(Arc::new).collect();
                let result = caller.call_in(&ctx, &policies, &tool, req.args).await;
                in_flight(&calls).remove(&req.id);
                let _ = tx
                    .send(Response {
                        id: req.id,
                        result: Some(result),
                        ..Default::default()
                    })
                    .await;
            });
        }
        "cancel" => {
            // Not answered: the cancelled call's own answer says what ran.
            let target = req
                .cancels
                .and_then(|id| in_flight(calls).get(&id).cloned());
            match target {
                Some(ctx) => {
                    tracing::info!(
                        call = req.cancels,
                        "cancelling a call at the client's request"
                    );
                    ctx.cancel();
                }
                None => tracing::debug!(
                    call = req.cancels,
                    "cancel for a call that already answered"
                ),
            }
        }
        other => {
            let _ = tx
                .send(protocol_error(req.id, format!("unknown op {other:?}")))
                .await;
        }
    }
}
