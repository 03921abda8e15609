//! `expand_ui`: the subtree of one element. Cached, unless the subtree holds a region the
//! backend did not fully read: then that region is read live under the lane (epoch-checked, so
//! it cannot graft data across a concurrent write) and the result is a new successor state.

use std::sync::Arc;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::outline::{render_outline, OutlineOptions};
use uidriver_core::{Deadline, ElementRef, Error, NewState, ObserveRequest, State, StateId};

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
            let next = read_region(svc, &state, t, None).await?;
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
    text.push_str(&format!(
        "{} in {}\n{DATA_NOTE}\n{}",
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

/// Reads the subtree of `at` again and stores the grafted result as a successor state;
/// `seek`: text the caller looks for, which a backend may reach beyond what it would read.
pub(crate) async fn read_region(
    svc: &Service,
    state: &Arc<State>,
    at: usize,
    seek: Option<&str>,
) -> Result<Arc<State>, Error> {
    let started = Instant::now();
    let backend = svc.backend_named(&state.root_info.backend)?.clone();
    let deadline = Deadline::after(svc.config.observe_timeout);
    let guard = svc.lanes.enter(&state.root_info.resource).await;
    guard.check(state.epoch)?;
    let req = ObserveRequest {
        max_nodes: uidriver_core::backend::NODE_GUARD,
        max_children: 5_000,
        // Match the rest of the state: rectangles only where the state has an image.
        bounds: state.image.is_some(),
        seek: seek.map(str::to_string),
    };
    let sub = tokio::time::timeout(
        deadline.remaining(),
        backend.observe_region(&state.root_info, state, at, &req, deadline),
    )
    .await
    .map_err(|_| {
        Error::new(
            uidriver_core::ErrorCode::AppUnresponsive,
            "reading the region timed out",
        )
    })??;
    let mut snapshot = state.snapshot.graft(at, &sub).map_err(|why| {
        Error::internal(format!(
            "the {} backend returned a malformed region ({why})",
            state.root_info.backend
        ))
    })?;
    crate::secrets::redact(&mut snapshot);
    snapshot.timings.total_ms = started.elapsed().as_secs_f64() * 1000.0;
    let next = State::build(NewState {
        id: svc.store.allocate(),
        root: state.root,
        root_info: state.root_info.clone(),
        epoch: guard.epoch(),
        snapshot,
        image: None,
        ocr: vec![],
        previous: Some(state.clone()),
        successor: true,
    });
    let next = svc.store.insert(next);
    svc.persist_ids();
    Ok(next)
}
