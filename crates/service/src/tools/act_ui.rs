//! `act_ui`: steps from one state, under the root's lane, with honest evidence.
//!
//! [`run`] reads as its phases, over an [`ActCall`] (what was asked, resolved) and an
//! [`ActReport`] (what happened), which [`render`] reads:
//! 1. `resolve`: every step, the postcondition and the deadline checked; the base state found,
//!    every ref resolved in it, coordinates only with an image; nothing sent yet.
//! 2. `enter_lane`: the root's lane taken; a state older than the resource's epoch refused;
//!    coordinates need the window where the image saw it (frame lease).
//! 3. `before`: the roots of the app noted, its browser's last download, and whether the
//!    postcondition already held (preexisting).
//! 4. `deliver`: the backend runs the steps under the call's cancellation (core's runner stops
//!    at the first that did not work; typing whose effect could not be read goes on); the
//!    epoch is bumped if anything may have been delivered.
//! 5. `after`: the postcondition watched (also after an `unknown` step) or a brief settle, the
//!    successor observed (beside the backend's wait for the rest of the last step's reaction,
//!    `settle_after_act`; looked at again when the app did not stay quiet), the roots compared;
//!    the lane left; the downloads the steps started.
//! 6. `render`: steps, downloads, expect verdict, root changes and the diff (or the full view
//!    when a diff would mislead).

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::action::validate_steps;
use uidriver_core::diff::{diff, full_view_reason, render_diff};
use uidriver_core::watch::{watch, End, Sighting, Watcher};
use uidriver_core::{
    ActRequest, Backend, Deadline, Delivery, Download, Error, ErrorCode, Expect, ExpectVerdict,
    LaneGuard, Outcome, RawStep, RootInfo, RootKind, RootRef, State, StateId, Step, StepReport,
};

use crate::forest::{root_changes, Listed};
use crate::look::{LookSpec, Mode};
use crate::render::{
    change_lines, download_line, state_out, successor_view, RootChanges, StateOut,
};
use crate::result::{error_text, ImageContent};
use crate::{Service, ToolResult};

/// Arguments of `act_ui`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// State (sN).
    pub state_id: StateId,
    /// Steps, in order.
    pub actions: Vec<RawStep>,
    /// Postcondition to await: wait_for's text, role, value, ref, scopeRef, gone; timeoutMs (default 3000, max 30000).
    #[serde(default)]
    #[schemars(schema_with = "expect_schema")]
    pub expect: Option<Expect>,
    /// No pointer, key or focus input (fails unsent).
    #[serde(default)]
    pub headless: bool,
    /// ms (default 30000, max 120000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// `expect`'s schema: an object whose fields are wait_for's, named in the description rather
/// than listed again (~117 cl100k tokens of the tool list; the decoder still rejects an
/// unknown field, naming it).
fn expect_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object" })
}

/// The structured result of `act_ui`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// worked only when every step worked (and the expect verdict did not fail).
    pub outcome: Outcome,
    /// One report per step run.
    pub steps: Vec<StepReport>,
    /// The successor state (null when the root closed or did not answer the look after the
    /// steps).
    pub state_id: Option<StateId>,
    /// The state the steps came from.
    pub base_state_id: StateId,
    /// Index of the step that ended the batch without working: no later step ran. Absent when
    /// the last step run worked (typing goes on after keys or text whose effect was unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<usize>,
    /// The postcondition's verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<ExpectOut>,
    /// Roots of the app that opened or closed.
    pub root_changes: RootChanges,
    /// Set when the acted-on root is gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_closed: Option<TargetClosed>,
    /// The successor state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<StateOut>,
    /// Why there is no successor though the root is there: the app did not answer the look
    /// after the steps (`app_unresponsive`, busy with what the input started); observe again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor_error: Option<Error>,
    /// Changes from the base state to the successor, counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffCounts>,
    /// Downloads the steps started (browser pages).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<Download>,
    /// The error of the step (or postcondition) that did not work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

/// How the postcondition ended.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExpectOut {
    /// verified, preexisting or failed.
    pub verdict: ExpectVerdict,
    /// The condition, described.
    pub condition: Option<String>,
}

/// The acted-on root closed (`target_closed`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct TargetClosed {
    /// Always target_closed.
    pub code: String,
    /// closed, or replaced (by the successors).
    pub cause: String,
    /// The root that is gone.
    pub root: RootRef,
    /// Roots that replaced it.
    pub successors: Vec<RootRef>,
}

