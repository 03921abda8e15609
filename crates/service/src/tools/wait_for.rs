//! `wait_for`: wait until a condition holds in a root, re-observing only when the backend
//! reports a change (accessibility or page events) or at a bounded re-check interval. The lane
//! is held only while looking, never while waiting, so acts on the same app are not blocked.
//! `download: true` waits instead for a browser's download to finish (no look, no lane).
//!
//! [`run`] reads as its phases over a [`WaitCall`] (what was asked, resolved): the condition
//! checked (`check`, or the download wait) → `resolve` (the root and state named, refs
//! resolved in the state, the backend) → `watch` (core's `watch` over [`Looks`], a timeout
//! named by the condition) → `render` of how it ended ([`Waited`]).

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use uidriver_core::outline::describe;
use uidriver_core::search::{search, Query};
use uidriver_core::watch::{watch, End, Sighting, Watcher};
use uidriver_core::{
    Backend, Deadline, Download, DownloadState, ElementRef, Error, ErrorCode, Expect, Role,
    RootInfo, RootRef, State, StateId,
};

use crate::look::{LookSpec, Mode};
use crate::render::{download_line, state_header, state_out, StateOut};
use crate::{Service, ToolResult};

/// Longest time between two checks when no event arrives.
const RECHECK: Duration = Duration::from_millis(1000);

/// Arguments of `wait_for`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// Root (@rN), or give stateId.
    #[serde(default)]
    pub root: Option<RootRef>,
    /// State (for ref, scopeRef).
    #[serde(default)]
    pub state_id: Option<StateId>,
    /// Text to appear (case-insensitive).
    #[serde(default)]
    pub text: Option<String>,
    /// Role to appear.
    #[serde(default)]
    pub role: Option<String>,
    /// Value to have.
    #[serde(default)]
    pub value: Option<String>,
    /// Element (@eN) to check.
    #[serde(rename = "ref", default)]
    pub target: Option<ElementRef>,
    /// Only inside this element.
    #[serde(default)]
    pub scope_ref: Option<ElementRef>,
    /// Wait for it to be false.
    #[serde(default)]
    pub gone: bool,
    /// Instead: a download to finish.
    #[serde(default)]
    pub download: bool,
    /// ms (default 10000, max 120000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// The structured result of `wait_for`: the state where the condition held, or that the root
/// closed (which satisfies a `gone` condition on the whole root).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// Always true (a timeout is an error).
    pub met: bool,
    /// The root closed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub root_closed: bool,
    /// Observations made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<u32>,
    /// The state where it held.
    #[serde(flatten)]
    pub state: Option<StateOut>,
    /// The downloads that finished (download: true).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<Download>,
}

/// The checks that need no live look: a download wait names nothing else; any other wait a
/// valid condition (returned).
pub(crate) fn check(a: &Args) -> Result<Option<Expect>, Error> {
    if !a.download {
        return expect_of(a).map(Some);
    }
    let other = a.text.is_some()
        || a.role.is_some()
        || a.value.is_some()
        || a.target.is_some()
        || a.scope_ref.is_some()
        || a.gone;
    if other {
        return Err(Error::invalid(
            "download",
            "a download wait takes only root or stateId and timeoutMs",
        ));
    }
    Ok(None)
}

/// `wait_for {download: true}`: the downloads running in the page's browser, or else the next
/// one, waited for until none is running.
async fn download(svc: &Service, a: &Args, timeout: u64) -> Result<ToolResult, Error> {
    let (r, info) = svc.page_root(a.root, a.state_id)?;
    let bc = svc.browser()?;
    let deadline = Deadline::after(Duration::from_millis(timeout));
    crate::call::doing(format!("wait_for: a download of {r}"));
    let now = bc.downloads(&info, deadline).await?;
    let after = now
        .iter()
        .filter(|d| d.state == DownloadState::Running)
        .map(|d| d.seq - 1)
        .min()
        .unwrap_or_else(|| now.last().map(|d| d.seq).unwrap_or(0));
    let got = bc.settle_downloads(&info, after, deadline).await?;
    if got.is_empty() || got.iter().any(|d| d.state == DownloadState::Running) {
        let what = if got.is_empty() {
            "no download began"
        } else {
            "a download is still running"
        };
        return Err(
            Error::new(ErrorCode::Timeout, format!("{what} within {timeout} ms"))
                .with_details(json!({ "downloads": got })),
        );
    }
    let mut text = String::new();
    for d in &got {
        text.push_str(&download_line(d));
        text.push('\n');
    }
    let out = Output {
        met: true,
        root_closed: false,
        checks: None,
        state: None,
        downloads: got,
    };
    Ok(ToolResult::ok(text, &out))
}

