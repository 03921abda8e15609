//! `act_ui`: steps from one state, under the root's lane, with honest evidence.
//!
//! Order of work: validate every step and ref (nothing sent yet) → take the lane → reject a
//! state older than the resource's epoch → note the roots of the app → check the postcondition
//! before delivery → let the backend run the steps (core's runner stops at the first that did
//! not work; typing whose effect could not be read goes on) → bump the epoch if anything may
//! have been delivered → wait for the postcondition (also after an `unknown` step) or settle →
//! observe the successor → compare roots → render steps, expect verdict, root changes and the
//! diff (or the full view when a diff would mislead).

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::action::validate_steps;
use uidriver_core::diff::{diff, full_view_reason, render_diff};
use uidriver_core::watch::{watch, End, Sighting, Watcher};
use uidriver_core::{
    ActRequest, Deadline, Delivery, Error, ErrorCode, Expect, ExpectVerdict, Outcome, RawStep,
    RootInfo, RootKind, RootRef, State, StateId, Step, StepReport,
};

use crate::forest::{root_changes, Listed};
use crate::look::{LookSpec, Mode};
use crate::render::{root_line, root_out, state_out, RootOut, StateOut};
use crate::tools::observe_ui::full_view;
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
    /// The successor state (null when the root closed).
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
    /// Changes from the base state to the successor, counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffCounts>,
    /// Downloads the steps started (browser pages).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<uidriver_core::Download>,
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

/// Roots of the app that opened or closed during the call.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RootChanges {
    /// New roots.
    pub opened: Vec<RootOut>,
    /// Roots gone.
    pub closed: Vec<RootOut>,
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

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let (steps, timeout) = check(&a)?;
    let timeout = timeout.unwrap_or(svc.config.act_timeout);
    let base = svc.store.get(a.state_id)?;
    check_refs(&a, &steps, &base)?;
    let backend = svc.backend_named(&base.root_info.backend)?.clone();
    let deadline = Deadline::after(timeout);
    let info = base.root_info.clone();
    let guard = svc.lanes.enter(&info.resource).await;
    guard.check(base.epoch)?;
    frame_lease(svc, &base, &steps, deadline).await?;
    let before = svc.app_roots(&info, deadline).await;
    let downloads_before = last_download(svc, &info, deadline).await;
    let preexisting = a.expect.as_ref().map(|e| e.holds(&base));
    crate::call::doing(format!("act_ui: {} steps in {}", steps.len(), info.app));
    // Under the call's cancellation: the runner refuses every step after it (the safe point).
    let act = backend.act(
        ActRequest {
            root: &info,
            state: &base,
            steps: &steps,
            headless: a.headless,
            input: &svc.input,
            expect_follows: a.expect.is_some(),
        },
        deadline,
    );
    let reports = uidriver_core::cancellable(crate::call::cancellation(), act).await?;
    crate::call::doing(format!("act_ui: observing {} after the steps", info.app));
    let delivered = reports
        .iter()
        .any(|r| r.delivery.delivered != Delivery::NotDelivered);
    let epoch = if delivered {
        guard.bump()
    } else {
        guard.epoch()
    };
    let span = tracing::Span::current();
    span.record("resource", tracing::field::debug(&info.resource));
    span.record("epoch", epoch);
    let all_worked =
        reports.len() == steps.len() && reports.iter().all(|r| r.outcome == Outcome::Worked);
    // `expect` is checked after the last step that ran, an `unknown` one included (typing
    // into a terminal is read back only through its effect); not when a step did not work.
    let check_expect =
        all_worked || (delivered && !reports.iter().any(|r| r.outcome == Outcome::Didnt));

    let after = successor(
        svc,
        Look {
            a: &a,
            base: &base,
            info: &info,
            backend: &*backend,
            epoch,
            delivered,
            all_worked,
            check_expect,
            preexisting,
        },
        deadline,
    )
    .await?;
    drop(guard);
    // The backend waited (briefly) for downloads the steps started; they are reported as
    // they are now, running ones too.
    let downloads = match (downloads_before, svc.browser()) {
        (Some(n), Ok(bc)) => bc
            .downloads(&info, deadline.cap(Duration::from_secs(2)))
            .await
            .map(|l| l.into_iter().filter(|d| d.seq > n).collect())
            .unwrap_or_default(),
        _ => vec![],
    };
    let mut result = render(
        svc,
        &a,
        &base,
        &reports,
        steps.len(),
        after.state.as_deref(),
        after.closed,
        after.verdict,
        &before,
        &after.roots,
    );
    if !downloads.is_empty() {
        let lines: Vec<String> = downloads
            .iter()
            .map(crate::tools::wait_for::download_line)
            .collect();
        // After the verdict line and the step lines.
        let at = result
            .text
            .match_indices('\n')
            .nth(reports.len())
            .map(|(i, _)| i + 1)
            .unwrap_or(result.text.len());
        let mut text = result.text[..at].to_string();
        text.push_str(&lines.join("\n"));
        text.push('\n');
        text.push_str(&result.text[at..]);
        result.text = text;
        result.structured["downloads"] = serde_json::to_value(&downloads).unwrap_or_default();
    }
    Ok(result)
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