/// Elements added, removed and updated between two states.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DiffCounts {
    /// Added.
    pub added: usize,
    /// Removed.
    pub removed: usize,
    /// Updated.
    pub updated: usize,
}

/// The checks that need no state: every step, the postcondition, the deadline. The validated
/// steps, and the deadline asked for (None: the service's default).
pub(crate) fn check(a: &Args) -> Result<(Vec<Step>, Option<Duration>), Error> {
    let steps = validate_steps(&a.actions)?;
    if let Some(e) = &a.expect {
        e.validate()?;
    }
    let timeout = match a.timeout_ms {
        Some(t) if t > 120_000 => return Err(Error::invalid("timeoutMs", "at most 120000")),
        Some(t) => Some(Duration::from_millis(t.max(500))),
        None => None,
    };
    Ok((steps, timeout))
}

/// One `act_ui` call, phase by phase (see the module doc).
pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let call = ActCall::resolve(svc, a)?;
    let lane = call.enter_lane(svc).await?;
    let before = call.before(svc).await;
    let sent = call.deliver(svc, &lane).await?;
    let report = call.after(svc, lane, before, sent).await?;
    if let (Some(viewer), Some(s)) = (crate::call::viewer(), &report.successor) {
        // The result shows the successor (as changes or in full): a later look continues it.
        let shown = crate::shown::Seen {
            state: s.id,
            max_lines: None,
        };
        svc.shown.record(viewer, s.root, shown);
    }
    Ok(render(svc, &call, &report))
}

/// What was asked, resolved against its base state: the steps validated, every ref resolved,
/// the backend found. Nothing has been sent yet.
struct ActCall {
    /// The steps, in order.
    steps: Vec<Step>,
    /// The postcondition to wait for after the steps.
    expect: Option<Expect>,
    /// No pointer, key or focus input.
    headless: bool,
    /// The state the steps come from.
    base: Arc<State>,
    /// Its root, as the base state saw it.
    info: RootInfo,
    /// The backend owning the root.
    backend: Arc<dyn Backend>,
    /// The whole call's: steps, postcondition and successor.
    deadline: Deadline,
}

/// The app before delivery.
struct Before {
    /// Its roots, for the root changes.
    roots: Vec<Listed>,
    /// The `seq` of its browser's last download (see [`last_download`]).
    last_download: Option<u64>,
    /// Whether the postcondition already held in the base state.
    preexisting: Option<bool>,
}

/// What delivery did.
struct Sent {
    /// One report per step run.
    reports: Vec<StepReport>,
    /// Whether anything may have reached the app.
    delivered: bool,
    /// The resource's epoch after the steps (bumped when anything may have been delivered).
    epoch: u64,
}

/// The successor look and its root listing, or the root's closing, and the `expect` verdict.
struct Seen {
    state: Option<Arc<State>>,
    /// The acted-on root closed.
    closed: bool,
    verdict: Option<ExpectVerdict>,
    /// The app's roots as the last look listed them.
    roots: Vec<Listed>,
    /// The look after delivery got no answer from the app (the root did not close).
    unanswered: Option<Error>,
}

/// What happened, as [`render`] reads it: the steps' reports, the successor (or that the root
/// closed), the postcondition's verdict, the roots that opened and closed, the downloads.
struct ActReport {
    /// One report per step run.
    reports: Vec<StepReport>,
    /// The successor state (with `closed`: the last look before the root closed).
    successor: Option<Arc<State>>,
    /// The acted-on root closed.
    closed: bool,
    /// The look after delivery got no answer from the app: no successor, the steps' reports
    /// still stand.
    unanswered: Option<Error>,
    /// The postcondition's verdict, when it was waited for.
    verdict: Option<ExpectVerdict>,
    /// Roots of the app that opened (none a policy denies).
    opened: Vec<Listed>,
    /// Roots of the app that closed.
    gone: Vec<Listed>,
    /// The opened roots that may replace a closed root (not menus or popovers).
    successors: Vec<RootRef>,
    /// Downloads the steps started (browser pages), as they are now, running ones too.
    downloads: Vec<Download>,
}

