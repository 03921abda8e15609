//! The daemon client used by the CLI and by MCP servers attached to the daemon. It starts the
//! daemon when none is listening, multiplexes calls over one connection (a reader task routes
//! responses to waiting calls by id), and replaces a broken connection on the next call, so a
//! long MCP session outlives a daemon that exited or was killed. A call the daemon did not
//! answer says truthfully whether it may have run (`ClientError::may_have_run`).

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
use uidriver_service::{CallContext, FileAccess, Policy, ProgressSink, ToolName, ToolResult};

use crate::caller::ToolCaller;
use crate::frame::{too_large, MAX_REQUEST_BYTES};
use crate::protocol::{Request, Response};

/// Why a request got no answer from the daemon. Only [`ClientError::Lost`] means the request
/// reached the daemon; every other variant means it was never sent (or was refused unrun).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Nothing listens on the socket.
    #[error("no daemon listens on {0}")]
    NotRunning(PathBuf),
    /// Starting the daemon failed.
    #[error("could not start the daemon: {0}")]
    Spawn(String),
    /// Connecting or writing failed before the whole request was sent.
    #[error("daemon connection: {0}")]
    Io(#[from] io::Error),
    /// The request was sent, then the connection broke before its answer came.
    #[error("the daemon closed the connection before answering (it exited or was killed)")]
    Lost,
    /// The request was sent and no answer came within the time the call could take (a stopped
    /// or wedged daemon); the connection is dropped, the next call opens a new one.
    #[error("the daemon did not answer within {} s (it may be stopped or wedged)", .0.as_secs())]
    Unanswered(Duration),
    /// The daemon answered with a protocol error.
    #[error("daemon protocol error: {0}")]
    Protocol(String),
    /// The request is larger than the daemon accepts; it was not sent.
    #[error("{}", too_large(*.0).message)]
    TooLarge(usize),
}

impl ClientError {
    /// Whether the daemon may have run the request (it was sent and no answer came).
    pub fn may_have_run(&self) -> bool {
        matches!(self, ClientError::Lost | ClientError::Unanswered(_))
    }
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

/// Calls waiting for their answers on one connection, and whether its reader has seen the end
/// (after which nothing may wait: its answer could never come).
#[derive(Default)]
struct Routes {
    closed: bool,
    waiting: HashMap<u64, oneshot::Sender<Response>>,
    /// Where progress lines of a waiting call go, when it asked for them.
    progress: HashMap<u64, ProgressSink>,
}

/// One socket connection: its write half and the routes its reader task fills.
struct Conn {
    write: Arc<tokio::sync::Mutex<OwnedWriteHalf>>,
    routes: Arc<Mutex<Routes>>,
    /// Whether the daemon on it said it checks the policies and file roots calls bring.
    checks_policies: std::sync::atomic::AtomicBool,
}

fn lock(r: &Mutex<Routes>) -> std::sync::MutexGuard<'_, Routes> {
    r.lock().unwrap_or_else(|p| p.into_inner())
}

