//! One attached page: commands on its session, the isolated JS world our scripts run in, the
//! handles of elements the walker numbered, navigation with a load wait, evaluation in the
//! page's own world, and waiting for a change. Its cross-origin frames, read as pages of their
//! own, are `page/frames.rs` (a child module: the same `Page`, and the registry it holds).
//! Turning the walker's output into a snapshot is `extract.rs`; actions are `act.rs`.

mod frames;
mod navigation;

pub(crate) use navigation::{AFTER_DIALOG, AFTER_INPUT};

pub(crate) use frames::{FrameDoc, MAX_FRAME_DEPTH};

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;
use uidriver_core::{Deadline, Navigation};

use frames::Frames;

use crate::client::Client;
use crate::dialog_state::{Dialogs, OpenDialog};
use crate::error::{CdpError, CdpResult};
use crate::log::PageLog;
use crate::protocol::{
    CallArgument, CallFunctionOn, Command, CreateIsolatedWorld, Evaluate, Evaluated,
    GetNavigationHistory, Navigate, NavigateToHistoryEntry, NetworkEnable, PageEnable,
    ReleaseObject, Reload, RuntimeEnable,
};

/// The walker source (see `walker.js`): an expression whose value is `walk(opts)`.
pub const WALKER_JS: &str = include_str!("walker.js");

/// Name of our isolated world (shown in DevTools' context picker).
const WORLD: &str = "uidriver";
/// Worlds made for one evaluation before a changing document is reported.
const WORLD_ATTEMPTS: usize = 3;
/// Pause before the last attempt.
const WORLD_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// An attached page session.
pub struct Page {
    client: Arc<Client>,
    /// The target (and main frame) id; for a frame page (`page/frames.rs`), the frame id.
    pub target_id: String,
    session: String,
    // A std mutex: the context id is read or replaced, never held across an await.
    world: Mutex<Option<i64>>,
    /// Cross-origin frames read from this page (see `page/frames.rs`).
    pub(crate) frames: Frames,
    /// The tab's JavaScript dialog (shared by its frame pages; see `dialog_state.rs`).
    dialogs: Arc<Dialogs>,
    /// Console, errors and requests of a top page (`log.rs`); None for frame pages.
    log: Option<Arc<PageLog>>,
}

impl Page {
    pub(crate) fn new(
        client: Arc<Client>,
        target_id: &str,
        session: String,
        dialogs: Arc<Dialogs>,
    ) -> Self {
        Page {
            client,
            target_id: target_id.to_string(),
            session,
            world: Mutex::new(None),
            frames: Frames::default(),
            dialogs,
            log: None,
        }
    }

    /// The page with its logs recorded (top pages; `enable` turns the domains on).
    pub(crate) fn with_log(mut self) -> Self {
        self.log = Some(PageLog::start(&self.client, &self.session));
        self
    }

    /// The page's logs, when recorded.
    pub(crate) fn log(&self) -> Option<&PageLog> {
        self.log.as_deref()
    }

    /// The dialog state of this page's tab.
    pub(crate) fn dialogs(&self) -> Arc<Dialogs> {
        self.dialogs.clone()
    }

    /// The JavaScript dialog open on this page's tab, if any.
    pub(crate) fn dialog(&self) -> Option<OpenDialog> {
        self.dialogs.open()
    }

    pub(crate) fn client(&self) -> Arc<Client> {
        self.client.clone()
    }

    pub(crate) fn session(&self) -> &str {
        &self.session
    }

    /// Turns on the domains whose events we wait for (and, for a page whose logs are
    /// recorded, Runtime and Network: all sent at once, so a page held at its start has them
    /// on before its first script runs).
    pub(crate) async fn enable(&self, deadline: Deadline) -> CdpResult<()> {
        let logs = async {
            if self.log.is_some() {
                let (r, n) = tokio::join!(
                    self.send(&RuntimeEnable {}, deadline),
                    self.send(&NetworkEnable {}, deadline)
                );
                if let Err(e) = r.and(n) {
                    tracing::debug!(error = %e, "page logs not enabled");
                }
            }
        };
        let (page, ()) = tokio::join!(self.send(&PageEnable {}, deadline), logs);
        match page {
            // A dialog opened as the domain came on: the page is attached, and it is known.
            Err(CdpError::Dialog(_)) => Ok(()),
            r => r.map(|_| ()),
        }
    }