impl ActCall {
    /// Decode and resolve: every step, the postcondition and the deadline checked ([`check`]);
    /// the base state found (`stale_state`), every ref resolved in it (`stale_ref`),
    /// coordinates only with an image ([`check_refs`]); the root's backend found.
    fn resolve(svc: &Service, a: Args) -> Result<Self, Error> {
        let (steps, timeout) = check(&a)?;
        let timeout = timeout.unwrap_or(svc.config.act_timeout);
        let base = svc.store.get(a.state_id)?;
        check_refs(&a, &steps, &base)?;
        let backend = svc.backend_named(&base.root_info.backend)?.clone();
        Ok(ActCall {
            deadline: Deadline::after(timeout),
            info: base.root_info.clone(),
            steps,
            expect: a.expect,
            headless: a.headless,
            base,
            backend,
        })
    }

    /// The root's lane, entered: a base state older than the last write to the resource is
    /// refused (`stale_state`), and coordinates need the window where the image saw it
    /// ([`frame_lease`]). Nothing has been sent yet.
    async fn enter_lane(&self, svc: &Service) -> Result<LaneGuard, Error> {
        let lane = svc.lanes.enter(&self.info.resource).await;
        lane.check(self.base.epoch)?;
        frame_lease(svc, &self.base, &self.steps, self.deadline).await?;
        Ok(lane)
    }

    /// The app before delivery: its roots, its browser's last download, and whether the
    /// postcondition holds already.
    async fn before(&self, svc: &Service) -> Before {
        // The listing made beside the base state's look, when this session's last act made it
        // a moment ago (`listings.rs`); else the app's roots now.
        let kept = crate::call::viewer().and_then(|v| svc.listings.fresh(self.base.id, v));
        let roots = match kept {
            Some(roots) => roots,
            None => svc.app_roots(&self.info, self.deadline).await,
        };
        Before {
            roots,
            last_download: last_download(svc, &self.info, self.deadline).await,
            preexisting: self.expect.as_ref().map(|e| e.holds(&self.base)),
        }
    }

    /// The backend runs the steps (core's `run_batch`) under the call's cancellation: the
    /// runner refuses every step after it (the safe point). The epoch is bumped when anything
    /// may have been delivered.
    async fn deliver(&self, svc: &Service, lane: &LaneGuard) -> Result<Sent, Error> {
        let app = &self.info.app;
        crate::call::doing(format!("act_ui: {} steps in {app}", self.steps.len()));
        let act = self.backend.act(
            ActRequest {
                root: &self.info,
                state: &self.base,
                steps: &self.steps,
                headless: self.headless,
                input: &svc.input,
                expect_follows: self.expect.is_some(),
                defer_settle: true,
            },
            self.deadline,
        );
        let reports = uidriver_core::cancellable(crate::call::cancellation(), act).await?;
        crate::call::doing(format!("act_ui: observing {app} after the steps"));
        let delivered = reports
            .iter()
            .any(|r| r.delivery.delivered != Delivery::NotDelivered);
        let epoch = if delivered { lane.bump() } else { lane.epoch() };
        let span = tracing::Span::current();
        span.record("resource", tracing::field::debug(&self.info.resource));
        span.record("epoch", epoch);
        Ok(Sent {
            reports,
            delivered,
            epoch,
        })
    }

    /// After delivery: under the lane, the postcondition watched or a brief settle, and the
    /// successor observed ([`successor`]); then, the lane left, the downloads the steps started
    /// (the backend waited briefly for them). What happened, compared with `before`.
    async fn after(
        &self,
        svc: &Service,
        lane: LaneGuard,
        before: Before,
        sent: Sent,
    ) -> Result<ActReport, Error> {
        let seen = successor(svc, self, &sent, before.preexisting).await?;
        drop(lane);
        let downloads = downloads_since(svc, &self.info, before.last_download, self.deadline).await;
        Ok(ActReport::new(&before.roots, sent, seen, downloads))
    }
}

impl Sent {
    /// Every step ran and worked.
    fn all_worked(&self, nsteps: usize) -> bool {
        self.reports.len() == nsteps && self.reports.iter().all(|r| r.outcome == Outcome::Worked)
    }

    /// Whether `expect` is waited for: after the last step that ran, an `unknown` one included
    /// (typing into a terminal is read back only through its effect); not when a step did not
    /// work.
    fn checks_expect(&self, nsteps: usize) -> bool {
        self.all_worked(nsteps)
            || (self.delivered && !self.reports.iter().any(|r| r.outcome == Outcome::Didnt))
    }
}

