//! uidriver's tools over any set of backends: argument decoding against strict schemas, the
//! root forest, states and their refs, lanes and epochs, and the text and structure a caller
//! reads. Transports (MCP, the daemon socket, the CLI) only move [`ToolResult`]s.
//!
//! # Layout
//! - `service`: [`Service`], what a daemon holds across calls, and [`ServiceConfig`]; running
//!   a call is here ([`Service::call`]) and in `enforce` ([`Service::call_as`]).
//! - `call`: [`CallContext`], a call's progress sink and cancellation, and the heartbeat that
//!   reports progress while it runs.
//! - `tools/`: one file per tool (arguments, execution, rendering) and the registry [`TOOLS`];
//!   the registry knows the tools, a tool knows neither the registry nor another tool.
//! - `tool_names`: [`ToolName`], every tool's name defined once, for the registry, what sits
//!   below the tools (policies, file roots) and the transports and CLI above.
//! - `forest`: listing roots across backends, pairing duplicates, ranking, the page a call names.
//! - `look`: one observation of one root into a stored state (plus image and OCR when asked),
//!   and the successors of a stored state (its pixels read, a region read again).
//! - `frames`: the ring of desktop frames `desktop_input` aims at.
//! - `render`: shared rendering of roots, root changes, nodes, state headers, full views and
//!   downloads, and their result types.
//! - `file_out`: the files the browser tools write (`save_pdf`, `save_browser_state`).
//! - `policy`: [`Policy`], a user's policy file parsed, validated and matched (pure).
//! - `origin`: web origins of page URLs and the origin patterns of `[browser]` rules.
//! - `enforce`: where calls and results are checked against the policies in force.
//! - `files`: the roots the files and `file:` URLs a call names must lie under.
//! - `schema`: compact JSON Schemas of tool arguments and results, generated from their types.
//! - `result`: [`ToolResult`], the one value every transport carries.
//! - `ids_file`: id counters persisted across daemon restarts.
//! - `private`: owner-only files and directories for what the user saw and typed.
//! - `fuzzing`: the byte-level entry of the `tool_args` fuzz target (hidden; see `docs/FUZZING.md`).
#![warn(missing_docs)]

mod args;
mod call;
mod enforce;
mod file_out;
mod files;
mod forest;
mod frames;
#[doc(hidden)]
pub mod fuzzing;
mod ids_file;
mod listings;
mod look;
mod origin;
mod pixels;
mod policy;
pub mod private;
mod render;
mod result;
mod schema;
mod secrets;
mod service;
mod shown;
mod tool_names;
mod tools;

use std::sync::Arc;

use serde_json::Value;
use tracing::Instrument;

pub use args::decode;
pub use call::{CallContext, Progress, ProgressSink, PERIOD as PROGRESS_PERIOD};
pub use files::{file_url_path, resolve as resolve_path, FileAccess};
pub use ids_file::default_path as default_id_file;
pub use policy::Policy;
pub use result::{error_text, ImageContent, ToolResult};
pub use secrets::{redact_secrets, REDACTED};
pub use service::{Service, ServiceConfig};
pub use shown::ViewerId;
pub use tool_names::ToolName;
pub use tools::{tools_markdown, Hints, ToolDef, TOOLS};

impl Service {
    /// Runs one tool call under the service's policy. Never panics on bad input: every failure
    /// is a catalogued error result.
    pub async fn call(&self, tool: &str, args: Value) -> ToolResult {
        self.call_as(&[], tool, args).await
    }

    /// Runs one tool call under the policies (as [`Service::call_as`]) with `ctx` in force:
    /// progress goes to its sink while the call runs, and cancelling it stops the call at its
    /// next safe point (see `call.rs`).
    pub async fn call_with(
        &self,
        ctx: &CallContext,
        callers: &[Arc<Policy>],
        tool: &str,
        args: Value,
    ) -> ToolResult {
        let reads = ToolName::from_name(tool).is_some_and(ToolName::read_only);
        ctx.run(tool, reads, self.call_as(callers, tool, args))
            .await
    }

    /// Runs one tool call once the policies allowed it (`enforce.rs`).
    async fn call_unchecked(&self, tool: &str, args: Value) -> ToolResult {
        // One span per call, entered only while the call is polled (never held across an
        // await); acting tools record the resource and epoch they ran under.
        let span = tracing::debug_span!(
            "tool",
            tool,
            state_id = args.get("stateId").and_then(serde_json::Value::as_str),
            root = args.get("root").and_then(serde_json::Value::as_str),
            resource = tracing::field::Empty,
            epoch = tracing::field::Empty,
        );
        match tools::dispatch(self, tool, args).instrument(span).await {
            Ok(r) => r,
            Err(e) => ToolResult::error(&e),
        }
    }
}
