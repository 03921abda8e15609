//! Acting on one root: each step is grounded (a ref of the base state, or a point of its
//! image), delivered — semantically through AT-SPI first, with physical XTEST input only where
//! semantics cannot do the step and the policy allows it — and verified, and the batch stops at
//! the first step that did not work.
//!
//! # Layout
//! Semantic steps, one file per AT-SPI interface, each with its read-back:
//! - `press`: `Action` (press, check/uncheck, expand/collapse);
//! - `text`: `EditableText` (setText, typeText at the caret);
//! - `value`: `Value` (setValue, scroll bars);
//! - `select`: `Selection` (select).
//!
//! Physical steps, with XTEST:
//! - `deliver`: the one path they share: input lock → interaction lease → live grounding →
//!   window activation → hit test → input;
//! - `pointer`: click, moveMouse, hover, drag, wheel;
//! - `keyboard`: focus (`GrabFocus` moves the keyboard, so it holds the input too), keypress,
//!   typeText on the keyboard.
//!
//! And `verify`: live readings, the app's events, and what counts as evidence; `landing`:
//! whether a click reached its element (the toolkit's hit test, and which reactions are the
//! element's); `precise`: the short waits of verification, timed to a tenth of a millisecond.
//!
//! # Fallback rule
//! A semantic attempt falls back to physical input only when it provably sent nothing (the
//! element offers no suitable action or interface). Once something may have been delivered,
//! an unobserved effect is `unknown` and is never replayed with the pointer: replaying could
//! act twice. Under `headless: true` nothing physical happens at all: the step fails with
//! `foreground_required` and `not_delivered`.
//!
//! The batch itself (order, stop rules, deadline, `wait`) is core's `run_batch`; validation,
//! lanes, epochs, the `expect` postcondition, the successor observation and root changes are
//! the service's (`act_ui.rs`); this module performs one step at a time.

mod deliver;
mod keyboard;
mod landing;
mod menu;
mod nested;
mod pixels;
mod pointer;
mod precise;
mod press;
mod select;
mod text;
mod text_mark;
mod value;
mod verify;

pub(crate) use verify::settle_deferred;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use uidriver_core::GroundingMethod;

use async_trait::async_trait;
use uidriver_core::{
    run_batch, ActRequest, Deadline, Delivery, ElementRef, Error, ErrorCode, Node, Result, State,
    Step, StepDriver, StepReport,
};

use crate::atspi::connection::Caller;
use crate::atspi::{accessible, action, Ifaces, Obj};
use crate::error::LinuxError;
use crate::roots::Target;
use crate::LinuxBackend;

/// Calls in flight for one act (steps are sequential; a step reads a few things at once).
const IN_FLIGHT: usize = 8;

/// Everything a step needs: the backend, the request, the root's live target and one caller.
pub(crate) struct Ctx<'a> {
    pub(crate) backend: &'a LinuxBackend,
    /// The accessibility bus attachment the target was listed on (its events, its bus names).
    pub(crate) att: std::sync::Arc<crate::link::Attachment>,
    pub(crate) state: &'a State,
    pub(crate) headless: bool,
    pub(crate) input: &'a uidriver_core::InputLock,
    pub(crate) target: Target,
    pub(crate) caller: Caller,
    pub(crate) deadline: Deadline,
    /// Set by a step's watch when the app announced a new top-level window.
    pub(crate) opened: AtomicBool,
    /// Object paths of the base state's elements (to tell new objects from known ones).
    pub(crate) known: HashSet<String>,
    /// The managed windows before the first step (None without X11).
    windows_before: Option<Vec<u32>>,
    /// Objects whose events are not evidence (`verify::churn_paths`).
    churn: HashSet<String>,
    /// The call checks an `expect` after the steps: input whose effect shows nowhere is left
    /// to it sooner (see [`Ctx::unconfirmed_wait`]).
    pub(crate) expect_follows: bool,
    /// When the batch began: only its own steps' reactions are waited out before a step.
    started: std::time::Instant,
    /// The caller waits out the last step's aftermath beside its look
    /// (`ActRequest::defer_settle`; see [`verify::Watch::settle`]).
    defer_settle: bool,
    /// The index of the batch's last step, and of the step running now.
    last_step: usize,
    current_step: std::sync::atomic::AtomicUsize,
}