impl ActReport {
    /// The report of a batch whose app listed `before` before delivery.
    fn new(before: &[Listed], sent: Sent, seen: Seen, downloads: Vec<Download>) -> Self {
        let (opened, gone) = root_changes(before, &seen.roots);
        let successors = opened
            .iter()
            .filter(|l| !matches!(l.info.kind, RootKind::Menu | RootKind::Popover))
            .map(|l| l.r)
            .collect();
        ActReport {
            reports: sent.reports,
            successor: seen.state,
            closed: seen.closed,
            unanswered: seen.unanswered,
            verdict: seen.verdict,
            opened: opened.into_iter().cloned().collect(),
            gone: gone.into_iter().cloned().collect(),
            successors,
            downloads,
        }
    }

    /// How the acted-on root went, when it did: `closed`, or `replaced` by new roots.
    fn cause(&self) -> Option<&'static str> {
        self.closed.then_some(if self.successors.is_empty() {
            "closed"
        } else {
            "replaced"
        })
    }

    /// Index of the step that ended a batch of `nsteps` without working.
    fn stopped_at(&self, nsteps: usize) -> Option<usize> {
        let n = self.reports.len();
        self.reports
            .last()
            .filter(|r| r.outcome != Outcome::Worked)
            .map(|r| r.index)
            .or_else(|| (n < nsteps).then_some(n))
    }

    /// The roots that opened and closed, as the shared renderers take them.
    fn changes(&self) -> (Vec<&Listed>, Vec<&Listed>) {
        (self.opened.iter().collect(), self.gone.iter().collect())
    }
}

/// The `seq` of the last download of a browser page's browser (None: not a page, or its
/// backend has no downloads), so the downloads an act starts can be told apart.
async fn last_download(svc: &Service, info: &RootInfo, deadline: Deadline) -> Option<u64> {
    if info.kind != RootKind::BrowserPage {
        return None;
    }
    let bc = svc.browser().ok()?;
    let list = bc
        .downloads(info, deadline.cap(Duration::from_secs(2)))
        .await
        .ok()?;
    Some(list.last().map(|d| d.seq).unwrap_or(0))
}

/// The downloads of a page's browser after the one numbered `last` (see [`last_download`]), as
/// they are now, running ones too.
async fn downloads_since(
    svc: &Service,
    info: &RootInfo,
    last: Option<u64>,
    deadline: Deadline,
) -> Vec<Download> {
    match (last, svc.browser()) {
        (Some(n), Ok(bc)) => bc
            .downloads(info, deadline.cap(Duration::from_secs(2)))
            .await
            .map(|l| l.into_iter().filter(|d| d.seq > n).collect())
            .unwrap_or_default(),
        _ => vec![],
    }
}
/// Every ref the call names is of its base state, and coordinates have an image to be of.
fn check_refs(a: &Args, steps: &[Step], base: &State) -> Result<(), Error> {
    for (i, s) in steps.iter().enumerate() {
        for r in s.refs() {
            base.resolve(r)
                .map_err(|e| Error::new(e.code, format!("actions[{i}].ref: {}", e.message)))?;
        }
        if s.uses_points() && base.image.is_none() {
            return Err(Error::invalid(
                &format!("actions[{i}]"),
                "x/y coordinates are pixels of a state's image, and this state has none",
            )
            .with_hint(
                "observe_ui with mode \"visual\" and use coordinates from its image, or use a ref",
            ));
        }
    }
    if let Some(e) = &a.expect {
        for (field, r) in [("expect.ref", e.target), ("expect.scopeRef", e.scope_ref)] {
            if let Some(r) = r {
                base.resolve(r)
                    .map_err(|err| Error::new(err.code, format!("{field}: {}", err.message)))?;
            }
        }
    }
    Ok(())
}

