//! `observe_ui`: a new state of one root and its folded outline, or, when this session was shown
//! the root before and little changed, what changed since (`shown.rs`, `render::changes_view`).

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use uidriver_core::{Deadline, Error, RootRef};

use crate::look::{LookSpec, Mode};
use crate::render::{changes_view, full_view};
use crate::shown::Seen;
use crate::{Service, ToolResult};

/// Arguments of `observe_ui`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// Root (@rN).
    #[serde(default)]
    pub root: Option<RootRef>,
    /// Or: app name contains this.
    #[serde(default)]
    pub app: Option<String>,
    /// Or: title contains this.
    #[serde(default)]
    pub title: Option<String>,
    /// semantic: tree; visual: +image, OCR; fused (default): image if tree poor.
    #[serde(default)]
    pub mode: Mode,
    /// Most lines (default 150).
    #[serde(default)]
    pub max_lines: Option<usize>,
    /// ms (default 8000, max 60000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Outline even when seen.
    #[serde(default)]
    pub full: bool,
}

/// The structured result of `observe_ui` (and `navigate_browser`): the new state in full view
/// (`render.rs`).
pub use crate::render::ViewOut as Output;

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let timeout = match a.timeout_ms {
        Some(t) if t > 60_000 => return Err(Error::invalid("timeoutMs", "at most 60000")),
        Some(t) => Duration::from_millis(t.max(100)),
        None => svc.config.observe_timeout,
    };
    let deadline = Deadline::after(timeout);
    let root = svc
        .pick_root(a.root, a.app.as_deref(), a.title.as_deref(), deadline)
        .await?;
    let info = svc.root_info(root)?;
    crate::call::doing(format!("observe_ui: observing {root} ({})", info.app));
    let guard = svc.lanes.enter(&info.resource).await;
    let info = svc.refresh_root(root, &info, deadline).await?;
    let state = svc
        .look(
            LookSpec {
                root,
                info: &info,
                epoch: guard.epoch(),
                mode: a.mode,
                successor_of: None,
            },
            deadline,
        )
        .await?;
    drop(guard);
    let max_lines = a.max_lines.unwrap_or(svc.config.outline_lines);
    let full = full_view(&state, max_lines, svc.data_note_due());
    let Some(viewer) = crate::call::viewer() else {
        return Ok(full);
    };
    // What this session was last shown of the root, when it was shown with this line budget
    // (or as an act's changes) and is still stored.
    let seen = svc
        .shown
        .last(viewer, root)
        .filter(|s| !a.full && s.max_lines.is_none_or(|m| m == max_lines))
        .and_then(|s| svc.store.get(s.state).ok());
    svc.shown.record(
        viewer,
        root,
        Seen {
            state: state.id,
            max_lines: Some(max_lines),
        },
    );
    Ok(seen
        .and_then(|seen| changes_view(&seen, &state, &full))
        .unwrap_or(full))
}