/// Runs the steps of `req` through the shared runner ([`run_batch`]), this module performing
/// each.
pub(crate) async fn run(
    backend: &LinuxBackend,
    req: ActRequest<'_>,
    deadline: Deadline,
) -> Result<Vec<StepReport>> {
    let (att, target) = backend.target(req.root, deadline).await?;
    let caller = att
        .bus
        .caller(deadline, backend.inner.config.call_timeout, IN_FLIGHT);
    // Deferred only where `settle_after_act` finds the same app: the root's target's.
    let defer_settle = req.defer_settle && target.app.is_some();
    let mut ctx = Ctx {
        backend,
        att,
        state: req.state,
        headless: req.headless,
        input: req.input,
        target,
        caller,
        deadline,
        expect_follows: req.expect_follows,
        started: std::time::Instant::now(),
        defer_settle,
        last_step: req.steps.len().saturating_sub(1),
        current_step: std::sync::atomic::AtomicUsize::new(0),
        opened: AtomicBool::new(false),
        known: req
            .state
            .snapshot
            .nodes
            .iter()
            .filter_map(|n| n.handle.rsplit_once(':').map(|(_, p)| p.to_string()))
            .collect(),
        windows_before: None,
        churn: verify::churn_paths(req.state),
    };
    ctx.windows_before = listed_windows(&ctx).await;
    Ok(run_batch(&ctx, req.steps, req.headless, deadline).await)
}

#[async_trait]
impl StepDriver for Ctx<'_> {
    /// One step; keys into a region with no accessible content are also checked by its pixels.
    async fn perform(&self, r: &mut StepReport, step: &Step) {
        self.current_step.store(r.index, Ordering::Relaxed);
        let region = pixels::before(self, step).await;
        self.perform_step(r, step).await;
        if let Some(before) = region {
            pixels::verify(self, r, step, before).await;
        }
    }

    /// A step after which the app announced a new top-level window waits until the window
    /// manager lists it, so the root listing that follows the act shows it.
    async fn settled(&self, _: &StepReport) {
        if self.opened.swap(false, Ordering::Relaxed) {
            if let Some(before) = &self.windows_before {
                await_new_window(self, before).await;
            }
        }
    }
}

impl Ctx<'_> {
    async fn perform_step(&self, r: &mut StepReport, step: &Step) {
        match step {
            Step::Press(e) => press::press(self, r, *e).await,
            Step::Check(e) => press::set_checked(self, r, *e, true).await,
            Step::Uncheck(e) => press::set_checked(self, r, *e, false).await,
            Step::Expand(e) => press::set_expanded(self, r, *e, true).await,
            Step::Collapse(e) => press::set_expanded(self, r, *e, false).await,
            Step::Select(e, v) => select::select(self, r, *e, v).await,
            Step::SetText(e, t) => text::set_text(self, r, *e, t).await,
            Step::TypeText(Some(e), t) => text::type_text(self, r, *e, t).await,
            Step::TypeText(None, t) => keyboard::type_text(self, r, None, t).await,
            Step::SetValue(e, v) => value::set_value(self, r, *e, *v).await,
            Step::Focus(e) => keyboard::focus(self, r, *e).await,
            Step::Scroll { target, dx, dy } => value::scroll(self, r, target, *dx, *dy).await,
            Step::Keypress(e, keys) => keyboard::keypress(self, r, *e, keys).await,
            Step::Click {
                target,
                button,
                count,
            } => pointer::click(self, r, target, *button, *count).await,
            Step::MoveMouse(t) => pointer::move_mouse(self, r, t, false).await,
            Step::Hover(t) => pointer::move_mouse(self, r, t, true).await,
            Step::Drag { path, from, button } => pointer::drag(self, r, path, *from, *button).await,
            Step::Wait(_) => {}
            Step::SetFiles(..) => {
                r.error = Some(uidriver_core::action::set_files_unsupported(
                    "a desktop app",
                ))
            }
        }
    }
}

/// Longest wait for a window the app announced to be managed by the window manager.
const NEW_WINDOW_WAIT: Duration = Duration::from_secs(2);

/// Ids of the managed windows now (None without a display server).
async fn listed_windows(ctx: &Ctx<'_>) -> Option<Vec<u32>> {
    let x = ctx.backend.inner.desk.as_ref()?;
    x.run(ctx.deadline.cap(Duration::from_millis(500)), |c| {
        c.desktop()
            .map(|d| d.windows.iter().map(|w| w.id).collect())
    })
    .await
    .ok()
}