/// The condition waited for, checked.
fn expect_of(a: &Args) -> Result<Expect, Error> {
    let expect = Expect {
        text: a.text.clone(),
        role: a.role.clone(),
        value: a.value.clone(),
        target: a.target,
        scope_ref: a.scope_ref,
        gone: a.gone,
        timeout_ms: None,
    };
    expect.validate()?;
    Ok(expect)
}

/// One `wait_for` call, phase by phase (see the module doc).
pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let timeout = a.timeout_ms.unwrap_or(10_000);
    if timeout > 120_000 {
        return Err(Error::invalid("timeoutMs", "at most 120000"));
    }
    let Some(expect) = check(&a)? else {
        return download(svc, &a, timeout).await;
    };
    let call = WaitCall::resolve(svc, &a, expect, timeout)?;
    let waited = call.watch(svc).await?;
    Ok(call.render(waited))
}

/// What was asked, resolved: the condition, the root it is watched in, the caller's state (for
/// refs, and the first look's predecessor) and the root's backend.
struct WaitCall {
    expect: Expect,
    root: RootRef,
    base: Option<Arc<State>>,
    backend: Arc<dyn Backend>,
    deadline: Deadline,
    /// The caller's budget in ms, as errors and progress name it.
    timeout: u64,
}

/// How a wait ended well (a timeout is an error).
enum Waited {
    /// The condition held in this state, after `checks` looks.
    Held { state: Arc<State>, checks: u32 },
    /// The root closed, which satisfies a `gone` condition on the whole root.
    RootClosed,
}

impl WaitCall {
    /// The root and state named, checked against each other; every ref resolved in the state;
    /// the root's backend found. Nothing has been looked at yet.
    fn resolve(svc: &Service, a: &Args, expect: Expect, timeout: u64) -> Result<Self, Error> {
        let base = a.state_id.map(|s| svc.store.get(s)).transpose()?;
        if (a.target.is_some() || a.scope_ref.is_some()) && base.is_none() {
            return Err(Error::invalid(
                "stateId",
                "ref and scopeRef belong to a state: give stateId",
            ));
        }
        let root = match (a.root, &base) {
            (Some(r), Some(b)) if r != b.root => {
                return Err(Error::invalid(
                    "root",
                    format!("{r} is not the root of {}", b.id),
                ))
            }
            (Some(r), _) => r,
            (None, Some(b)) => b.root,
            (None, None) => return Err(Error::invalid("root", "give root or stateId")),
        };
        if let Some(b) = &base {
            for r in [a.target, a.scope_ref].into_iter().flatten() {
                b.resolve(r)?;
            }
        }
        let deadline = Deadline::after(Duration::from_millis(timeout));
        let backend = {
            let info = svc.root_info(root)?;
            svc.backend_named(&info.backend)?.clone()
        };
        Ok(WaitCall {
            expect,
            root,
            base,
            backend,
            deadline,
            timeout,
        })
    }

    /// Looks until the condition holds (core's [`watch`] over [`Looks`]: each look under the
    /// lane, the next after a change event or [`RECHECK`]). Running out of time is `timeout`
    /// naming the condition and the last look ([`ran_out`]); the root closing ends a `gone`
    /// on the whole root well and any other wait with `target_closed`.
    async fn watch(&self, svc: &Service) -> Result<Waited, Error> {
        let (expect, timeout) = (&self.expect, self.timeout);
        crate::call::doing(format!("wait_for: watching {}", self.root));
        let mut w = Looks {
            svc,
            root: self.root,
            backend: &*self.backend,
            deadline: self.deadline,
            base: self.base.clone(),
            info: None,
            looks: 0,
            timeout,
        };
        let out = watch(&mut w, expect, self.deadline, RECHECK).await;
        // The last look, or the caller's state when none was taken.
        let last = out.last.clone().or(w.base);
        match out.end {
            End::Held(state) => Ok(Waited::Held {
                state,
                checks: out.checks,
            }),
            End::TimedOut => Err(ran_out(expect, timeout, out.checks, last.as_deref())),
            End::Failed(e) if out_of_time(&e, self.deadline) => {
                Err(ran_out(expect, timeout, out.checks, last.as_deref()))
            }
            End::Failed(e) => Err(e),
            End::Closed(_)
                if expect.gone && expect.target.is_none() && expect.scope_ref.is_none() =>
            {
                Ok(Waited::RootClosed)
            }
            End::Closed(e) => Err(e),
        }
    }

