//! `close_root`: asks a window or page to close the way its user would, then says what
//! happened, judged by listing roots again: the root is gone, or it is still open, maybe with
//! a new root in front (a "save changes?" dialog) for the caller to answer. Nothing is ever
//! killed; how the request is sent is the backend's (`Backend::close_root`).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::{Deadline, Delivery, Error, ErrorCode, RootRef};

use crate::forest::{root_changes, Listed};
use crate::render::{change_lines, root_line, RootChanges};
use crate::{Service, ToolResult};

/// How long a root is given to go or to ask: an editor's "save changes?" dialog appears within
/// a second here; a page's `beforeunload` dialog at once.
const WAIT: Duration = Duration::from_secs(5);
/// How often roots are listed while waiting.
const POLL: Duration = Duration::from_millis(100);

/// Arguments of `close_root`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// Root (@rN).
    pub root: RootRef,
}

/// The structured result of `close_root`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// The root asked to close.
    pub root: RootRef,
    /// Whether it is gone from the root list.
    pub closed: bool,
    /// Roots of its app that opened (a save dialog) or closed.
    pub root_changes: RootChanges,
}

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let wait = WAIT;
    let info = svc.root_info(a.root)?;
    let backend = svc.backend_named(&info.backend)?.clone();
    // Listing and sending get their own time besides the wait for the root to go.
    let deadline = Deadline::after(wait + Duration::from_secs(5));
    let guard = svc.lanes.enter(&info.resource).await;
    let before = svc.app_roots(&info, deadline).await;
    let Some(now) = before.iter().find(|l| l.r == a.root) else {
        return Err(Error::new(
            ErrorCode::TargetClosed,
            format!("{} is no longer open; nothing was sent", a.root),
        ));
    };
    let info = now.info.clone();
    backend
        .close_root(&info, deadline)
        .await
        .map_err(|e| match e.code {
            ErrorCode::Timeout => e.delivered(Delivery::Maybe),
            _ => e,
        })?;
    // The app may change whatever it shows: earlier states of it are stale for writes.
    guard.bump();
    let after = settle(svc, &info, a.root, &before, Deadline::after(wait)).await;
    drop(guard);
    Ok(render(a.root, &info, wait, &before, &after))
}

/// Lists the app's roots until the root is gone, something new opened (a dialog asking what to
/// do with unsaved work), or `until`.
async fn settle(
    svc: &Service,
    info: &uidriver_core::RootInfo,
    root: RootRef,
    before: &[Listed],
    until: Deadline,
) -> Vec<Listed> {
    loop {
        let after = svc.app_roots(info, until.cap(Duration::from_secs(2))).await;
        let gone = !after.iter().any(|l| l.r == root);
        let (opened, _) = root_changes(before, &after);
        if gone || !opened.is_empty() || until.expired() {
            return after;
        }
        tokio::time::sleep(POLL.min(until.remaining())).await;
    }
}

fn render(
    root: RootRef,
    info: &uidriver_core::RootInfo,
    wait: Duration,
    before: &[Listed],
    after: &[Listed],
) -> ToolResult {
    let closed = !after.iter().any(|l| l.r == root);
    let (opened, gone) = root_changes(before, after);
    let mut text = if closed {
        format!(
            "closed {}: gone from the root list\n",
            root_line(root, info)
        )
    } else if opened.is_empty() {
        format!(
            "{} is still open after {} ms: its app did not close it (nothing was killed)\n",
            root_line(root, info),
            wait.as_millis()
        )
    } else {
        format!(
            "{} is still open: its app asks first; answer the new root with observe_ui and act_ui\n",
            root_line(root, info)
        )
    };
    change_lines(&opened, &gone, root, &mut text);
    ToolResult::ok(
        text,
        &Output {
            root,
            closed,
            root_changes: RootChanges::of(&opened, &gone),
        },
    )
}