/// How the managed windows changed since `before` for this root: its own window gone (a
/// dialog that closed), or a new shown window of its app; `None` when neither, or unknown.
pub(crate) async fn window_change(ctx: &Ctx<'_>, before: &[u32]) -> Option<String> {
    window_change_of(ctx, before, true).await
}

/// Whether the root's own window is no longer shown: a dialog the step closed without a word
/// (GTK 4's file chooser after its Save button's action).
pub(crate) async fn root_window_closed(ctx: &Ctx<'_>) -> bool {
    match ctx.window() {
        Some(own) => window_change_of(ctx, &[own], false).await.is_some(),
        None => false,
    }
}

async fn window_change_of(ctx: &Ctx<'_>, before: &[u32], new_too: bool) -> Option<String> {
    let x = ctx.backend.inner.desk.as_ref()?;
    let own = ctx.window();
    let pid = ctx.target.info.pid;
    let before = before.to_vec();
    x.run(ctx.deadline.cap(Duration::from_millis(500)), move |c| {
        c.desktop().map(|d| {
            let shown = |id: u32| d.windows.iter().any(|w| w.id == id && !w.hidden);
            if own.is_some_and(|id| before.contains(&id) && !shown(id)) {
                return Some("the root's window closed".to_string());
            }
            d.windows
                .iter()
                .filter(|_| new_too)
                .find(|w| of_app(pid, w.pid) && !w.hidden && !before.contains(&w.id))
                .map(|w| match w.pid {
                    Some(p) if Some(p) != pid => format!(
                        "a new window of a process the app started opened (0x{:x}, pid {p})",
                        w.id
                    ),
                    _ => format!("a new window of the app opened (0x{:x})", w.id),
                })
        })
    })
    .await
    .ok()
    .flatten()
}

/// Whether a window of process `window` belongs to the app of process `app`: its own, or of a
/// process it started (GIMP's export plug-ins, a dialog the app runs with zenity).
fn of_app(app: Option<u32>, window: Option<u32>) -> bool {
    match (app, window) {
        (Some(a), Some(w)) => a == w || crate::procfs::is_self_or_ancestor(a, w),
        _ => false,
    }
}

/// The managed windows now (for [`window_change`] after a step).
pub(crate) async fn windows_now(ctx: &Ctx<'_>) -> Option<Vec<u32>> {
    listed_windows(ctx).await
}