impl Conn {
    async fn open(path: &Path) -> Result<Conn, ClientError> {
        let stream = UnixStream::connect(path)
            .await
            .map_err(|_| ClientError::NotRunning(path.to_path_buf()))?;
        let (read, write) = stream.into_split();
        let routes: Arc<Mutex<Routes>> = Arc::default();
        let reader = routes.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(resp) = serde_json::from_str::<Response>(&line) else {
                    continue;
                };
                if let Some(p) = resp.progress {
                    // Called outside the lock: a sink may take its time.
                    let sink = lock(&reader).progress.get(&resp.id).cloned();
                    if let Some(sink) = sink {
                        sink(p.into());
                    }
                    continue;
                }
                let waiter = {
                    let mut r = lock(&reader);
                    r.progress.remove(&resp.id);
                    r.waiting.remove(&resp.id)
                };
                if let Some(tx) = waiter {
                    let _ = tx.send(resp);
                }
            }
            // The daemon went away: dropping the senders fails every waiting call.
            let mut r = lock(&reader);
            r.closed = true;
            r.waiting.clear();
            r.progress.clear();
        });
        Ok(Conn {
            write: Arc::new(tokio::sync::Mutex::new(write)),
            routes,
            checks_policies: Default::default(),
        })
    }

    fn is_closed(&self) -> bool {
        lock(&self.routes).closed
    }

    /// Waits for the answer to `id` (and its progress lines, to `sink`); `None` when the
    /// connection already ended.
    fn expect(&self, id: u64, sink: Option<ProgressSink>) -> Option<oneshot::Receiver<Response>> {
        let mut r = lock(&self.routes);
        if r.closed {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        r.waiting.insert(id, tx);
        if let Some(sink) = sink {
            r.progress.insert(id, sink);
        }
        Some(rx)
    }

    fn forget(&self, id: u64) {
        let mut r = lock(&self.routes);
        r.waiting.remove(&id);
        r.progress.remove(&id);
    }

    /// Sends one request; the answer arrives on the receiver, which fails when the connection
    /// breaks first. An error means the line was not (wholly) written, and the daemon runs
    /// only whole lines, so the request did not run.
    async fn send(
        &self,
        id: u64,
        line: &[u8],
        sink: Option<ProgressSink>,
    ) -> io::Result<oneshot::Receiver<Response>> {
        let closed = || {
            io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the daemon closed the connection",
            )
        };
        let rx = self.expect(id, sink).ok_or_else(closed)?;
        if let Err(e) = self.write_line(line).await {
            self.forget(id);
            return Err(e);
        }
        Ok(rx)
    }

    /// Writes one line whole. In its own task: a caller that gives up mid-write must not leave
    /// half a line that the next request would be glued to.
    async fn write_line(&self, line: &[u8]) -> io::Result<()> {
        let (write, line) = (self.write.clone(), line.to_vec());
        tokio::spawn(async move { write.lock().await.write_all(&line).await })
            .await
            .unwrap_or_else(|e| Err(io::Error::other(e)))
    }

    /// Asks the daemon to stop call `id` (a line it does not answer).
    async fn cancel(&self, id: u64, cancel_id: u64) {
        let req = Request {
            id: cancel_id,
            op: "cancel".into(),
            cancels: Some(id),
            ..Request::default()
        };
        let Ok(mut line) = serde_json::to_vec(&req) else {
            return;
        };
        line.push(b'\n');
        if let Err(e) = self.write_line(&line).await {
            tracing::debug!("sending a cancel: {e}");
        }
    }
}

/// A client of the daemon. It holds one connection, multiplexed by request id, and replaces it
/// on the next request after it broke: reconnecting, and starting a new daemon when it was made
/// by [`DaemonClient::connect_or_spawn`] and none listens any more.
pub struct DaemonClient {
    path: PathBuf,
    spawn: Option<SpawnOptions>,
    conn: tokio::sync::Mutex<Option<Arc<Conn>>>,
    next: AtomicU64,
    /// A fixed limit on waiting for an answer, instead of [`answer_limit`]'s (tests).
    limit: Option<Duration>,
    /// The policy sent with every call (`--policy FILE`); the daemon checks calls against it.
    policy: Option<Arc<Policy>>,
    /// The file roots sent with a call whose context gives none (`None`: the daemon's).
    files: Option<FileAccess>,
}

impl DaemonClient {
    fn with(path: &Path, spawn: Option<SpawnOptions>, conn: Conn) -> Self {
        DaemonClient {
            path: path.to_path_buf(),
            spawn,
            conn: tokio::sync::Mutex::new(Some(Arc::new(conn))),
            next: AtomicU64::new(1),
            limit: None,
            policy: None,
            files: None,
        }
    }

    /// Sends `files` as the roots of every call whose context names none: the daemon refuses
    /// paths and `file:` URLs outside them (`uidriver call` sends its working directory).
    pub fn with_files(mut self, files: FileAccess) -> Self {
        self.files = Some(files);
        self
    }

    /// Sends `policy` with every call: the daemon answers `policy_denied` to what it forbids.
    pub fn with_policy(mut self, policy: Option<Arc<Policy>>) -> Self {
        self.policy = policy;
        self
    }

