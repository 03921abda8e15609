//! `expand_ui`: the subtree of one element. Cached, unless the subtree holds a region the
//! backend did not fully read: then that region is read live under the lane (epoch-checked, so
//! it cannot graft data across a concurrent write) and the result is a new successor state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::outline::{render_outline, OutlineOptions};
use uidriver_core::{ElementRef, Error, StateId};

use crate::render::DATA_NOTE;
use crate::{Service, ToolResult};

/// Arguments of `expand_ui`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// State (sN).
    pub state_id: StateId,
    /// Element (@eN) to unfold.
    #[serde(rename = "ref")]
    pub target: ElementRef,
    /// Most lines (default 80, max 2000).
    #[serde(default)]
    pub max_lines: Option<usize>,
    /// Also elements not showing.
    #[serde(default)]
    pub include_hidden: bool,
}

/// The structured result of `expand_ui`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// The state shown (a new successor when the region was read live).
    pub state_id: StateId,
    /// The element unfolded.
    #[serde(rename = "ref")]
    pub target: ElementRef,
    /// Whether a truncated region was read live.
    pub live: bool,
    /// Node lines in the outline text.
    pub outline_lines: usize,
    /// Elements in the subtree.
    pub node_count: usize,
}

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let state = svc.store.get(a.state_id)?;
    let i = state.resolve(a.target)?;
    let truncated = state
        .subtree(i)
        .into_iter()
        .find(|&n| state.snapshot.nodes[n].truncated.is_some());
    let (state, i, live) = match truncated {
        Some(t) => {
            let next = svc.read_region(&state, t, None).await?;
            let i = next.resolve(a.target)?;
            (next, i, true)
        }
        None => (state, i, false),
    };
    let opts = OutlineOptions {
        max_lines: a.max_lines.unwrap_or(80).clamp(5, 2000),
        show_hidden: a.include_hidden,
        ..OutlineOptions::default()
    };
    let outline = render_outline(&state, i, &opts);
    let mut text = String::new();
    if live {
        text.push_str(&format!(
            "read the truncated region live: new state {} (successor of {})\n",
            state.id, a.state_id
        ));
    }
    let note = if svc.data_note_due() { DATA_NOTE } else { "" };
    text.push_str(&format!(
        "{} in {}\n{note}{}",
        a.target, state.id, outline.text
    ));
    Ok(ToolResult::ok(
        text,
        &Output {
            state_id: state.id,
            target: a.target,
            live,
            outline_lines: outline.lines,
            node_count: state.subtree(i).len(),
        },
    ))
}
