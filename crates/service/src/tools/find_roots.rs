//! `find_roots`: every root across backends, filtered and ranked.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::{Deadline, Error, RootKind};

use crate::forest::rank;
use crate::render::{root_line, root_out, RootOut};
use crate::{Service, ToolResult};

/// Arguments of `find_roots`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Args {
    /// Title or app matches this.
    #[serde(default)]
    pub text: Option<String>,
    /// App name contains this.
    #[serde(default)]
    pub app: Option<String>,
    /// Process id.
    #[serde(default)]
    pub pid: Option<u32>,
    /// Root kind.
    #[serde(default)]
    pub kind: Option<RootKind>,
    /// Also minimized, unmapped windows.
    #[serde(default)]
    pub include_hidden: bool,
    /// Most roots (default 50).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The structured result of `find_roots`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The roots, best first (at most `limit`).
    pub roots: Vec<RootOut>,
    /// Roots that matched before `limit`.
    pub total: usize,
    /// Backends that could not list their roots, and why; how many roots a policy hides.
    pub issues: Vec<String>,
}

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let deadline = Deadline::after(Duration::from_secs(5));
    let (mut listed, mut issues) = svc.list_roots(deadline).await;
    // Roots a policy denies are not listed: their titles are theirs to keep too.
    let before = listed.len();
    listed.retain(|l| l.denied.is_none());
    if listed.len() < before {
        issues.push(format!(
            "{} root(s) of applications or pages a policy denies are not listed",
            before - listed.len()
        ));
    }
    let app = a.app.as_ref().map(|s| s.to_lowercase());
    listed.retain(|l| {
        (a.include_hidden || !l.info.hidden)
            && a.pid.is_none_or(|p| l.info.pid == Some(p))
            && a.kind.is_none_or(|k| l.info.kind == k)
            && app
                .as_ref()
                .is_none_or(|s| l.info.app.to_lowercase().contains(s.as_str()))
    });
    if let Some(t) = &a.text {
        let q = t.trim().to_lowercase();
        listed.retain(|l| {
            uidriver_core::search::text_score(&l.info.title, &q) > 0
                || uidriver_core::search::text_score(&l.info.app, &q) > 0
        });
    }
    rank(&mut listed, a.text.as_deref());
    let total = listed.len();
    listed.truncate(a.limit.unwrap_or(50).max(1));
    let mut text = format!("{total} roots");
    if listed.len() < total {
        text.push_str(&format!(
            " (showing {}; raise limit for more)",
            listed.len()
        ));
    }
    text.push('\n');
    for l in &listed {
        text.push_str(&root_line(l.r, &l.info));
        if let Some(s) = l.same_as {
            text.push_str(&format!(" · same surface as {s}"));
        }
        text.push('\n');
    }
    for i in &issues {
        text.push_str(&format!("note: {i}\n"));
    }
    if total == 0 && issues.is_empty() {
        text.push_str("No windows or pages are open. Start an application, or launch_browser.\n");
    }
    let roots = listed
        .iter()
        .map(|l| root_out(l.r, &l.info, l.same_as))
        .collect();
    Ok(ToolResult::ok(
        text,
        &Output {
            roots,
            total,
            issues,
        },
    ))
}