/// After the app announced a new top-level window (a dialog), waits until the window manager
/// lists a new mapped window of the app, so the root listing that follows the act shows it.
/// GTK 3 announces a file chooser ~150 ms after ctrl+s and maps it a little later.
async fn await_new_window(ctx: &Ctx<'_>, before: &[u32]) {
    let (Some(x), Some(pid)) = (ctx.backend.inner.desk.as_ref(), ctx.target.info.pid) else {
        return;
    };
    let until = ctx.deadline.cap(NEW_WINDOW_WAIT);
    while !until.expired() {
        let before = before.to_vec();
        let found = x
            .run(until, move |c| {
                c.desktop().map(|d| {
                    d.windows
                        .iter()
                        .any(|w| of_app(Some(pid), w.pid) && !w.hidden && !before.contains(&w.id))
                })
            })
            .await
            .unwrap_or(false);
        if found {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    tracing::debug!("the announced window was not listed in time");
}

/// A ref of the base state resolved to its node and live object.
pub(crate) struct Element<'a> {
    pub(crate) r: ElementRef,
    pub(crate) index: usize,
    pub(crate) node: &'a Node,
    pub(crate) obj: Obj,
}

impl<'a> Ctx<'a> {
    /// The toolkit of the target's application (`Other` when it is not on AT-SPI).
    pub(crate) fn toolkit(&self) -> crate::roots::Toolkit {
        self.target
            .app
            .as_ref()
            .map_or(crate::roots::Toolkit::Other, |a| a.toolkit)
    }

    /// How long keys or a click wait for an effect that may never show (`Return` in an entry
    /// answers nothing): [`verify::SETTLE`], or a fifth of it when the call's `expect` judges
    /// the result anyway.
    pub(crate) fn unconfirmed_wait(&self) -> std::time::Duration {
        if self.expect_follows {
            verify::SETTLE / 5
        } else {
            verify::SETTLE
        }
    }

    /// Records `e` as the step's grounding and finds its node, with its live object when it
    /// has one (none: known only from the image). `None`, with `stale_ref`, when the state does
    /// not hold it. Both ways of grounding a ref start here, so they agree on what is stale.
    fn ground_ref(
        &self,
        r: &mut StepReport,
        e: ElementRef,
    ) -> Option<(usize, &'a Node, Option<Obj>)> {
        r.grounding.method = GroundingMethod::Ref;
        r.grounding.r#ref = Some(e);
        let state: &'a State = self.state;
        let Ok(index) = state.resolve(e) else {
            r.error = Some(Error::new(
                ErrorCode::StaleRef,
                format!("{e} is not in this state"),
            ));
            return None;
        };
        let node = &state.snapshot.nodes[index];
        Some((index, node, Obj::from_handle(&node.handle)))
    }

    /// Resolves a ref and records it as the step's grounding.
    pub(crate) fn element(&self, r: &mut StepReport, e: ElementRef) -> Option<Element<'a>> {
        let (index, node, obj) = self.ground_ref(r, e)?;
        match obj {
            Some(obj) => Some(Element {
                r: e,
                index,
                node,
                obj,
            }),
            None => {
                r.error = Some(
                    Error::new(
                        ErrorCode::NotSupported,
                        format!("{e} is known only from the image (no accessible object)"),
                    )
                    .with_hint("Use click (or press) on it: only pointer input can reach it."),
                );
                None
            }
        }
    }

    /// [`Ctx::element`] and what it offers now ([`live`]); `None` once the step's error is
    /// recorded (stale, gone, unanswered), before anything was sent.
    pub(crate) async fn live_element(
        &self,
        r: &mut StepReport,
        e: ElementRef,
    ) -> Option<(Element<'a>, Live)> {
        let el = self.element(r, e)?;
        match live(&self.caller, &el).await {
            Ok(l) => Some((el, l)),
            Err(err) => {
                r.error = Some(err);
                None
            }
        }
    }

    /// A ref grounded for the pointer: its live accessible object, or — for an element known
    /// only from the state's pixels (OCR text, a window without an accessibility tree) — the
    /// centre of its box, valid while the window still matches the image (the frame check).
    pub(crate) fn pointer_ref(&self, r: &mut StepReport, e: ElementRef) -> Option<RefAim<'a>> {
        let (index, node, obj) = self.ground_ref(r, e)?;
        if let Some(obj) = obj {
            return Some(RefAim::Live(Element {
                r: e,
                index,
                node,
                obj,
            }));
        }
        match (node.bounds, &self.state.image) {
            (Some(b), Some(_)) if b.is_visible() => Some(RefAim::Pixels(b.center())),
            _ => {
                r.error = Some(Error::new(
                    ErrorCode::NotSupported,
                    format!("{e} has no accessible object and no box in the state's image"),
                ));
                None
            }
        }
    }

    /// The application bus of the root (for events of keyboard steps without a ref).
    pub(crate) fn app_bus(&self) -> Option<String> {
        self.target.app.as_ref().map(|a| a.bus.clone()).or_else(|| {
            self.state
                .snapshot
                .nodes
                .first()
                .and_then(|n| Obj::from_handle(&n.handle))
                .map(|o| o.bus)
        })
    }

    /// Starts watching `bus`'s events for a step (see `verify.rs`).
    pub(crate) async fn watch(&self, bus: &str) -> verify::Watch<'_> {
        verify::Watch::start(
            &self.att.events,
            bus,
            Some(&self.opened),
            Some(&self.known),
            Some(self.started),
        )
        .await
        .ignoring(&self.churn)
        .deferring(
            self.defer_settle
                && self.current_step.load(Ordering::Relaxed) == self.last_step
                && self.target.app.as_ref().is_some_and(|a| a.bus == bus),
        )
    }

    /// The root's X11 window, when it has one.
    pub(crate) fn window(&self) -> Option<u32> {
        self.target
            .info
            .window_id
            .and_then(|w| u32::try_from(w).ok())
    }
}

/// Where a pointer step aims for a ref (see [`Ctx::pointer_ref`]).
pub(crate) enum RefAim<'a> {
    /// An accessible element: its extents are read again under the lease.
    Live(Element<'a>),
    /// Screen pixels from the state's image (OCR boxes): frame-checked before input.
    Pixels((i32, i32)),
}

