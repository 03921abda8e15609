//! What a caller gives a call besides its arguments: somewhere to send progress, a way to
//! cancel it, and the roots its files must lie under (`files.rs`). Transports build a [`CallContext`] (MCP from the request's `progressToken` and
//! its cancellation, the daemon from its protocol's `progress` flag and `cancel` op); tools
//! only name what they are doing ([`doing`]) and the act runs its batch under the
//! cancellation ([`cancellation`]).
//!
//! Progress is a heartbeat, not a per-tool duty: while a call runs with a sink, a notification
//! goes out every [`PERIOD`] with what the call is doing now and how long it has run, so a
//! host hears from every long call (observations, waits, batches, a browser launch) at least
//! once a second without each loop remembering to report. Cancellation stops a call at its
//! next safe point: a call that only reads is dropped at once (nothing it does can be half
//! sent); `act_ui` refuses the steps after the cancellation (core's `run_batch`); other acting
//! tools are one indivisible delivery each and finish.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use uidriver_core::{Error, ErrorCode};

use crate::files::FileAccess;
use crate::result::ToolResult;
use crate::shown::ViewerId;

/// How often a running call reports: under a second, so jitter never stretches a gap past one.
pub const PERIOD: Duration = Duration::from_millis(750);

/// One progress report.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Grows with every report of the call (MCP requires it to increase).
    pub progress: f64,
    /// What the call is doing, and for how long it has run.
    pub message: String,
}

/// Receives a call's progress reports, in order.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

/// A call's progress sink and cancellation. Clones share both.
#[derive(Clone, Default)]
pub struct CallContext {
    progress: Option<ProgressSink>,
    cancel: CancellationToken,
    /// What the call is doing now (set by the tool through [`doing`]).
    doing: Arc<Mutex<String>>,
    /// Where the files the call names may be (`files.rs`); `None`: the service's default.
    files: Option<FileAccess>,
    /// Who reads the result (an MCP session), so a second look can be shown as what changed
    /// (`shown.rs`); `None`: an anonymous caller, always shown the whole outline.
    viewer: Option<ViewerId>,
}

impl CallContext {
    /// A context cancelled by `cancel` (e.g. rmcp's per-request token), without progress.
    pub fn new(cancel: CancellationToken) -> Self {
        CallContext {
            cancel,
            ..Default::default()
        }
    }

