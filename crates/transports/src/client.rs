//! The daemon client used by the CLI and by MCP servers attached to the daemon. It starts the
//! daemon when none is listening, and multiplexes calls over one connection (a reader task
//! routes responses to waiting calls by id).

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::UnixStream;
use tokio::sync::oneshot;
use uidriver_core::{Delivery, Error, ErrorCode};
use uidriver_service::ToolResult;

use crate::caller::ToolCaller;
use crate::protocol::{Request, Response};

/// Why the daemon could not be reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Nothing listens on the socket.
    #[error("no daemon listens on {0}")]
    NotRunning(PathBuf),
    /// Starting the daemon failed.
    #[error("could not start the daemon: {0}")]
    Spawn(String),
    /// The connection broke.
    #[error("daemon connection: {0}")]
    Io(#[from] io::Error),
    /// The daemon answered with a protocol error.
    #[error("daemon protocol error: {0}")]
    Protocol(String),
}

/// How to start a daemon when none is running.
#[derive(Clone, Debug)]
pub struct SpawnOptions {
    /// The uidriver executable.
    pub exe: PathBuf,
    /// Its arguments (e.g. `daemon run --idle-timeout 1800`).
    pub args: Vec<String>,
    /// Where its stderr goes.
    pub log: PathBuf,
    /// How long to wait for it to listen.
    pub wait: Duration,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Response>>>>;

/// A connection to the daemon.
pub struct DaemonClient {
    write: tokio::sync::Mutex<OwnedWriteHalf>,
    pending: Pending,
    next: AtomicU64,
}

impl DaemonClient {
    /// Connects to a running daemon.
    pub async fn connect(path: &Path) -> Result<Self, ClientError> {
        let stream = UnixStream::connect(path)
            .await
            .map_err(|_| ClientError::NotRunning(path.to_path_buf()))?;
        let (read, write) = stream.into_split();
        let pending: Pending = Arc::default();
        let routes = pending.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(resp) = serde_json::from_str::<Response>(&line) else {
                    continue;
                };
                let tx = routes
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&resp.id);
                if let Some(tx) = tx {
                    let _ = tx.send(resp);
                }
            }
            // The daemon went away: dropping the senders fails every waiting call.
            routes.lock().unwrap_or_else(|p| p.into_inner()).clear();
        });
        Ok(DaemonClient {
            write: tokio::sync::Mutex::new(write),
            pending,
            next: AtomicU64::new(1),
        })
    }

    /// Connects, starting the daemon first when nothing listens.
    pub async fn connect_or_spawn(path: &Path, spawn: &SpawnOptions) -> Result<Self, ClientError> {
        if let Ok(c) = Self::connect(path).await {
            return Ok(c);
        }
        if let Some(dir) = spawn.log.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&spawn.log)?;
        let mut cmd = std::process::Command::new(&spawn.exe);
        cmd.args(&spawn.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        // Its own process group: the daemon outlives this client and ignores its terminal's ^C.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().map_err(|e| ClientError::Spawn(e.to_string()))?;
        let start = Instant::now();
        loop {
            if let Ok(c) = Self::connect(path).await {
                // Reap it later without blocking: the daemon is a long-lived child.
                std::thread::spawn(move || child.wait());
                return Ok(c);
            }
            if let Ok(Some(status)) = child.try_wait() {
                // Lost a race with another client's daemon? Try once more before failing.
                if let Ok(c) = Self::connect(path).await {
                    return Ok(c);
                }
                let tail = std::fs::read_to_string(&spawn.log).unwrap_or_default();
                let tail: String = tail
                    .lines()
                    .rev()
                    .take(5)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join("\n");
                return Err(ClientError::Spawn(format!(
                    "daemon exited with {status}; log {}:\n{tail}",
                    spawn.log.display()
                )));
            }
            if start.elapsed() > spawn.wait {
                return Err(ClientError::Spawn(format!(
                    "daemon did not listen within {:?}; see {}",
                    spawn.wait,
                    spawn.log.display()
                )));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends one request and waits for its response.
    pub async fn request(
        &self,
        op: &str,
        tool: Option<&str>,
        args: Value,
    ) -> Result<Response, ClientError> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        let req = Request {
            id,
            op: op.into(),
            tool: tool.map(str::to_string),
            args,
        };
        let mut line =
            serde_json::to_vec(&req).map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push(b'\n');
        {
            let mut w = self.write.lock().await;
            w.write_all(&line).await?;
        }
        let resp = rx.await.map_err(|_| {
            ClientError::Io(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the daemon closed the connection",
            ))
        })?;
        if let Some(e) = &resp.error {
            return Err(ClientError::Protocol(e.clone()));
        }
        Ok(resp)
    }

    /// Calls a tool.
    pub async fn call_tool(&self, tool: &str, args: Value) -> Result<ToolResult, ClientError> {
        let resp = self.request("call", Some(tool), args).await?;
        resp.result
            .ok_or_else(|| ClientError::Protocol("response without a result".into()))
    }

    /// Asks the daemon for its pid and version.
    pub async fn ping(&self) -> Result<Value, ClientError> {
        Ok(self
            .request("ping", None, Value::Null)
            .await?
            .pong
            .unwrap_or(Value::Null))
    }

    /// Asks the daemon to exit.
    pub async fn shutdown(&self) -> Result<(), ClientError> {
        self.request("shutdown", None, Value::Null)
            .await
            .map(|_| ())
    }
}

#[async_trait]
impl ToolCaller for DaemonClient {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        match self.call_tool(tool, args).await {
            Ok(r) => r,
            Err(e) => ToolResult::error(
                &Error::new(
                    ErrorCode::BackendUnavailable,
                    format!("the uidriver daemon is unreachable: {e}"),
                )
                .delivered(Delivery::Maybe)
                .with_hint("run `uidriver daemon status`; the call may or may not have run"),
            ),
        }
    }
}
