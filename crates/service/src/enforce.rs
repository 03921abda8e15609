//! Where the service applies policies ([`crate::Policy`]): every call is checked before
//! anything reaches a backend, and every result on its way out. The policies in force for a
//! call are the service's own (`uidriver daemon --policy`, binding every client) and those its
//! caller brought (`uidriver mcp --policy`, sent with each request); a call must pass all of
//! them, so a client can narrow what the daemon allows but never widen it.
//!
//! Before the call: the tool; `evaluate_browser` and `desktop_input` against their switches;
//! URLs to load; `activateApp`; and the root the call targets (its `root`, or the root of its
//! `stateId`), by application and page origin. `act_ui` gets the headless default here.
//! While it runs: listing roots marks those of denied applications and origins, so
//! `find_roots` leaves them out and `observe_ui {app}` answers `policy_denied` (the forest
//! reads the policies of the running call from a task-local, see [`denial`]). After: a result
//! whose state shows a denied root (a page that navigated to a denied origin) is withheld, and
//! secret values are redacted from everything left.

use std::sync::Arc;

use serde_json::Value;
use uidriver_core::{Delivery, Error, RootInfo, RootRef, StateId};

use crate::files::{self, FileAccess, FileRule};
use crate::{secrets, Policy, Service, ToolName, ToolResult};

/// The policies in force for one call.
#[derive(Clone, Debug, Default)]
pub(crate) struct Policies(Vec<Arc<Policy>>);

tokio::task_local! {
    /// The policies of the call this task is running (set by [`Service::call_as`]).
    static IN_FORCE: Policies;
}

/// Why `info` is denied under the policies of the running call, if it is.
pub(crate) fn denial(info: &RootInfo) -> Option<Error> {
    IN_FORCE
        .try_with(|p| p.check_root(info).err())
        .ok()
        .flatten()
}

impl Policies {
    pub(crate) fn new(list: Vec<Arc<Policy>>) -> Self {
        Policies(list)
    }

    fn each(&self, f: impl Fn(&Policy) -> Result<(), Error>) -> Result<(), Error> {
        self.0.iter().try_for_each(|p| f(p))
    }

    /// Whether a root may be reached under every policy.
    pub(crate) fn check_root(&self, info: &RootInfo) -> Result<(), Error> {
        if self.0.is_empty() {
            return Ok(());
        }
        // Three reads of /proc per root, only when some policy names applications.
        let exe = match info.pid {
            Some(pid) if self.0.iter().any(|p| p.restricts_apps()) => {
                uidriver_procfs::executable_names(pid)
            }
            _ => vec![],
        };
        self.each(|p| p.check_root(info, &exe))
    }

    /// The checks made before the call runs; may set `act_ui`'s headless default in `args`.
    fn before(&self, svc: &Service, tool: &str, args: &mut Value) -> Result<(), Error> {
        self.each(|p| p.check_tool(tool))?;
        let text = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let name = ToolName::from_name(tool);
        match name {
            Some(ToolName::EvaluateBrowser) => self.each(Policy::check_evaluate)?,
            Some(ToolName::DesktopInput) => {
                self.each(Policy::check_raw_input)?;
                if let Some(app) = text("activateApp") {
                    // It may launch the app: `/usr/bin/mousepad --x` is mousepad too.
                    let mut names = vec![app.clone()];
                    if let Some(cmd) = app.split_whitespace().next() {
                        names.extend(cmd.rsplit('/').next().map(str::to_string));
                    }
                    self.each(|p| p.check_app(&names))?;
                }
            }
            Some(ToolName::NavigateBrowser | ToolName::LaunchBrowser) => {
                if let Some(url) = text("url") {
                    self.each(|p| p.check_url(&url))?;
                    // Loading an allowed URL into a page that shows a denied origin only
                    // leaves it (and is the way out); back, forward and reload act on it.
                    if name == Some(ToolName::NavigateBrowser) {
                        return Ok(());
                    }
                }
            }
            Some(ToolName::ActUi) => self.headless(args)?,
            _ => {}
        }
        match target(svc, args) {
            Some(info) => self.check_root(&info),
            None => Ok(()),
        }
    }

