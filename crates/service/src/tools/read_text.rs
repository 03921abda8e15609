//! `read_text`: a range of an element's text and its formatting, read live from the
//! application (by range, never the whole text), or served from the state when the backend
//! cannot read text and the state holds all of it.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::outline::quote;
use uidriver_core::{Deadline, ElementRef, Error, StateId, TextSlice};

use crate::{Service, ToolResult};

/// Longest range one call returns, in characters.
const MAX_LENGTH: u32 = 20_000;

/// Arguments of `read_text`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// State (sN).
    pub state_id: StateId,
    /// Element (@eN).
    #[serde(rename = "ref")]
    pub target: ElementRef,
    /// First character (default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Characters (default 4000, max 20000).
    #[serde(default)]
    pub length: Option<u32>,
}

/// The structured result of `read_text`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// The state the element belongs to.
    pub state_id: StateId,
    /// The element.
    #[serde(rename = "ref")]
    pub target: ElementRef,
    /// The range read.
    #[serde(flatten)]
    pub slice: TextSlice,
}

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let length = a.length.unwrap_or(4000);
    if length == 0 || length > MAX_LENGTH {
        return Err(Error::invalid(
            "length",
            format!("expected 1 to {MAX_LENGTH}"),
        ));
    }
    let state = svc.store.get(a.state_id)?;
    let i = state.resolve(a.target)?;
    let node = &state.snapshot.nodes[i];
    if crate::secrets::is_secret(node) {
        return Err(Error::unsupported(format!(
            "{} is a password field: its text is never read",
            a.target
        ))
        .with_hint("The outline shows whether it holds anything (••••); setText can replace it."));
    }
    let start = a.offset.unwrap_or(0);
    let end = start.saturating_add(length);
    let cached = node.value.known().filter(|v| {
        node.text_len
            .is_none_or(|l| l as usize == v.chars().count())
            && (node.text_len.is_some() || node.caps.contains(uidriver_core::Capability::ReadText))
    });
    // Live first: the application gives the text as it is now and its formatting (bold runs
    // of a paragraph); the state's copy serves when the backend cannot read text.
    let backend = svc.backend_named(&state.root_info.backend)?;
    let deadline = Deadline::after(Duration::from_secs(5));
    let live = {
        let _guard = svc.lanes.enter(&state.root_info.resource).await;
        backend
            .read_text(&state.root_info, node, start, end, deadline)
            .await
    };
    let slice = match (live, cached) {
        (Ok(slice), _) => slice,
        (Err(e), Some(v)) if e.code == uidriver_core::ErrorCode::NotSupported => {
            slice_of(v, start, end)
        }
        (Err(e), None) if e.code == uidriver_core::ErrorCode::NotSupported => {
            return Err(no_text(a.target, node, e))
        }
        (Err(e), _) => return Err(e),
    };
    let more = slice.end < slice.total;
    let mut text = format!(
        "{} in {} · characters {}–{} of {}\n{}\n",
        a.target,
        state.id,
        slice.start,
        slice.end,
        slice.total,
        quote(&slice.text, MAX_LENGTH as usize)
    );
    if !slice.styles.is_empty() {
        let runs: Vec<String> = slice
            .styles
            .iter()
            .map(|r| format!("{} {}–{}", r.style.join("+"), r.start, r.end))
            .collect();
        text.push_str(&format!("styles: {}\n", runs.join(", ")));
    }
    if more {
        text.push_str(&format!("(more: read_text offset {})\n", slice.end));
    }
    Ok(ToolResult::ok(
        text,
        &Output {
            state_id: state.id,
            target: a.target,
            slice,
        },
    ))
}

fn slice_of(v: &str, start: u32, end: u32) -> TextSlice {
    TextSlice::of(v, start, end)
}

/// `not_supported` for an element with no text to read, naming what it offers instead.
fn no_text(target: ElementRef, node: &uidriver_core::Node, e: Error) -> Error {
    let offers: Vec<&str> = node.caps.iter().map(|c| c.as_str()).collect();
    let offers = if offers.is_empty() {
        "nothing".to_string()
    } else {
        offers.join(", ")
    };
    Error::unsupported(format!(
        "{target} ({}) has no text to read ({}); it offers: {offers}",
        node.role.as_str(),
        e.message.trim_end_matches('.')
    ))
    .with_hint("Its name and value are in the outline; inspect_ui shows what it offers. Text lives in text, paragraph, document and terminal elements.")
}