    /// Sends a command on this page's session; a vanished session becomes `TargetClosed`, and
    /// a JavaScript dialog refuses or ends the commands it blocks ([`Dialogs::bound`]).
    pub async fn send<C: Command>(&self, cmd: &C, deadline: Deadline) -> CdpResult<C::Output> {
        let sent = self.client.send(Some(&self.session), cmd, deadline);
        self.dialogs.bound(C::METHOD, sent).await.map_err(|e| {
            if e.is_target_gone() {
                CdpError::TargetClosed(e.to_string())
            } else {
                e
            }
        })
    }

    /// Sends a command by name and returns the undecoded reply (for large replies that are
    /// only measured).
    pub async fn send_raw<P: serde::Serialize>(
        &self,
        method: &'static str,
        params: &P,
        deadline: Deadline,
    ) -> CdpResult<Option<Box<serde_json::value::RawValue>>> {
        self.client
            .send_raw(Some(&self.session), method, params, deadline)
            .await
    }

    /// Commands sent on the browser's socket so far (for timings).
    pub fn calls(&self) -> u64 {
        self.client.calls()
    }

    /// The isolated world's context id, creating the world when the document changed.
    async fn world(&self, deadline: Deadline) -> CdpResult<i64> {
        if let Some(id) = self.world.lock().ok().and_then(|w| *w) {
            return Ok(id);
        }
        let w = self
            .send(
                &CreateIsolatedWorld {
                    frame_id: &self.target_id,
                    world_name: WORLD,
                },
                deadline,
            )
            .await?;
        if let Ok(mut g) = self.world.lock() {
            *g = Some(w.execution_context_id);
        }
        Ok(w.execution_context_id)
    }

    fn drop_world(&self) {
        if let Ok(mut g) = self.world.lock() {
            *g = None;
        }
    }

    /// Evaluates in our isolated world, recreating it if the document was replaced (up to
    /// [`WORLD_ATTEMPTS`] times: a page just opened by `window.open` replaces its document
    /// twice, `about:blank` first, so a look can meet both).
    pub async fn eval_world(
        &self,
        expression: &str,
        by_value: bool,
        deadline: Deadline,
    ) -> CdpResult<Evaluated> {
        self.eval_world_tries(expression, by_value, deadline, WORLD_ATTEMPTS, false)
            .await
    }

    /// [`Page::eval_world`] with `tries` worlds at most. Waiting for a change takes two: one
    /// for a world left from an earlier document, and the second losing its document *is* the
    /// change (a third would wait on the next page instead). With `navigation_ends`, an
    /// evaluation cut short by a navigation (the page moved to another renderer while it ran)
    /// is returned rather than tried again in the next document.
    async fn eval_world_tries(
        &self,
        expression: &str,
        by_value: bool,
        deadline: Deadline,
        tries: usize,
        navigation_ends: bool,
    ) -> CdpResult<Evaluated> {
        for attempt in 0..tries {
            if attempt > 1 {
                // Let the navigation that replaced the document settle.
                tokio::time::sleep(WORLD_RETRY_PAUSE.min(deadline.remaining())).await;
            }
            let ctx = self.world(deadline).await?;
            let r = self
                .send(
                    &Evaluate {
                        expression,
                        context_id: Some(ctx),
                        return_by_value: by_value,
                        await_promise: true,
                        user_gesture: false,
                    },
                    deadline,
                )
                .await;
            let last = attempt + 1 == tries;
            match r {
                Err(e) if navigation_ends && navigated(&e) => {
                    self.drop_world();
                    return Err(e);
                }
                Err(e) if !last && context_gone(&e) => self.drop_world(),
                Ok(ev)
                    if !last
                        && ev
                            .exception_details
                            .as_ref()
                            .is_some_and(|x| context_gone_text(&x.message())) =>
                {
                    self.drop_world()
                }
                r => return r,
            }
        }
        Err(CdpError::PageScript(
            "the page's document kept changing".into(),
        ))
    }