/// Frame lease for coordinates: the window must still be where it was when the image was
/// taken (compared unclipped: an image of a window wider than the screen is clipped).
async fn frame_lease(
    svc: &Service,
    base: &State,
    steps: &[Step],
    deadline: Deadline,
) -> Result<(), Error> {
    let info = &base.root_info;
    if base.image.is_some() && steps.iter().any(|s| s.uses_points()) && info.window_id.is_some() {
        let now = svc.refresh_root(base.root, info, deadline).await?;
        if now.bounds != base.root_info.bounds {
            return Err(Error::new(
                ErrorCode::GuiFrameStale,
                format!(
                    "{} moved or was resized since {} was observed ({} then, {} now); nothing was sent",
                    base.root,
                    base.id,
                    base.root_info.bounds.map(|b| b.to_string()).unwrap_or_default(),
                    now.bounds.map(|b| b.to_string()).unwrap_or_default()
                ),
            )
            .with_hint("observe_ui again in visual mode and use coordinates from the new image"));
        }
    }
    Ok(())
}

/// Observes the successor: waits for the postcondition when there is one and the steps call
/// for it ([`Sent::checks_expect`]; core's [`watch`]), otherwise settles briefly and looks once.
async fn successor(
    svc: &Service,
    call: &ActCall,
    sent: &Sent,
    preexisting: Option<bool>,
) -> Result<Seen, Error> {
    let nsteps = call.steps.len();
    // Every step `worked` means the backend already saw each effect (and let the app's burst
    // end): the successor is observed at once. Otherwise give the app a moment to show it.
    if sent.delivered && !sent.all_worked(nsteps) {
        let _ = tokio::time::timeout(
            Duration::from_millis(150),
            call.backend
                .wait_change(&call.info, call.deadline.cap(Duration::from_millis(150))),
        )
        .await;
    }
    let mut w = Successors {
        svc,
        call,
        sent,
        roots: Vec::new(),
        now: None,
    };
    let checked = call.expect.as_ref().filter(|_| sent.checks_expect(nsteps));
    // The rest of the last step's reaction, when the backend left it to us (`defer_settle`).
    let settle = call.backend.settle_after_act(&call.info, call.deadline);
    let (state, closed, verdict) = match checked {
        Some(e) => {
            settle.await;
            let out = watch(&mut w, e, call.deadline.cap(e.timeout()), EXPECT_RECHECK).await;
            match out.end {
                End::Held(s) if preexisting == Some(true) => {
                    (Some(s), false, Some(ExpectVerdict::Preexisting))
                }
                End::Held(s) => (Some(s), false, Some(ExpectVerdict::Verified)),
                End::TimedOut => (out.last, false, Some(ExpectVerdict::Failed)),
                End::Closed(_) => (out.last, true, None),
                End::Failed(e) => return Err(e),
            }
        }
        None => {
            // Looked at while the app's last reaction is waited out: the look stands when the
            // app stayed quiet, else it is taken again, now that the app is quiet.
            let (seen, settled) = tokio::join!(w.look(None), settle);
            let seen = match settled {
                Some(false) => w.look(None).await,
                _ => seen,
            };
            match seen {
                Ok(Sighting::Seen(s)) => (Some(s), false, None),
                Ok(Sighting::Closed(_)) => (None, true, None),
                // Input reached an app that is now busy (saving, say): the steps' reports are
                // the act's evidence and stand; the look is what failed, and says why.
                Err(e) if sent.delivered && e.code == ErrorCode::AppUnresponsive => {
                    return Ok(Seen {
                        state: None,
                        closed: false,
                        verdict: None,
                        roots: w.roots,
                        unanswered: Some(e),
                    });
                }
                Err(e) => return Err(e),
            }
        }
    };
    Ok(Seen {
        state,
        closed,
        verdict,
        roots: w.roots,
        unanswered: None,
    })
}

/// The longest wait for a change between two looks for an `expect`.
const EXPECT_RECHECK: Duration = Duration::from_millis(500);

/// The looks at the successor: each finds the root again in a fresh listing of the app's roots
/// (kept: one listing per look serves both the root and the root changes) and observes it.
struct Successors<'a> {
    svc: &'a Service,
    call: &'a ActCall,
    sent: &'a Sent,
    roots: Vec<Listed>,
    /// The root as the last listing had it.
    now: Option<RootInfo>,
}