/// What the successor look needs to know of the call.
struct Look<'a> {
    a: &'a Args,
    base: &'a Arc<State>,
    info: &'a RootInfo,
    backend: &'a dyn uidriver_core::Backend,
    epoch: u64,
    delivered: bool,
    all_worked: bool,
    /// Whether the `expect` condition is waited for (see `run`).
    check_expect: bool,
    preexisting: Option<bool>,
}

/// The successor look and its root listing, or the root's closing, and the `expect` verdict.
struct After {
    state: Option<Arc<State>>,
    closed: Option<Error>,
    verdict: Option<ExpectVerdict>,
    roots: Vec<Listed>,
}

/// Observes the successor: waits for the postcondition when there is one (core's
/// [`watch`]), otherwise settles briefly and looks once.
async fn successor(svc: &Service, l: Look<'_>, deadline: Deadline) -> Result<After, Error> {
    // Every step `worked` means the backend already saw each effect (and let the app's burst
    // end): the successor is observed at once. Otherwise give the app a moment to show it.
    if l.delivered && !l.all_worked {
        let _ = tokio::time::timeout(
            Duration::from_millis(150),
            l.backend
                .wait_change(l.info, deadline.cap(Duration::from_millis(150))),
        )
        .await;
    }
    let (a, check_expect, preexisting) = (l.a, l.check_expect, l.preexisting);
    let mut w = Successors {
        svc,
        l,
        deadline,
        roots: Vec::new(),
        now: None,
    };
    let (state, closed, verdict) = match a.expect.as_ref().filter(|_| check_expect) {
        Some(e) => {
            let out = watch(&mut w, e, deadline.cap(e.timeout()), EXPECT_RECHECK).await;
            match out.end {
                End::Held(s) if preexisting == Some(true) => {
                    (Some(s), None, Some(ExpectVerdict::Preexisting))
                }
                End::Held(s) => (Some(s), None, Some(ExpectVerdict::Verified)),
                End::TimedOut => (out.last, None, Some(ExpectVerdict::Failed)),
                End::Closed(e) => (out.last, Some(e), None),
                End::Failed(e) => return Err(e),
            }
        }
        None => match w.look(None).await? {
            Sighting::Seen(s) => (Some(s), None, None),
            Sighting::Closed(e) => (None, Some(e), None),
        },
    };
    Ok(After {
        state,
        closed,
        verdict,
        roots: w.roots,
    })
}

/// The longest wait for a change between two looks for an `expect`.
const EXPECT_RECHECK: Duration = Duration::from_millis(500);

/// The looks at the successor: each finds the root again in a fresh listing of the app's roots
/// (kept: one listing per look serves both the root and the root changes) and observes it.
struct Successors<'a> {
    svc: &'a Service,
    l: Look<'a>,
    deadline: Deadline,
    roots: Vec<Listed>,
    /// The root as the last listing had it.
    now: Option<RootInfo>,
}

