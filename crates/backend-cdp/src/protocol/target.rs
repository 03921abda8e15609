//! The `Target` domain: the browser's pages (and frames) as targets, listed, created,
//! attached to (one flattened session each), attached automatically as they appear, closed.

use serde::{Deserialize, Serialize};

use super::Empty;

/// `Target.getTargets`.
#[derive(Serialize)]
pub struct GetTargets {}
/// Reply of `Target.getTargets`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Targets {
    /// Every target.
    pub target_infos: Vec<TargetInfo>,
}
command!(GetTargets, "Target.getTargets", Targets);

/// One target.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// Its id.
    pub target_id: String,
    /// `page`, `iframe`, `worker`, `browser`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Title.
    pub title: String,
    /// URL.
    pub url: String,
}

/// `Target.attachToTarget`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTarget<'a> {
    /// Target.
    pub target_id: &'a str,
    /// Always true: one socket carries every session.
    pub flatten: bool,
}
/// Reply of `Target.attachToTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attached {
    /// The session to address the page with.
    pub session_id: String,
}
command!(AttachToTarget<'_>, "Target.attachToTarget", Attached);

/// `Target.setDiscoverTargets`: keeps the browser's list of targets (out-of-process frames
/// included) alive, so they can be attached to by id.
#[derive(Serialize)]
pub struct SetDiscoverTargets {
    /// On.
    pub discover: bool,
}
command!(SetDiscoverTargets, "Target.setDiscoverTargets", Empty);

/// `Target.setAutoAttach`: attach to targets as they appear (on the browser session: every
/// target the filter lets through), optionally holding each before its first script.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAutoAttach {
    /// On.
    pub auto_attach: bool,
    /// Hold new targets until `Runtime.runIfWaitingForDebugger`.
    pub wait_for_debugger_on_start: bool,
    /// One socket for every session (required on the browser session).
    pub flatten: bool,
    /// Which targets (first match wins; none matching is excluded).
    pub filter: Vec<TargetFilter>,
}
command!(SetAutoAttach, "Target.setAutoAttach", Empty);

/// One entry of a target filter.
#[derive(Serialize)]
pub struct TargetFilter {
    /// The target type, e.g. `page`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Exclude (rather than include) it.
    pub exclude: bool,
}

/// Params of the `Target.attachedToTarget` event.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachedToTarget {
    /// The new session.
    pub session_id: String,
    /// The target.
    pub target_info: TargetInfo,
    /// Held until `Runtime.runIfWaitingForDebugger`.
    #[serde(default)]
    pub waiting_for_debugger: bool,
}

/// `Target.createTarget`.
#[derive(Serialize)]
pub struct CreateTarget<'a> {
    /// First URL.
    pub url: &'a str,
}
/// Reply of `Target.createTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    /// The new page.
    pub target_id: String,
}
command!(CreateTarget<'_>, "Target.createTarget", Created);

/// `Target.closeTarget`: closes a page as its tab's close button would (its `beforeunload`
/// handler may keep it open behind a dialog).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTarget<'a> {
    /// Page.
    pub target_id: &'a str,
}
command!(CloseTarget<'_>, "Target.closeTarget", Empty);