#[async_trait::async_trait]
impl Watcher for Successors<'_> {
    /// A semantic look of a root with a tree observes it while its app's roots are listed: the
    /// observation needs of the root only what the listing cannot change (its backend, its key,
    /// that it has a tree; [`Service::gather`]), so it is made with the root as last known and
    /// stored with the fresh listing's description. When the listing no longer has the root, it
    /// closed (what was observed is dropped); when it says the root's tree is gone, the root is
    /// observed again as listed. A visual look, and one of a window without a tree, reads the
    /// window's place and title: it is made after the listing, of the window as listed.
    async fn look(&mut self, last: Option<&Arc<State>>) -> Result<Sighting, Error> {
        let (call, deadline) = (self.call, self.call.deadline);
        let info = &call.info;
        let mode = if call.base.image.is_some() {
            Mode::Visual
        } else {
            Mode::Semantic
        };
        let delivery = if self.sent.delivered {
            Delivery::Delivered
        } else {
            Delivery::NotDelivered
        };
        let epoch = self.sent.epoch;
        let spec = |info| LookSpec {
            root: call.base.root,
            info,
            epoch,
            mode,
            successor_of: Some(last.unwrap_or(&call.base).clone()),
        };
        // A look of the act's: no longer than a plain look's default, so a hung app is told at
        // once (only an explicit observe_ui budget waits for a busy one).
        let budget = deadline.cap(self.svc.config.observe_timeout);
        let known = self.now.clone().unwrap_or_else(|| info.clone());
        let (roots, early) = if mode == Mode::Semantic && known.has_tree {
            let first = spec(&known);
            let (roots, seen) = tokio::join!(
                self.svc.app_roots(info, deadline),
                self.svc.gather(&first, budget)
            );
            (roots, Some(seen))
        } else {
            (self.svc.app_roots(info, deadline).await, None)
        };
        self.roots = roots;
        let Some(now) = self
            .roots
            .iter()
            .find(|l| l.info.key == info.key)
            .map(|l| l.info.clone())
        else {
            let closed = Error::new(
                ErrorCode::TargetClosed,
                format!(
                    "{} ({} {:?}) closed",
                    call.base.root,
                    info.kind.as_str(),
                    info.title
                ),
            );
            return Ok(Sighting::Closed(closed.delivered(Delivery::Delivered)));
        };
        let seen = match early {
            Some(seen) if now.has_tree == known.has_tree => seen,
            _ => self.svc.gather(&spec(&now), budget).await,
        };
        let seen = seen.map_err(|e| e.delivered(delivery))?;
        let s = self.svc.store_look(spec(&now), seen);
        if let Some(viewer) = crate::call::viewer() {
            self.svc.listings.note(s.id, viewer, &self.roots);
        }
        self.now = Some(now);
        Ok(Sighting::Seen(s))
    }

    async fn changed(&mut self, within: Deadline) {
        if let Some(now) = &self.now {
            // A backend that cannot wait for changes is looked at again at once.
            let _ = self.call.backend.wait_change(now, within).await;
        }
    }
}

/// The result: the act line, one line per step, the downloads the steps started, where the
/// batch stopped, the expect verdict, the root lines, then the successor as a diff or in full,
/// and the error when the batch did not work.
fn render(svc: &Service, call: &ActCall, r: &ActReport) -> ToolResult {
    let nsteps = call.steps.len();
    let expect = call.expect.as_ref();
    let (outcome, error) = batch_outcome(expect, &r.reports, nsteps, r.verdict);
    let stopped_at = r.stopped_at(nsteps);
    // `worked · successor s12`: the state acted on is the call's own `stateId`.
    let mut text = outcome.as_str().to_string();
    match (&r.successor, r.closed) {
        (Some(s), _) => text.push_str(&format!(" · successor {}", s.id)),
        (None, true) => text.push_str(" · no successor: the root closed"),
        (None, false) if r.unanswered.is_some() => {
            text.push_str(" · no successor: the app did not answer the look after the steps")
        }
        _ => {}
    }
    text.push('\n');
    for s in &r.reports {
        text.push_str(&step_line(s));
        text.push('\n');
    }
    for d in &r.downloads {
        text.push_str(&download_line(d));
        text.push('\n');
    }
    if let Some(i) = stopped_at.filter(|i| i + 1 < nsteps) {
        text.push_str(&format!(
            "stopped at step {}: later steps were not run; observe before continuing\n",
            i + 1
        ));
    }
    expect_text(expect, r.verdict, outcome, &mut text);
    if let Some(e) = &r.unanswered {
        text.push_str(&format!(
            "look after the steps: {}\nhint: {}\n",
            e.message, e.hint
        ));
    }
    roots_text(call.base.root, r, &mut text);
    let (diff, images) = match &r.successor {
        Some(s) => {
            let (counts, images) = changes_text(svc, &call.base, s, &mut text);
            (Some(counts), images)
        }
        None => (None, Vec::new()),
    };
    let is_error = outcome == Outcome::Didnt;
    if let Some(e) = error.as_ref().filter(|_| is_error) {
        text.push_str(&error_text(e));
        text.push('\n');
    }
    let (opened, gone) = r.changes();
    let structured = Output {
        outcome,
        steps: r.reports.clone(),
        state_id: r.successor.as_ref().map(|s| s.id),
        base_state_id: call.base.id,
        stopped_at,
        expect: r.verdict.map(|v| ExpectOut {
            verdict: v,
            condition: expect.map(|e| e.describe()),
        }),
        root_changes: RootChanges::of(&opened, &gone),
        target_closed: r.cause().map(|cause| TargetClosed {
            code: ErrorCode::TargetClosed.as_str().to_string(),
            cause: cause.to_string(),
            root: call.base.root,
            successors: r.successors.clone(),
        }),
        successor: r.successor.as_deref().map(state_out),
        successor_error: r.unanswered.clone(),
        diff,
        downloads: r.downloads.clone(),
        error,
    };
    ToolResult {
        images,
        is_error,
        ..ToolResult::ok(text, &structured)
    }
}