    /// `act_ui` without `headless` gets the policies' default; with `headless: false` it is
    /// denied where raw input is off.
    fn headless(&self, args: &mut Value) -> Result<(), Error> {
        let Some(obj) = args.as_object_mut() else {
            return Ok(());
        };
        match obj.get("headless") {
            Some(Value::Bool(false)) => self.each(Policy::check_raw_input).map_err(|e| {
                e.with_hint("Use semantic steps (press, setText, setValue) with headless: true.")
            }),
            None if self.0.iter().any(|p| p.headless_default()) => {
                obj.insert("headless".into(), Value::Bool(true));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The checks made on the result: a state showing a denied root is withheld; secrets go.
    fn after(&self, svc: &Service, tool: &str, r: &mut ToolResult) {
        if !r.is_error {
            let state = r.structured.get("stateId").and_then(Value::as_str);
            let state = state.and_then(|s| s.parse::<StateId>().ok());
            if let Some(st) = state.and_then(|id| svc.store.get(id).ok()) {
                if let Err(e) = self.check_root(&st.root_info) {
                    let what = "something a policy denies";
                    *r = ToolResult::error(&withheld(st.root, tool, e, what));
                }
            }
        }
        let all: Vec<String> = self.0.iter().flat_map(|p| p.secrets()).cloned().collect();
        secrets::redact_values(r, &all);
    }
}

impl FileRule for Policies {
    /// Whether a file (resolved) lies under every policy's `[files] roots` that names some.
    fn check_file(&self, field: &str, resolved: &std::path::Path) -> Result<(), Error> {
        self.each(|p| p.check_file(field, resolved))
    }
}

/// The root a call names: its `root`, else the root of its `stateId` (as stored). Ids that do
/// not parse or are unknown are left to the tool, which reports them.
fn target(svc: &Service, args: &Value) -> Option<RootInfo> {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    if let Some(r) = text("root").and_then(|r| r.parse::<RootRef>().ok()) {
        if let Ok(info) = svc.roots.get(r) {
            return Some(info);
        }
    }
    let id = text("stateId").and_then(|s| s.parse::<StateId>().ok())?;
    svc.store.get(id).ok().map(|s| s.root_info.clone())
}

impl Service {
    /// Runs one tool call under the service's policy and `callers` (the policies the caller
    /// brought), with the caller's file roots (`files.rs`; a call without them gets the
    /// daemon's working directory). A denied call answers `policy_denied` naming the rule, and
    /// nothing is sent.
    pub async fn call_as(
        &self,
        callers: &[Arc<Policy>],
        tool: &str,
        mut args: Value,
    ) -> ToolResult {
        // A caller's policy arrives as JSON, past the file checks: check it again (a bad
        // origin in a deny list must not match nothing and so deny nothing).
        if let Some(e) = callers.iter().find_map(|p| p.revalidate().err()) {
            return ToolResult::error(&e);
        }
        let mut list: Vec<Arc<Policy>> = self.config.policy.iter().cloned().collect();
        list.extend(callers.iter().cloned());
        let policies = Policies::new(list);
        let access = crate::call::file_access().unwrap_or_else(|| self.config.files.clone());
        let checked = files::check_call(&access, &policies, tool, &mut args)
            .and_then(|()| policies.before(self, tool, &mut args));
        let mut r = match checked {
            Err(e) => {
                tracing::info!(tool, rule = ?e.details, "a policy denied the call");
                ToolResult::error(&e)
            }
            Ok(()) if policies.0.is_empty() => {
                FILES
                    .scope(access.clone(), self.call_unchecked(tool, args))
                    .await
            }
            Ok(()) => {
                let work = IN_FORCE.scope(policies.clone(), self.call_unchecked(tool, args));
                FILES.scope(access.clone(), work).await
            }
        };
        withhold_file_pages(self, &access, &policies, tool, &mut r);
        if !policies.0.is_empty() {
            policies.after(self, tool, &mut r);
        }
        r
    }
}

tokio::task_local! {
    /// The file roots of the call this task is running (set by [`Service::call_as`]).
    static FILES: FileAccess;
}

/// The file roots of the running call (a launch puts its downloads under them).
pub(crate) fn files_in_force() -> Option<FileAccess> {
    FILES.try_with(Clone::clone).ok()
}

/// A result whose state shows a `file:` page outside the caller's roots (a local page that
/// followed a link out of them) is withheld: what a page shows is a way out of the machine.
fn withhold_file_pages(
    svc: &Service,
    access: &FileAccess,
    policies: &Policies,
    tool: &str,
    r: &mut ToolResult,
) {
    if r.is_error {
        return;
    }
    let state = r.structured.get("stateId").and_then(Value::as_str);
    let Some(st) = state
        .and_then(|s| s.parse::<StateId>().ok())
        .and_then(|id| svc.store.get(id).ok())
    else {
        return;
    };
    let info = &st.root_info;
    if let Some(e) = files::page_denial(access, policies, info.kind, info.url.as_deref()) {
        let what = "a local file outside the allowed roots";
        *r = ToolResult::error(&withheld(st.root, tool, e, what));
    }
}

/// The error that stands in for a result whose root now shows `what` (denied by `e`); its
/// delivery says what the tool had sent.
fn withheld(root: RootRef, tool: &str, e: Error, what: &str) -> Error {
    let delivery = match ToolName::from_name(tool) {
        Some(ToolName::NavigateBrowser) => Delivery::Delivered,
        Some(ToolName::ActUi) => Delivery::Maybe,
        _ => Delivery::NotDelivered,
    };
    Error {
        message: format!(
            "{root} now shows {what}: {}; the result is withheld",
            e.message.trim_end_matches("; nothing was sent")
        ),
        ..e
    }
    .delivered(delivery)
}