/// What a live element offers right now (read at act time: the state may be old).
pub(crate) struct Live {
    pub(crate) ifaces: Ifaces,
    pub(crate) reading: verify::Reading,
    pub(crate) actions: Vec<String>,
}

/// Reads interfaces, states, name and action names of an element. A vanished element is
/// `stale_ref` (nothing sent), an unanswered call `app_unresponsive`.
pub(crate) async fn live(c: &Caller, e: &Element<'_>) -> std::result::Result<Live, Error> {
    let (ifaces, reading) =
        tokio::join!(accessible::interfaces(c, &e.obj), verify::read(c, &e.obj));
    let gone = || {
        Error::new(
            ErrorCode::StaleRef,
            format!("{} no longer exists (its widget was destroyed)", e.r),
        )
    };
    let ifaces = match ifaces {
        Ok(i) => i,
        Err(err) if err.is_gone() => return Err(gone()),
        Err(err) => return Err(err.into()),
    };
    let reading = reading.map_err(Error::from)?.ok_or_else(gone)?;
    let actions = if ifaces.has(Ifaces::ACTION) {
        action::names(c, &e.obj).await.unwrap_or_default()
    } else {
        Vec::new()
    };
    Ok(Live {
        ifaces,
        reading,
        actions,
    })
}

/// The first of `wanted` (in priority order) the element offers, with its index.
pub(crate) fn pick_action(actions: &[String], wanted: &[&str]) -> Option<(i32, String)> {
    wanted.iter().find_map(|w| {
        actions
            .iter()
            .position(|a| a.eq_ignore_ascii_case(w))
            .map(|i| (i as i32, actions[i].clone()))
    })
}

/// Records a refusal before anything was sent.
pub(crate) fn refuse(r: &mut StepReport, code: ErrorCode, message: impl Into<String>) {
    r.delivery.delivered = Delivery::NotDelivered;
    r.error = Some(Error::new(code, message));
}

/// Records a semantic call that failed. Only a missing interface or method before anything
/// else of the step was delivered proves that nothing was sent; any other failure may have
/// reached the app (`maybe`), so the step is never repeated by other means.
pub(crate) fn semantic_failed(r: &mut StepReport, err: LinuxError) {
    let d = if r.delivery.delivered != Delivery::Delivered
        && matches!(err, LinuxError::Unsupported { .. })
    {
        Delivery::NotDelivered
    } else {
        Delivery::Maybe
    };
    r.delivery.delivered = d;
    r.error = Some(Error::from(err).delivered(d));
}

/// Records the answer of a semantic call that says whether the toolkit accepted it
/// (`SetTextContents`, `InsertText`, `SelectChild`): `true` is delivered, `false` a refusal
/// that sent nothing (`refused` says what was refused), a failure as [`semantic_failed`].
/// Returns whether it was delivered (and verification should follow).
pub(crate) fn record_answer(
    r: &mut StepReport,
    answer: std::result::Result<bool, LinuxError>,
    refused: impl FnOnce() -> String,
) -> bool {
    match answer {
        Ok(true) => {
            r.delivery.delivered = Delivery::Delivered;
            true
        }
        Ok(false) => {
            r.delivery.delivered = Delivery::NotDelivered;
            r.error = Some(Error::new(ErrorCode::NotSupported, refused()));
            false
        }
        Err(err) => {
            semantic_failed(r, err);
            false
        }
    }
}

/// Records a step whose wanted state already holds (`detail` says which): verified, and
/// nothing was sent.
pub(crate) fn nothing_to_send(r: &mut StepReport, detail: String) {
    r.verification.passed = Some(true);
    r.verification.detail = Some(format!("{detail}: nothing was sent"));
}

/// `foreground_required`: the step needs physical input and the policy forbids it.
pub(crate) fn needs_foreground(r: &mut StepReport, why: &str) {
    refuse(
        r,
        ErrorCode::ForegroundRequired,
        format!("{why}; headless: true forbids pointer, keyboard and focus changes, and nothing was sent"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_picked_by_priority_not_platform_order() {
        let a: Vec<String> = ["toggle", "click", "activate"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            pick_action(&a, &["activate", "click"]),
            Some((2, "activate".into()))
        );
        assert_eq!(pick_action(&a, &["Toggle"]), Some((0, "toggle".into())));
        assert_eq!(pick_action(&a, &["expand"]), None);
    }
}