/// The batch's verdict and its error: the steps', or a failed postcondition's.
fn batch_outcome(
    expect: Option<&Expect>,
    reports: &[StepReport],
    nsteps: usize,
    verdict: Option<ExpectVerdict>,
) -> (Outcome, Option<Error>) {
    let mut outcome = if reports.iter().any(|r| r.outcome == Outcome::Didnt) {
        Outcome::Didnt
    } else if reports.len() < nsteps || reports.iter().any(|r| r.outcome == Outcome::Unknown) {
        Outcome::Unknown
    } else {
        Outcome::Worked
    };
    let mut error: Option<Error> = reports.iter().find_map(|r| r.error.clone());
    // The caller named the effect it wanted and it came after the steps: that is the evidence
    // the unverified steps lacked.
    if verdict == Some(ExpectVerdict::Verified) && outcome == Outcome::Unknown {
        outcome = Outcome::Worked;
        error = None;
    }
    if verdict == Some(ExpectVerdict::Failed) {
        outcome = Outcome::Didnt;
        error = Some(
            Error::new(
                ErrorCode::PostconditionFailed,
                format!(
                    "expected {} within the timeout",
                    expect.map(|e| e.describe()).unwrap_or_default()
                ),
            )
            .delivered(Delivery::Delivered),
        );
    }
    (outcome, error)
}

/// The `expect` line.
fn expect_text(
    expect: Option<&Expect>,
    verdict: Option<ExpectVerdict>,
    outcome: Outcome,
    text: &mut String,
) {
    if let (Some(e), Some(v)) = (expect, verdict) {
        let v = match v {
            ExpectVerdict::Verified => "verified",
            ExpectVerdict::Preexisting => {
                "preexisting (was already true before the steps: proves nothing about them)"
            }
            ExpectVerdict::Failed => "failed: postcondition_failed",
        };
        text.push_str(&format!("expect {} → {v}\n", e.describe()));
    } else if expect.is_some() && outcome != Outcome::Worked {
        text.push_str("expect: not checked because a step did not work\n");
    }
}

/// The root lines: the target `root` closed or replaced, roots that opened and closed.
fn roots_text(root: RootRef, r: &ActReport, text: &mut String) {
    if let Some(cause) = r.cause() {
        text.push_str(&format!("target_closed (cause: {cause}): {root} is gone"));
        if !r.successors.is_empty() {
            let list: Vec<String> = r.successors.iter().map(|r| r.to_string()).collect();
            text.push_str(&format!("; successors: {}", list.join(", ")));
        }
        text.push('\n');
    }
    let (opened, gone) = r.changes();
    change_lines(&opened, &gone, root, text);
}

/// Most outline lines of a successor shown in full: an act's result reports the act, so its
/// view is a short one (what an agent asking `observe_ui` for `maxLines: 60` reads); the
/// folded rest is one `search_ui` or `expand_ui` away, or `observe_ui` for a longer look.
const ACT_VIEW_LINES: usize = 60;

