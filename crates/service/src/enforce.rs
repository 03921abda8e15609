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

use crate::{secrets, Policy, Service, ToolResult};

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
        match tool {
            "evaluate_browser" => self.each(Policy::check_evaluate)?,
            "desktop_input" => {
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
            "navigate_browser" | "launch_browser" => {
                if let Some(url) = text("url") {
                    self.each(|p| p.check_url(&url))?;
                    // Loading an allowed URL into a page that shows a denied origin only
                    // leaves it (and is the way out); back, forward and reload act on it.
                    if tool == "navigate_browser" {
                        return Ok(());
                    }
                }
            }
            "act_ui" => self.headless(args)?,
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
                    let delivery = match tool {
                        "navigate_browser" => Delivery::Delivered,
                        "act_ui" => Delivery::Maybe,
                        _ => Delivery::NotDelivered,
                    };
                    let withheld = Error {
                        message: format!(
                            "{} now shows something a policy denies: {}; the result is withheld",
                            st.root,
                            e.message.trim_end_matches("; nothing was sent")
                        ),
                        ..e
                    }
                    .delivered(delivery);
                    *r = ToolResult::error(&withheld);
                }
            }
        }
        let all: Vec<String> = self.0.iter().flat_map(|p| p.secrets()).cloned().collect();
        secrets::redact_values(r, &all);
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
    /// brought). A denied call answers `policy_denied` naming the rule, and nothing is sent.
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
        if policies.0.is_empty() {
            return self.call_unchecked(tool, args).await;
        }
        let mut r = match policies.before(self, tool, &mut args) {
            Err(e) => {
                tracing::info!(tool, rule = ?e.details, "a policy denied the call");
                ToolResult::error(&e)
            }
            Ok(()) => {
                IN_FORCE
                    .scope(policies.clone(), self.call_unchecked(tool, args))
                    .await
            }
        };
        policies.after(self, tool, &mut r);
        r
    }
}