    /// Waits at most `d` for any answer (instead of the call's own time plus a margin).
    pub fn with_answer_limit(mut self, d: Duration) -> Self {
        self.limit = Some(d);
        self
    }

    /// Connects to a running daemon (later reconnects do not start one).
    pub async fn connect(path: &Path) -> Result<Self, ClientError> {
        Ok(Self::with(path, None, Conn::open(path).await?))
    }

    /// Connects, starting the daemon first when nothing listens (and again later, when the
    /// daemon is gone at the next request).
    pub async fn connect_or_spawn(path: &Path, spawn: &SpawnOptions) -> Result<Self, ClientError> {
        let conn = open_or_spawn(path, spawn).await?;
        Ok(Self::with(path, Some(spawn.clone()), conn))
    }

    /// The live connection, opened anew when the last one ended.
    async fn connection(&self) -> Result<Arc<Conn>, ClientError> {
        let mut current = self.conn.lock().await;
        if let Some(c) = current.as_ref().filter(|c| !c.is_closed()) {
            if self.brings_rules() && !c.checks_policies.load(Ordering::SeqCst) {
                self.check_enforces_policies(c).await?;
            }
            return Ok(c.clone());
        }
        let had = current.take().is_some();
        let conn = Arc::new(match &self.spawn {
            Some(s) => open_or_spawn(&self.path, s).await?,
            None => Conn::open(&self.path).await?,
        });
        if self.brings_rules() {
            self.check_enforces_policies(&conn).await?;
        }
        if had {
            tracing::info!(socket = %self.path.display(), "reconnected to the daemon");
        }
        *current = Some(conn.clone());
        Ok(conn)
    }

    /// Whether this client's calls carry rules a daemon must enforce (a policy, file roots).
    fn brings_rules(&self) -> bool {
        self.policy.is_some() || self.files.is_some()
    }