/// The successor as a diff from the base, or in full when a diff would mislead; its counts.
fn changes_text(
    svc: &Service,
    base: &State,
    s: &State,
    text: &mut String,
) -> (DiffCounts, Vec<ImageContent>) {
    let mut images = Vec::new();
    let d = diff(base, s);
    match full_view_reason(base, s, &d) {
        None if d.is_empty() => text.push_str(&format!("no visible change in {}\n", s.id)),
        None => {
            text.push_str(&format!("changes in {} (diff from {}):\n", s.id, base.id));
            text.push_str(&render_diff(base, s, &d));
        }
        Some(reason) => {
            // A new root element (another page, a window's new content) needs no reason.
            let why = match reason {
                uidriver_core::diff::FullViewReason::RootChanged => None,
                uidriver_core::diff::FullViewReason::LowMatch => {
                    Some("too few elements kept their identity")
                }
                uidriver_core::diff::FullViewReason::TooLarge => Some("the change is large"),
            };
            let note = svc.data_note_due();
            let lines = svc.config.outline_lines.min(ACT_VIEW_LINES);
            let full = successor_view(s, lines, why, note);
            text.push_str(&full.text);
            images = full.images;
        }
    }
    (
        DiffCounts {
            added: d.added.len(),
            removed: d.removed.len(),
            updated: d.updated.len(),
        },
        images,
    )
}

/// Most characters of a step's evidence in its line; the whole detail is in the structured
/// step report.
const STEP_DETAIL_CHARS: usize = 80;

/// `1. press @e12 → worked (after opening its menus); state: "…"` for a step that plainly
/// worked (sent and read back; the delivery's method named only when it was the desktop's
/// pointer or keyboard, `→ worked via xtest (1 key chord)`, its note always; where a click
/// landed is in the structured step report); otherwise every part:
/// `2. click @e3 at (40,12) → unknown · via xtest (left click) · unverified (event) — "…"`.
fn step_line(r: &StepReport) -> String {
    let mut s = format!("{}. {}", r.index + 1, r.action);
    if let Some(x) = r.grounding.r#ref {
        s.push_str(&format!(" {x}"));
    }
    let plain = r.outcome == Outcome::Worked
        && r.verification.passed == Some(true)
        && r.delivery.delivered == Delivery::Delivered
        && r.error.is_none();
    if plain {
        s.push_str(" → worked");
        // The way it was sent is named only when it went through the machine's pointer or
        // keyboard (the element's or the page's own way is in the structured step report);
        // what the delivery noted is said either way ("after opening its menus", "the
        // selection", a fallback).
        if r.delivery.method.is_desktop_input() {
            s.push_str(&format!(" via {}", r.delivery.method));
        }
        if let Some(d) = &r.delivery.detail {
            s.push_str(&format!(" ({d})"));
        }
        s.push_str(&format!("; {}", r.verification.method));
        if let Some(d) = &r.verification.detail {
            s.push_str(&format!(
                ": {}",
                uidriver_core::outline::quote(d, STEP_DETAIL_CHARS)
            ));
        }
        return s;
    }
    if let Some((x, y)) = r.grounding.point {
        s.push_str(&format!(" at ({x},{y})"));
    }
    s.push_str(&format!(" → {}", r.outcome.as_str()));
    if r.delivery.method != uidriver_core::DeliveryMethod::None {
        s.push_str(&format!(" · via {}", r.delivery.method));
        if let Some(d) = &r.delivery.detail {
            s.push_str(&format!(" ({d})"));
        }
    }
    match r.delivery.delivered {
        Delivery::Delivered => {}
        Delivery::NotDelivered => s.push_str(" · nothing sent"),
        Delivery::Maybe => s.push_str(" · may have been delivered"),
    }
    match r.verification.passed {
        Some(true) => s.push_str(&format!(" · verified: {}", r.verification.method)),
        Some(false) => s.push_str(&format!(" · check failed: {}", r.verification.method)),
        None if r.verification.method != uidriver_core::VerificationMethod::None => {
            s.push_str(&format!(" · unverified ({})", r.verification.method))
        }
        None => {}
    }
    // The evidence in a few words; the whole detail is in the structured step report.
    if let Some(d) = &r.verification.detail {
        s.push_str(&format!(
            " — {}",
            uidriver_core::outline::quote(d, STEP_DETAIL_CHARS)
        ));
    }
    if let Some(e) = &r.error {
        s.push_str(&format!(" · {}: {}", e.code, e.message));
    }
    s
}
