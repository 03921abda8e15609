//! The daemon: one service shared by every client, served on a Unix socket.
//!
//! The socket sits in a 0700 directory with mode 0600, and a connecting process must have our
//! uid (checked with SO_PEERCRED), so only the user who started the daemon can drive their
//! desktop through it. Each request runs in its own task so a slow observation of one app does
//! not hold up calls on the same connection; responses carry the request id.

use std::future::Future;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, watch};

use crate::caller::ToolCaller;
use crate::protocol::{Request, Response};

/// Longest request line accepted (a 100 000-character setText plus JSON overhead fits).
const MAX_LINE: usize = 4 * 1024 * 1024;

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
        std::fs::create_dir_all(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
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

/// Serves until `shutdown` resolves, a client sends `shutdown`, or the idle timeout passes.
pub async fn serve_daemon(
    listener: UnixListener,
    caller: Arc<dyn ToolCaller>,
    opts: DaemonOptions,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let active = Arc::new(AtomicUsize::new(0));
    let uid = my_uid();
    tokio::pin!(shutdown);
    loop {
        let idle = async {
            match opts.idle_timeout {
                Some(t) => loop {
                    tokio::time::sleep(t).await;
                    if active.load(Ordering::SeqCst) == 0 {
                        break;
                    }
                },
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = &mut shutdown => break,
            _ = stop_rx.changed() => break,
            _ = idle => {
                tracing::info!("idle timeout: no client connected; exiting");
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
                let active = active.clone();
                active.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    if let Err(e) = connection(stream, caller, stop).await {
                        tracing::debug!(error = %e, "connection ended");
                    }
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        }
    }
    Ok(())
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
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            break;
        }
        if line.len() > MAX_LINE {
            let _ = tx
                .send(Response {
                    id: 0,
                    result: None,
                    pong: None,
                    error: Some("request line too long".into()),
                })
                .await;
            break;
        }
        let req: Request = match serde_json::from_slice(&line) {
            Ok(r) => r,
            Err(e) => {
                let _ = tx
                    .send(Response {
                        id: 0,
                        result: None,
                        pong: None,
                        error: Some(format!("bad request: {e}")),
                    })
                    .await;
                continue;
            }
        };
        match req.op.as_str() {
            "ping" => {
                let pong =
                    json!({ "pid": std::process::id(), "version": env!("CARGO_PKG_VERSION") });
                let _ = tx
                    .send(Response {
                        id: req.id,
                        result: None,
                        pong: Some(pong),
                        error: None,
                    })
                    .await;
            }
            "shutdown" => {
                let _ = tx
                    .send(Response {
                        id: req.id,
                        result: None,
                        pong: Some(json!({"stopping": true})),
                        error: None,
                    })
                    .await;
                let _ = stop.send(true);
            }
            "call" => {
                let caller = caller.clone();
                let tx = tx.clone();
                tokio::spawn(async move {
                    let tool = req.tool.unwrap_or_default();
                    let result = caller.call(&tool, req.args).await;
                    let _ = tx
                        .send(Response {
                            id: req.id,
                            result: Some(result),
                            pong: None,
                            error: None,
                        })
                        .await;
                });
            }
            other => {
                let _ = tx
                    .send(Response {
                        id: req.id,
                        result: None,
                        pong: None,
                        error: Some(format!("unknown op {other:?}")),
                    })
                    .await;
            }
        }
    }
    drop(tx);
    let _ = writer.await;
    Ok(())
}