    /// Evaluates in the world and returns the JSON value, turning a thrown exception into
    /// [`CdpError::PageScript`].
    pub async fn eval_value(&self, expression: &str, deadline: Deadline) -> CdpResult<Value> {
        let ev = self.eval_world(expression, true, deadline).await?;
        if let Some(x) = ev.exception_details {
            return Err(CdpError::PageScript(x.message()));
        }
        Ok(ev.result.value.unwrap_or(Value::Null))
    }

    /// Calls `function` with `this` bound to a remote object; returns the value (by value).
    pub async fn call_on(
        &self,
        object_id: &str,
        function: &str,
        args: Vec<CallArgument>,
        deadline: Deadline,
    ) -> CdpResult<Value> {
        let ev = self
            .send(
                &CallFunctionOn {
                    function_declaration: function,
                    object_id: Some(object_id),
                    execution_context_id: None,
                    arguments: args,
                    return_by_value: true,
                    await_promise: true,
                },
                deadline,
            )
            .await?;
        if let Some(x) = ev.exception_details {
            return Err(CdpError::PageScript(x.message()));
        }
        Ok(ev.result.value.unwrap_or(Value::Null))
    }

    /// The remote object of an element the walker numbered, or None when it is gone (removed
    /// from the document, or the document was replaced so the nonce differs).
    pub async fn element(
        &self,
        nonce: &str,
        id: u64,
        deadline: Deadline,
    ) -> CdpResult<Option<String>> {
        let expr = format!(
            "(() => {{ const U = globalThis[Symbol.for('uidriver')]; \
             return U && U.nonce === {n} ? U.get({id}) : null; }})()",
            n = Value::String(nonce.to_string())
        );
        let ev = self.eval_world(&expr, false, deadline).await?;
        if let Some(x) = ev.exception_details {
            return Err(CdpError::PageScript(x.message()));
        }
        Ok(ev.result.object_id)
    }

    /// Releases a remote object (best effort).
    pub async fn release(&self, object_id: &str) {
        let d = Deadline::after(Duration::from_secs(1));
        let _ = self.send(&ReleaseObject { object_id }, d).await;
    }

    /// The isolated world's context id (for `DOM.resolveNode`).
    pub async fn world_context(&self, deadline: Deadline) -> CdpResult<i64> {
        self.world(deadline).await
    }

    /// Navigates and waits for the load event (or, for same-document navigations, for the
    /// navigation to be committed). Scheme checks are the caller's.
    pub async fn navigate(&self, nav: &Navigation, deadline: Deadline) -> CdpResult<()> {
        let mut events = self.client.events();
        let wait_load = match nav {
            Navigation::Url(url) => {
                let r = self.send(&Navigate { url }, deadline).await?;
                if let Some(err) = r.error_text.filter(|e| !e.is_empty()) {
                    return Err(CdpError::Navigation(format!("navigation failed: {err}")));
                }
                r.loader_id.is_some()
            }
            Navigation::Reload => {
                self.send(&Reload {}, deadline).await?;
                true
            }
            Navigation::Back | Navigation::Forward => {
                let h = self.send(&GetNavigationHistory {}, deadline).await?;
                let idx = match nav {
                    Navigation::Back => h.current_index.checked_sub(1),
                    _ => Some(h.current_index + 1).filter(|i| *i < h.entries.len()),
                };
                let Some(entry) = idx.and_then(|i| h.entries.get(i)) else {
                    return Err(CdpError::Navigation(
                        "there is no history entry in that direction".into(),
                    ));
                };
                self.send(&NavigateToHistoryEntry { entry_id: entry.id }, deadline)
                    .await?;
                true
            }
        };
        // No need to drop the world here: a replaced document destroys its context, and the
        // next evaluation recreates it (see `eval_world`).
        if !wait_load {
            return Ok(());
        }
        // History navigations may be served from the back/forward cache or stay in the same
        // document; either event ends the wait.
        let done = [
            "Page.loadEventFired",
            "Page.navigatedWithinDocument",
            "Page.frameStoppedLoading",
        ];
        let wait = async {
            loop {
                match events.recv().await {
                    Ok(ev) if ev.session_id.as_deref() == Some(&self.session) => {
                        if ev.method == "Page.loadEventFired"
                            || (!matches!(nav, Navigation::Url(_) | Navigation::Reload)
                                && done.contains(&ev.method.as_str()))
                        {
                            return Ok(());
                        }
                        if ev.method == "Inspector.detached"
                            || ev.method == "Inspector.targetCrashed"
                        {
                            return Err(CdpError::TargetClosed(ev.method.clone()));
                        }
                    }
                    Ok(_) => {}
                    Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return Err(CdpError::Closed),
                }
            }
        };
        tokio::time::timeout(deadline.remaining(), wait)
            .await
            .map_err(|_| CdpError::Timeout("waiting for the page to load"))?
    }

