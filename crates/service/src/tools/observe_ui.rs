//! `observe_ui`: a new state of one root and its folded outline.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use uidriver_core::outline::{render_outline, OutlineOptions};
use uidriver_core::{Deadline, Error, RootRef, State};

use crate::look::{LookSpec, Mode};
use crate::render::{state_header, state_json, DATA_NOTE};
use crate::{Service, ToolResult};

/// Arguments of `observe_ui`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// The root to observe (@rN from find_roots).
    #[serde(default)]
    pub root: Option<RootRef>,
    /// Instead of root: the one root whose app name contains this text.
    #[serde(default)]
    pub app: Option<String>,
    /// Instead of root: the one root whose title contains this text.
    #[serde(default)]
    pub title: Option<String>,
    /// semantic, visual or fused (default).
    #[serde(default)]
    pub mode: Mode,
    /// Most node lines in the outline (default 150).
    #[serde(default)]
    pub max_lines: Option<usize>,
    /// Deadline in milliseconds (default 8000, at most 60000).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

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
    Ok(full_view(svc, &state, a.max_lines))
}

/// The full folded view of a state: header, data note, outline, notes; image attached.
pub(crate) fn full_view(svc: &Service, state: &State, max_lines: Option<usize>) -> ToolResult {
    let opts = OutlineOptions {
        max_lines: max_lines
            .unwrap_or(svc.config.outline_lines)
            .clamp(10, 2000),
        ..OutlineOptions::default()
    };
    let outline = render_outline(state, 0, &opts);
    let mut text = format!("{}\n{DATA_NOTE}\n{}", state_header(state), outline.text);
    for n in &state.snapshot.notes {
        text.push_str(&format!("note: {n}\n"));
    }
    if outline.folded > 0 {
        text.push_str(&format!(
            "({} folded lines: search_ui or expand_ui on {} reach everything)\n",
            outline.folded, state.id
        ));
    }
    let mut structured = state_json(state);
    structured["outlineLines"] = json!(outline.lines);
    let mut r = ToolResult::ok(text, structured);
    if let Some(img) = &state.image {
        r = r.with_image(&img.png);
    }
    r
}