    /// Refuses a daemon that would ignore this client's policy or file roots: one from before
    /// they travelled with calls (its ping does not say `policies` and `files`) drops them
    /// unread.
    async fn check_enforces_policies(&self, conn: &Conn) -> Result<(), ClientError> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let ping = Request {
            id,
            op: "ping".into(),
            ..Request::default()
        };
        let mut line =
            serde_json::to_vec(&ping).map_err(|e| ClientError::Protocol(e.to_string()))?;
        line.push(b'\n');
        let rx = conn.send(id, &line, None).await?;
        let pong = match tokio::time::timeout(Duration::from_secs(10), rx).await {
            Ok(Ok(resp)) => resp.pong.unwrap_or(Value::Null),
            Ok(Err(_)) => return Err(ClientError::Lost),
            Err(_) => {
                conn.forget(id);
                return Err(ClientError::Unanswered(Duration::from_secs(10)));
            }
        };
        if pong["policies"] == Value::Bool(true) && pong["files"] == Value::Bool(true) {
            conn.checks_policies.store(true, Ordering::SeqCst);
            return Ok(());
        }
        Err(ClientError::Protocol(format!(
            "the daemon on {} (pid {}) is older than this client and would ignore its policy and file roots; stop it with `uidriver daemon stop` (the next call starts a current one)",
            self.path.display(),
            pong["pid"]
        )))
    }

    /// Forgets `conn` if it is still the current connection.
    async fn discard(&self, conn: &Arc<Conn>) {
        let mut current = self.conn.lock().await;
        if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
            *current = None;
        }
    }

    /// Sends one request and waits for its response. A request that could not be sent (the
    /// connection had ended, or the write failed) is sent once more on a new connection: it
    /// never ran, so that is safe. One that was sent and lost its answer is sent again only
    /// when it cannot change anything ([`replays_when_lost`]); any other answers `Lost`.
    pub async fn request(
        &self,
        op: &str,
        tool: Option<&str>,
        args: Value,
    ) -> Result<Response, ClientError> {
        self.request_under(op, tool, args, &[], None).await
    }

    /// [`DaemonClient::request`]; a call carries this client's policy and `extra`, and runs
    /// under `ctx` (progress lines to its sink, a `cancel` line when it is cancelled).
    async fn request_under(
        &self,
        op: &str,
        tool: Option<&str>,
        args: Value,
        extra: &[Arc<Policy>],
        ctx: Option<&CallContext>,
    ) -> Result<Response, ClientError> {
        let sink = ctx.and_then(CallContext::progress_sink);
        let cancel = ctx.map(CallContext::token).unwrap_or_default();
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let policies = match op {
            "call" => self
                .policy
                .iter()
                .chain(extra)
                .map(|p| (**p).clone())
                .collect(),
            _ => vec![],
        };
        let files = match op {
            "call" => ctx
                .and_then(|c| c.files().cloned())
                .or_else(|| self.files.clone()),
            _ => None,
        };
        let req = Request {
            id,
            op: op.into(),
            tool: tool.map(str::to_string),
            args,
            policies,
            files,
            progress: sink.is_some(),
            cancels: None,
            viewer: ctx.and_then(CallContext::viewer),
        };
        let mut line =
            serde_json::to_vec(&req).map_err(|e| ClientError::Protocol(e.to_string()))?;
        if line.len() > MAX_REQUEST_BYTES {
            return Err(ClientError::TooLarge(line.len()));
        }
        line.push(b'\n');
        let replayable = op == "ping" || tool.is_some_and(replays_when_lost);
        let limit = self.limit.unwrap_or_else(|| answer_limit(op, &req.args));
        let mut unsent = None;
        for attempt in 0..=RETRIES {
            if attempt > 1 {
                // A dying daemon can still accept for a moment: give it time to be gone, so
                // the next connection is refused and a new daemon starts.
                tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
            }
            let conn = match self.connection().await {
                Ok(c) => c,
                // The handshake of a new connection (the ping that checks the daemon enforces
                // this client's rules) went to a dying daemon: nothing of this call was sent,
                // so any call may try again, on the daemon that replaces it.
                Err(ClientError::Lost) => {
                    unsent = Some(io::Error::new(
                        io::ErrorKind::BrokenPipe,
                        "the daemon closed the connection while it was being checked",
                    ));
                    continue;
                }
                Err(ClientError::Io(e)) => {
                    unsent = Some(e);
                    continue;
                }
                Err(e) => return Err(e),
            };
            match conn.send(id, &line, sink.clone()).await {
                Ok(rx) => {
                    let Ok(answer) = self.answer_of(&conn, id, rx, limit, &cancel).await else {
                        conn.forget(id);
                        self.discard(&conn).await;
                        tracing::warn!(op, tool, ?limit, "the daemon did not answer in time");
                        return Err(ClientError::Unanswered(limit));
                    };
                    let Ok(resp) = answer else {
                        // A daemon dies over a moment (its threads exit one by one, its
                        // listener accepting until the last), so a request can be written
                        // just before its socket closes, even on a new connection.
                        self.discard(&conn).await;
                        if replayable && attempt < RETRIES {
                            tracing::info!(op, tool, "answer lost; replaying a read-only call");
                            continue;
                        }
                        return Err(ClientError::Lost);
                    };
                    if let Some(e) = &resp.error {
                        return Err(ClientError::Protocol(e.clone()));
                    }
                    return Ok(resp);
                }
                Err(e) => {
                    self.discard(&conn).await;
                    unsent = Some(e);
                }
            }
        }
        Err(ClientError::Io(unsent.unwrap_or_else(|| {
            io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the daemon closed the connection",
            )
        })))
    }

    /// Waits up to `limit` for the answer to call `id`; when `cancel` fires first, tells the
    /// daemon once and goes on waiting (the cancelled call answers what it did).
    async fn answer_of(
        &self,
        conn: &Conn,
        id: u64,
        rx: oneshot::Receiver<Response>,
        limit: Duration,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Result<Response, oneshot::error::RecvError>, tokio::time::error::Elapsed> {
        let answer = tokio::time::timeout(limit, rx);
        tokio::pin!(answer);
        let mut told = false;
        loop {
            tokio::select! {
                a = &mut answer => return a,
                () = cancel.cancelled(), if !told => {
                    told = true;
                    let cancel_id = self.next.fetch_add(1, Ordering::SeqCst);
                    conn.cancel(id, cancel_id).await;
                }
            }
        }
    }

    /// Calls a tool.
    pub async fn call_tool(&self, tool: &str, args: Value) -> Result<ToolResult, ClientError> {
        self.call_tool_under(tool, args, &[], None).await
    }

    /// Calls a tool under `ctx`: its progress reaches the context's sink, and cancelling the
    /// context asks the daemon to stop the call.
    pub async fn call_tool_in(
        &self,
        ctx: &CallContext,
        tool: &str,
        args: Value,
    ) -> Result<ToolResult, ClientError> {
        self.call_tool_under(tool, args, &[], Some(ctx)).await
    }

    /// Calls a tool under `extra` policies as well as this client's.
    async fn call_tool_under(
        &self,
        tool: &str,
        args: Value,
        extra: &[Arc<Policy>],
        ctx: Option<&CallContext>,
    ) -> Result<ToolResult, ClientError> {
        let resp = self
            .request_under("call", Some(tool), args, extra, ctx)
            .await?;
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

    /// Asks the daemon to exit. A daemon that exits before its answer reaches us has done
    /// what was asked: the connection closing is the answer.
    pub async fn shutdown(&self) -> Result<(), ClientError> {
        match self.request("shutdown", None, Value::Null).await {
            Ok(_) | Err(ClientError::Lost) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Connects to the daemon at `path`, starting it first when nothing listens. Two clients racing
/// to start one end up on the same daemon: the loser's exits (its socket is taken) and it
/// connects to the winner's.
async fn open_or_spawn(path: &Path, spawn: &SpawnOptions) -> Result<Conn, ClientError> {
    if let Ok(c) = Conn::open(path).await {
        return Ok(c);
    }
    if let Some(dir) = spawn.log.parent() {
        uidriver_service::private::dir(dir)?;
    }
    // The daemon's log names what it read and did: owner-only.
    let log = uidriver_service::private::file_options()
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
        if let Ok(c) = Conn::open(path).await {
            // Reap it later without blocking: the daemon is a long-lived child.
            std::thread::spawn(move || child.wait());
            return Ok(c);
        }
        if let Ok(Some(status)) = child.try_wait() {
            // Lost a race with another client's daemon? Try once more before failing.
            if let Ok(c) = Conn::open(path).await {
                return Ok(c);
            }
            return Err(ClientError::Spawn(format!(
                "daemon exited with {status}; log {}:\n{}",
                spawn.log.display(),
                log_tail(&spawn.log, 5)
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

/// The last `n` lines of a log file.
fn log_tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// How many times a request is sent again: one that was never sent, or a read whose answer
/// was lost (the waits between grow: 0, 0.4, 0.8 s).
const RETRIES: u32 = 3;

/// Whether `tool` only reads (observing, searching, waiting, capturing), by the registry's
/// read-only hint. Any other call can send input to an application or start something, so
/// sending it again could act twice; a tool the registry does not know counts as one that can.
fn reads(tool: &str) -> bool {
    ToolName::from_name(tool).is_some_and(ToolName::read_only)
}

/// How long a request may wait for its answer: a ping 10 s; a call its own `timeoutMs` (at
/// least the longest default, 120 s) and 30 s more. Past that the daemon is stopped or wedged,
/// and a caller waiting on it forever would hang its MCP host.
fn answer_limit(op: &str, args: &Value) -> Duration {
    if op == "ping" {
        return Duration::from_secs(10);
    }
    let own = args
        .get("timeoutMs")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        .max(120_000);
    Duration::from_millis(own) + Duration::from_secs(30)
}

/// Whether a call of `tool` whose answer was lost may be sent again on a new daemon: it only
/// reads, and it is short. A `wait_for` is not, as its deadline ran on the dead daemon.
fn replays_when_lost(tool: &str) -> bool {
    reads(tool) && tool != ToolName::WaitFor.as_str()
}

/// `backend_unavailable` for a call the daemon did not answer, with the delivery that is true
/// of it: `maybe` only when the request was sent and the tool can act; a tool unknown here
/// counts as one that can.
fn unanswered(tool: &str, e: &ClientError) -> Error {
    let acts = !reads(tool);
    let (delivery, hint) = if matches!(e, ClientError::Unanswered(_)) {
        (
            if acts { Delivery::Maybe } else { Delivery::NotDelivered },
            "the daemon holds the call but does not answer: check it with `uidriver daemon status` (a stopped process answers nothing) and restart it with `uidriver daemon stop`; observe before replaying an action.",
        )
    } else if e.may_have_run() && acts {
        (
            Delivery::Maybe,
            "the daemon may have run this call before it went away: observe before replaying it. The next call reconnects (starting a new daemon when none runs).",
        )
    } else if e.may_have_run() {
        (
            Delivery::NotDelivered,
            "this tool only reads, so nothing reached any application; call it again: the next call reconnects (starting a new daemon when none runs).",
        )
    } else {
        (
            Delivery::NotDelivered,
            "nothing was sent; the next call tries again (starting a new daemon when none runs). If it keeps failing, run `uidriver daemon status` and read the daemon log.",
        )
    };
    Error::new(
        ErrorCode::BackendUnavailable,
        format!("the uidriver daemon is unreachable: {e}"),
    )
    .delivered(delivery)
    .with_hint(hint)
}

/// How long a readiness probe waits for the daemon's ping (a kubelet's probe gives 1 s by
/// default and is told more in the manifests).
const READY_WITHIN: Duration = Duration::from_secs(2);

#[async_trait]
impl ToolCaller for DaemonClient {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        self.call_under(&[], tool, args).await
    }

    fn offers(&self, tool: &str) -> bool {
        self.policy.as_ref().is_none_or(|p| p.tool_allowed(tool))
    }

    /// Ready when the daemon answers a ping within [`READY_WITHIN`].
    async fn ready(&self) -> bool {
        matches!(
            tokio::time::timeout(READY_WITHIN, self.ping()).await,
            Ok(Ok(_))
        )
    }

    async fn call_under(&self, policies: &[Arc<Policy>], tool: &str, args: Value) -> ToolResult {
        self.call_in(&CallContext::default(), policies, tool, args)
            .await
    }

    async fn call_in(
        &self,
        ctx: &CallContext,
        policies: &[Arc<Policy>],
        tool: &str,
        args: Value,
    ) -> ToolResult {
        match self.call_tool_under(tool, args, policies, Some(ctx)).await {
            Ok(r) => r,
            Err(ClientError::TooLarge(n)) => ToolResult::error(&too_large(n)),
            Err(e) => ToolResult::error(&unanswered(tool, &e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reading_tools_are_sent_again_and_wait_for_is_not() {
        for t in [
            "find_roots",
            "observe_ui",
            "browser_log",
            "desktop_screenshot",
        ] {
            assert!(replays_when_lost(t), "{t}");
        }
        for t in [
            "wait_for",
            "act_ui",
            "save_pdf",
            "launch_browser",
            "some_new_tool",
        ] {
            assert!(!replays_when_lost(t), "{t}");
        }
    }

    #[test]
    fn delivery_is_maybe_only_for_a_sent_call_of_an_acting_tool() {
        let lost = ClientError::Lost;
        let unsent = ClientError::Io(io::Error::from(io::ErrorKind::BrokenPipe));
        let none = ClientError::NotRunning("/x".into());
        assert_eq!(unanswered("act_ui", &lost).delivery, Delivery::Maybe);
        assert_eq!(unanswered("desktop_input", &lost).delivery, Delivery::Maybe);
        assert_eq!(unanswered("some_new_tool", &lost).delivery, Delivery::Maybe);
        assert_eq!(
            unanswered("observe_ui", &lost).delivery,
            Delivery::NotDelivered
        );
        for e in [&unsent, &none] {
            for t in ["act_ui", "find_roots"] {
                let err = unanswered(t, e);
                assert_eq!(err.delivery, Delivery::NotDelivered, "{t}: {e}");
                assert_eq!(err.code, ErrorCode::BackendUnavailable);
            }
        }
    }
}