    /// Evaluates an expression in the page's own world (its globals), awaiting promises, and
    /// returns the result as JSON: values JSON cannot carry are returned as strings.
    pub async fn evaluate(&self, expression: &str, deadline: Deadline) -> CdpResult<Value> {
        let ev = self
            .send(
                &Evaluate {
                    expression,
                    context_id: None,
                    return_by_value: true,
                    await_promise: true,
                    user_gesture: true,
                },
                deadline,
            )
            .await?;
        if let Some(x) = ev.exception_details {
            return Err(CdpError::Script(x.message()));
        }
        let r = ev.result;
        Ok(match (r.value, r.unserializable_value) {
            (Some(v), _) => v,
            (None, Some(u)) => Value::String(u),
            (None, None) => Value::Null,
        })
    }

    /// Resolves at the first DOM mutation, input or scroll in the page (same-origin frames
    /// included), at a navigation, at a dialog opening or closing, or at the deadline.
    pub async fn wait_change(&self, deadline: Deadline) -> CdpResult<()> {
        if self.dialog().is_some() {
            self.dialogs.wait_change(deadline).await;
            return Ok(());
        }
        match self.wait_content(deadline).await {
            Err(CdpError::Dialog(_)) => Ok(()),
            r => r,
        }
    }

    /// [`Page::wait_change`] of the documents.
    async fn wait_content(&self, deadline: Deadline) -> CdpResult<()> {
        let frames = self.frame_pages();
        if frames.is_empty() {
            return self.wait_document(deadline).await;
        }
        // Cross-origin frames read so far are watched too; one that cannot be watched (gone)
        // simply never ends the wait.
        let mut waits: Vec<
            std::pin::Pin<Box<dyn std::future::Future<Output = CdpResult<()>> + Send + '_>>,
        > = vec![Box::pin(self.wait_document(deadline))];
        for f in frames {
            waits.push(Box::pin(async move {
                match f.wait_document(deadline).await {
                    Ok(()) => Ok(()),
                    Err(_) => std::future::pending().await,
                }
            }));
        }
        futures_util::future::select_all(waits).await.0
    }

    /// [`Page::wait_change`] for this page's own document.
    async fn wait_document(&self, deadline: Deadline) -> CdpResult<()> {
        let ms = deadline.remaining().as_millis().min(60_000);
        let expr = format!("({WAIT_JS})({ms})");
        // The script resolves itself at the deadline; the command gets a little longer.
        let d = Deadline::after(deadline.remaining() + Duration::from_millis(500));
        match self.eval_world_tries(&expr, true, d, 2, true).await {
            Ok(_) => Ok(()),
            // The document went away: that is a change.
            Err(e) if context_gone(&e) => Ok(()),
            Err(CdpError::PageScript(m)) if context_gone_text(&m) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Watches the document (and same-origin frames) for one change.
const WAIT_JS: &str = include_str!("js/wait.js");

fn context_gone(e: &CdpError) -> bool {
    match e {
        CdpError::Protocol { message, .. } => context_gone_text(message),
        _ => false,
    }
}

/// Whether a command was cut short because the page navigated while it ran (a cross-site
/// navigation moves the page to another renderer; the session stays).
fn navigated(e: &CdpError) -> bool {
    matches!(e, CdpError::Protocol { message, .. } if message.contains("Inspected target navigated or closed"))
}

fn context_gone_text(m: &str) -> bool {
    m.contains("Cannot find context with specified id")
        || m.contains("Execution context was destroyed")
        || m.contains("Cannot find default execution context")
        || m.contains("Inspected target navigated or closed")
}