#[async_trait::async_trait]
impl Watcher for Successors<'_> {
    async fn look(&mut self, last: Option<&Arc<State>>) -> Result<Sighting, Error> {
        let (l, deadline) = (&self.l, self.deadline);
        let info = l.info;
        self.roots = self.svc.app_roots(info, deadline).await;
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
                    l.base.root,
                    info.kind.as_str(),
                    info.title
                ),
            );
            return Ok(Sighting::Closed(closed.delivered(Delivery::Delivered)));
        };
        let mode = if l.base.image.is_some() {
            Mode::Visual
        } else {
            Mode::Semantic
        };
        let delivery = if l.delivered {
            Delivery::Delivered
        } else {
            Delivery::NotDelivered
        };
        let s = self
            .svc
            .look(
                LookSpec {
                    root: l.base.root,
                    info: &now,
                    epoch: l.epoch,
                    mode,
                    successor_of: Some(last.unwrap_or(l.base).clone()),
                },
                // A look of the act's: no longer than a plain look's default, so a hung app
                // is told at once (only an explicit observe_ui budget waits for a busy one).
                deadline.cap(self.svc.config.observe_timeout),
            )
            .await
            .map_err(|e| e.delivered(delivery))?;
        self.now = Some(now);
        Ok(Sighting::Seen(s))
    }

    async fn changed(&mut self, within: Deadline) {
        if let Some(now) = &self.now {
            // A backend that cannot wait for changes is looked at again at once.
            let _ = self.l.backend.wait_change(now, within).await;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn render(
    svc: &Service,
    a: &Args,
    base: &State,
    reports: &[StepReport],
    nsteps: usize,
    successor: Option<&State>,
    closed: Option<Error>,
    verdict: Option<ExpectVerdict>,
    before: &[Listed],
    after: &[Listed],
) -> ToolResult {
    let (outcome, error) = batch_outcome(a, reports, nsteps, verdict);
    let stopped_at = reports
        .last()
        .filter(|r| r.outcome != Outcome::Worked)
        .map(|r| r.index)
        .or_else(|| (reports.len() < nsteps).then_some(reports.len()));

    // Root changes within the app.
    let (opened, gone) = root_changes(before, after);
    let successors: Vec<&&Listed> = opened
        .iter()
        .filter(|l| !matches!(l.info.kind, RootKind::Menu | RootKind::Popover))
        .collect();
    let cause = closed.as_ref().map(|_| {
        if successors.is_empty() {
            "closed"
        } else {
            "replaced"
        }
    });

    let mut text = format!("act on {} → {}", base.id, outcome.as_str());
    match (successor, &closed) {
        (Some(s), _) => text.push_str(&format!(" · successor {}", s.id)),
        (None, Some(_)) => text.push_str(" · no successor: the root closed"),
        _ => {}
    }
    text.push('\n');
    for r in reports {
        text.push_str(&step_line(r));
        text.push('\n');
    }
    if let Some(i) = stopped_at {
        if i + 1 < nsteps {
            text.push_str(&format!(
                "stopped at step {}: later steps were not run; observe before continuing\n",
                i + 1
            ));
        }
    }
    expect_text(a, verdict, outcome, &mut text);
    roots_text(base, cause, &successors, &opened, &gone, &mut text);
    let mut structured = Output {
        outcome,
        steps: reports.to_vec(),
        state_id: successor.map(|s| s.id),
        base_state_id: base.id,
        stopped_at,
        expect: verdict.map(|v| ExpectOut {
            verdict: v,
            condition: a.expect.as_ref().map(|e| e.describe()),
        }),
        root_changes: RootChanges::of(&opened, &gone),
        target_closed: cause.map(|cause| TargetClosed {
            code: ErrorCode::TargetClosed.as_str().to_string(),
            cause: cause.to_string(),
            root: base.root,
            successors: successors.iter().map(|l| l.r).collect(),
        }),
        successor: successor.map(state_out),
        diff: None,
        downloads: vec![],
        error: None,
    };

    let mut images = Vec::new();
    if let Some(s) = successor {
        let (counts, imgs) = changes_text(svc, base, s, &mut text);
        structured.diff = Some(counts);
        images = imgs;
    }
    let is_error = outcome == Outcome::Didnt;
    if let Some(e) = &error {
        if is_error {
            text.push_str(&crate::result::error_text(e));
            text.push('\n');
        }
    }
    structured.error = error;
    ToolResult {
        images,
        is_error,
        ..ToolResult::ok(text, &structured)
    }
}

/// The batch's verdict and its error: the steps', or a failed postcondition's.
fn batch_outcome(
    a: &Args,
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
                    a.expect.as_ref().map(|e| e.describe()).unwrap_or_default()
                ),
            )
            .delivered(Delivery::Delivered),
        );
    }
    (outcome, error)
}