    /// Sends progress reports to `sink` while the call runs.
    pub fn with_progress(mut self, sink: ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    /// Confines the files the call names to `access` (the caller's roots).
    pub fn with_files(mut self, access: FileAccess) -> Self {
        self.files = Some(access);
        self
    }

    /// Names who reads the call's result (`shown.rs`).
    pub fn with_viewer(mut self, viewer: Option<ViewerId>) -> Self {
        self.viewer = viewer;
        self
    }

    /// Who reads the call's result, when the caller said.
    pub fn viewer(&self) -> Option<ViewerId> {
        self.viewer
    }

    /// The caller's file roots, when it gave them.
    pub fn files(&self) -> Option<&FileAccess> {
        self.files.as_ref()
    }

    /// Cancels the call (it stops at its next safe point).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The call's cancellation token.
    pub fn token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Where the call's progress goes, when the caller wants it.
    pub fn progress_sink(&self) -> Option<ProgressSink> {
        self.progress.clone()
    }

    fn set_doing(&self, what: String) {
        *self.doing.lock().unwrap_or_else(|p| p.into_inner()) = what;
    }

    fn doing_now(&self) -> String {
        self.doing.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Runs `work` (the call of `tool`) with this context in force: reports progress every
    /// [`PERIOD`], and answers `cancelled` at once when a call that only `reads` (the
    /// registry's read-only hint, which the caller looks up) is cancelled.
    pub(crate) async fn run(
        &self,
        tool: &str,
        reads: bool,
        work: impl std::future::Future<Output = ToolResult>,
    ) -> ToolResult {
        self.set_doing(format!("{tool}: starting"));
        let start = Instant::now();
        let work = CALL.scope(self.clone(), work);
        tokio::pin!(work);
        let mut tick = tokio::time::interval(PERIOD);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut n = 0u32;
        loop {
            tokio::select! {
                r = &mut work => return r,
                _ = tick.tick(), if self.progress.is_some() => {
                    n += 1;
                    if let Some(sink) = &self.progress {
                        sink(Progress {
                            progress: f64::from(n),
                            message: format!("{} ({:.1} s)", self.doing_now(), start.elapsed().as_secs_f64()),
                        });
                    }
                }
                () = self.cancel.cancelled(), if reads => {
                    tracing::info!(tool, elapsed = ?start.elapsed(), "a reading call was cancelled");
                    return ToolResult::error(&cancelled_read(tool, start.elapsed()));
                }
            }
        }
    }
}

/// `cancelled` for a call that only reads: dropped where it was, nothing sent.
fn cancelled_read(tool: &str, after: Duration) -> Error {
    Error::new(
        ErrorCode::Cancelled,
        format!(
            "{tool} was cancelled after {:.1} s; it only reads, so nothing was delivered",
            after.as_secs_f64()
        ),
    )
}

tokio::task_local! {
    /// The context of the call this task runs (set by [`CallContext::run`]), so tools reach it
    /// without every function between the dispatcher and a loop passing it on.
    static CALL: CallContext;
}

/// Says what the running call is doing now ("waiting for text "Saved" in @r3"); the next
/// progress report carries it. A no-op outside a call.
pub(crate) fn doing(what: impl Into<String>) {
    let _ = CALL.try_with(|c| c.set_doing(what.into()));
}

/// The file roots the running call's caller gave, if any.
pub(crate) fn file_access() -> Option<FileAccess> {
    CALL.try_with(|c| c.files.clone()).ok().flatten()
}

/// Who reads the running call's result, when its caller said.
pub(crate) fn viewer() -> Option<ViewerId> {
    CALL.try_with(|c| c.viewer).ok().flatten()
}

/// The running call's cancellation (a token nobody cancels outside a call).
pub(crate) fn cancellation() -> CancellationToken {
    CALL.try_with(CallContext::token).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink() -> (ProgressSink, Arc<Mutex<Vec<Progress>>>) {
        let got: Arc<Mutex<Vec<Progress>>> = Arc::default();
        let g = got.clone();
        (Arc::new(move |p| g.lock().unwrap().push(p)), got)
    }

    #[tokio::test(start_paused = true)]
    async fn a_long_call_reports_at_least_every_second_with_what_it_does() {
        let (s, got) = sink();
        let ctx = CallContext::default().with_progress(s);
        let work = async {
            doing("waiting for text \"Saved\"");
            tokio::time::sleep(Duration::from_secs(3)).await;
            ToolResult::ok("done".into(), &serde_json::json!({}))
        };
        let r = ctx.run("wait_for", true, work).await;
        assert!(!r.is_error);
        let got = got.lock().unwrap();
        // 3 s at one report per 0.75 s: the first at once, then 4 more.
        assert!(got.len() >= 4, "{got:?}");
        assert!(got.windows(2).all(|w| w[1].progress > w[0].progress));
        assert!(got
            .last()
            .unwrap()
            .message
            .starts_with("waiting for text \"Saved\" ("));
    }

    #[tokio::test(start_paused = true)]
    async fn a_cancelled_read_answers_at_once_and_an_act_runs_on() {
        let ctx = CallContext::default();
        let c = ctx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            c.cancel();
        });
        let slow = || async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            ToolResult::ok("finished".into(), &serde_json::json!({}))
        };
        let start = tokio::time::Instant::now();
        let r = ctx.run("wait_for", true, slow()).await;
        assert!(start.elapsed() < Duration::from_secs(1));
        assert!(r.is_error);
        assert_eq!(r.structured["error"]["code"], "cancelled");
        assert_eq!(r.structured["error"]["delivery"], "not_delivered");
        // An acting tool is not dropped mid-delivery: it sees the cancellation itself.
        let r = ctx.run("desktop_input", false, slow()).await;
        assert_eq!(r.text, "finished");
        let seen = CALL.scope(ctx.clone(), async { cancellation().is_cancelled() });
        assert!(seen.await);
        assert!(
            !cancellation().is_cancelled(),
            "outside a call nothing is cancelled"
        );
    }
}