    /// The result: the condition met and the state where it held, with up to 10 elements that
    /// match it (unless it was a `gone`); or that the root closed.
    fn render(&self, waited: Waited) -> ToolResult {
        let expect = &self.expect;
        let (state, checks) = match waited {
            Waited::Held { state, checks } => (state, checks),
            Waited::RootClosed => {
                return ToolResult::ok(
                    format!(
                        "{} closed, so the condition ({}) holds",
                        self.root,
                        expect.describe()
                    ),
                    &Output {
                        met: true,
                        root_closed: true,
                        checks: None,
                        state: None,
                        downloads: vec![],
                    },
                );
            }
        };
        let mut text = format!(
            "condition met after {checks} checks: {}\n{}\n",
            expect.describe(),
            state_header(&state)
        );
        if !expect.gone {
            let q = Query {
                text: expect.text.clone(),
                roles: expect
                    .role
                    .as_deref()
                    .and_then(Role::from_wire)
                    .into_iter()
                    .collect(),
                ..Query::default()
            };
            for m in search(&state, &q).iter().take(10) {
                text.push_str(&format!(
                    "{} {}\n",
                    state.ref_of(m.index),
                    describe(&state.snapshot.nodes[m.index])
                ));
            }
        }
        let out = Output {
            met: true,
            root_closed: false,
            checks: Some(checks),
            state: Some(state_out(&state)),
            downloads: vec![],
        };
        ToolResult::ok(text, &out)
    }
}

/// wait_for's looks: each under the root's lane, at the root as it is listed now.
struct Looks<'a> {
    svc: &'a Service,
    root: RootRef,
    backend: &'a dyn uidriver_core::Backend,
    deadline: Deadline,
    /// The state the caller gave: the first look succeeds it.
    base: Option<Arc<State>>,
    /// The root as the last look found it.
    info: Option<RootInfo>,
    looks: u32,
    timeout: u64,
}

#[async_trait::async_trait]
impl Watcher for Looks<'_> {
    async fn look(&mut self, last: Option<&Arc<State>>) -> Result<Sighting, Error> {
        let (svc, root, deadline) = (self.svc, self.root, self.deadline);
        let info = svc.root_info(root)?;
        let guard = svc.lanes.enter(&info.resource).await;
        let info = match svc.refresh_root(root, &info, deadline).await {
            Ok(i) => i,
            Err(e) if e.code == ErrorCode::TargetClosed => return Ok(Sighting::Closed(e)),
            Err(e) => return Err(e),
        };
        let state = svc
            .look(
                LookSpec {
                    root,
                    info: &info,
                    epoch: guard.epoch(),
                    mode: Mode::Semantic,
                    successor_of: last.or(self.base.as_ref()).cloned(),
                },
                deadline.cap(Duration::from_secs(8)),
            )
            .await?;
        drop(guard);
        self.info = Some(info);
        self.looks += 1;
        crate::call::doing(format!(
            "wait_for: watching {root}, not met after {} looks of {:.1} s allowed",
            self.looks,
            self.timeout as f64 / 1000.0
        ));
        Ok(Sighting::Seen(state))
    }

    async fn changed(&mut self, within: Deadline) {
        if let Some(info) = &self.info {
            let _ = self.backend.wait_change(info, within).await;
        }
    }
}

/// Whether a look failed because the wait's own deadline ran out (whichever call it ran out
/// in: a backend says `timeout`, the service's observation guard `app_unresponsive`).
fn out_of_time(e: &Error, deadline: Deadline) -> bool {
    deadline.expired() && matches!(e.code, ErrorCode::Timeout | ErrorCode::AppUnresponsive)
}

/// The `timeout` of a wait that looked `checks` times, the last look being `last`: it names
/// the condition, not the call that was in flight when time ran out.
fn ran_out(expect: &Expect, timeout: u64, checks: u32, last: Option<&State>) -> Error {
    let e = Error::new(
        ErrorCode::Timeout,
        format!(
            "{} did not happen within {timeout} ms ({checks} checks)",
            expect.describe()
        ),
    );
    match last {
        Some(state) => e
            .with_hint(format!(
                "the last observation is {}; look at it to see what is there instead",
                state.id
            ))
            .with_details(json!({ "lastStateId": state.id.to_string(), "checks": checks })),
        None => e.with_details(json!({ "checks": checks })),
    }
}