/// The `expect` line.
fn expect_text(a: &Args, verdict: Option<ExpectVerdict>, outcome: Outcome, text: &mut String) {
    if let (Some(e), Some(v)) = (&a.expect, verdict) {
        let v = match v {
            ExpectVerdict::Verified => "verified (became true after the steps)",
            ExpectVerdict::Preexisting => {
                "preexisting (was already true before the steps: proves nothing about them)"
            }
            ExpectVerdict::Failed => "failed: postcondition_failed",
        };
        text.push_str(&format!("expect {} → {v}\n", e.describe()));
    } else if a.expect.is_some() && outcome != Outcome::Worked {
        text.push_str("expect: not checked because a step did not work\n");
    }
}

/// The root lines: the target closed or replaced, roots that opened and closed.
fn roots_text(
    base: &State,
    cause: Option<&str>,
    successors: &[&&Listed],
    opened: &[&Listed],
    gone: &[&Listed],
    text: &mut String,
) {
    if let Some(cause) = cause {
        text.push_str(&format!(
            "target_closed (cause: {cause}): {} is gone",
            base.root
        ));
        if !successors.is_empty() {
            let list: Vec<String> = successors.iter().map(|l| l.r.to_string()).collect();
            text.push_str(&format!("; successors: {}", list.join(", ")));
        }
        text.push('\n');
    }
    change_lines(opened, gone, base.root, text);
}

/// `+ root …` for each opened root, `- root …` for each gone one but `except`.
pub(crate) fn change_lines(
    opened: &[&Listed],
    gone: &[&Listed],
    except: RootRef,
    text: &mut String,
) {
    for l in opened {
        let front = if l.info.modal {
            " · a modal surface is now in front"
        } else {
            ""
        };
        text.push_str(&format!("+ root {}{front}\n", root_line(l.r, &l.info)));
    }
    for l in gone.iter().filter(|l| l.r != except) {
        text.push_str(&format!("- root {}\n", root_line(l.r, &l.info)));
    }
}

impl RootChanges {
    /// The structured form of opened and gone roots.
    pub(crate) fn of(opened: &[&Listed], gone: &[&Listed]) -> Self {
        let out = |ls: &[&Listed]| {
            ls.iter()
                .map(|l| root_out(l.r, &l.info, l.same_as))
                .collect()
        };
        RootChanges {
            opened: out(opened),
            closed: out(gone),
        }
    }
}

/// The successor as a diff from the base, or in full when a diff would mislead; its counts.
fn changes_text(
    svc: &Service,
    base: &State,
    s: &State,
    text: &mut String,
) -> (DiffCounts, Vec<crate::result::ImageContent>) {
    let mut images = Vec::new();
    let d = diff(base, s);
    match full_view_reason(base, s, &d) {
        None if d.is_empty() => text.push_str(&format!("no visible change in {}\n", s.id)),
        None => {
            text.push_str(&format!("changes in {} (diff from {}):\n", s.id, base.id));
            text.push_str(&render_diff(base, s, &d));
        }
        Some(reason) => {
            let why = match reason {
                uidriver_core::diff::FullViewReason::RootChanged => "the root changed",
                uidriver_core::diff::FullViewReason::LowMatch => {
                    "too few elements kept their identity"
                }
                uidriver_core::diff::FullViewReason::TooLarge => "the change is large",
            };
            text.push_str(&format!("full view ({why}):\n"));
            let full = full_view(svc, s, None);
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

/// `1. press @e12 → worked · semantic-action "click" · verified: read-back (…)`.
fn step_line(r: &StepReport) -> String {
    let mut s = format!("{}. {}", r.index + 1, r.action);
    if let Some(x) = r.grounding.r#ref {
        s.push_str(&format!(" {x}"));
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
    if let Some(d) = &r.verification.detail {
        s.push_str(&format!(" — {}", uidriver_core::outline::quote(d, 120)));
    }
    if let Some(e) = &r.error {
        s.push_str(&format!(" · {}: {}", e.code, e.message));
    }
    s
}
