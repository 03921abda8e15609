//! uidriver's tools over any set of backends: argument decoding against strict schemas, the
//! root forest, states and their refs, lanes and epochs, and the text and structure a caller
//! reads. Transports (MCP, the daemon socket, the CLI) only move [`ToolResult`]s.
//!
//! # Layout
//! - `call`: [`CallContext`], a call's progress sink and cancellation, and the heartbeat that
//!   reports progress while it runs.
//! - `tools/`: one file per tool (arguments, execution, rendering) and the registry [`TOOLS`].
//! - `forest`: listing roots across backends, pairing duplicates, ranking.
//! - `look`: one observation of one root into a stored state (plus image and OCR when asked).
//! - `render`: shared rendering of roots, nodes and state headers, and their result types.
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
mod files;
mod forest;
#[doc(hidden)]
pub mod fuzzing;
mod ids_file;
mod look;
mod origin;
mod pixels;
mod policy;
pub mod private;
mod render;
mod result;
mod schema;
mod secrets;
mod tools;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tracing::Instrument;
use uidriver_core::{Backend, Error, ErrorCode, InputLock, Lanes, RootRegistry, StateStore};

pub use args::decode;
pub use call::{CallContext, Progress, ProgressSink, PERIOD as PROGRESS_PERIOD};
pub use files::{file_url_path, resolve as resolve_path, FileAccess};
pub use ids_file::default_path as default_id_file;
pub use policy::Policy;
pub use result::{error_text, ImageContent, ToolResult};
pub use secrets::{redact_secrets, REDACTED};
pub use tools::{tools_markdown, Hints, ToolDef, TOOLS};

/// Settings of a service.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// States kept (default 128).
    pub state_capacity: usize,
    /// Where id counters persist (None: no persistence, for tests).
    pub id_file: Option<PathBuf>,
    /// Whether `evaluate_browser` may run scripts in pages.
    pub allow_evaluate: bool,
    /// Default deadline of one observation.
    pub observe_timeout: Duration,
    /// Default deadline of one `act_ui` call (steps + successor observation).
    pub act_timeout: Duration,
    /// Largest image sent to a model (never enlarged).
    pub image_max: (u32, u32),
    /// Node lines in a first view.
    pub outline_lines: usize,
    /// The policy every call is checked against (`uidriver daemon --policy`); callers may
    /// bring their own on top ([`Service::call_as`]).
    pub policy: Option<Arc<Policy>>,
    /// The file roots of a call whose caller gives none (`files.rs`): by default this
    /// process's working directory.
    pub files: FileAccess,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            state_capacity: uidriver_core::store::DEFAULT_CAPACITY,
            id_file: None,
            allow_evaluate: false,
            observe_timeout: Duration::from_secs(8),
            act_timeout: Duration::from_secs(30),
            image_max: (1366, 768),
            outline_lines: 150,
            policy: None,
            files: FileAccess::working_dir("the uidriver daemon"),
        }
    }
}

impl ServiceConfig {
    /// The same settings with `files` as the roots of calls that bring none.
    pub fn with_files(mut self, files: FileAccess) -> Self {
        self.files = files;
        self
    }
}

/// The stateful service behind every transport.
pub struct Service {
    backends: Vec<Arc<dyn Backend>>,
    unavailable: Vec<(String, Error)>,
    store: StateStore,
    roots: RootRegistry,
    lanes: Lanes,
    input: InputLock,
    ids: Mutex<ids_file::IdFile>,
    frames: Mutex<tools::Frames>,
    config: ServiceConfig,
}

impl Service {
    /// A service over `backends`; `unavailable` names backends that failed to start and why
    /// (calls that need them answer `backend_unavailable` with that reason).
    pub fn new(
        backends: Vec<Arc<dyn Backend>>,
        unavailable: Vec<(String, Error)>,
        config: ServiceConfig,
    ) -> Self {
        let (ids, first) = ids_file::IdFile::open(config.id_file.clone());
        Service {
            backends,
            unavailable,
            store: StateStore::new(config.state_capacity, first.state),
            roots: RootRegistry::new(first.root),
            lanes: Lanes::new(),
            input: InputLock::new(),
            ids: Mutex::new(ids),
            frames: Mutex::new(tools::Frames::default()),
            config,
        }
    }

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
        ctx.run(tool, self.call_as(callers, tool, args)).await
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

    /// The policy every call is checked against, when the service has one.
    pub fn policy(&self) -> Option<&Policy> {
        self.config.policy.as_deref()
    }

    /// The backends that failed to start, with the reason.
    pub fn unavailable(&self) -> &[(String, Error)] {
        &self.unavailable
    }

    /// Stops what the backends started (browsers it launched).
    pub async fn shutdown(&self) {
        for b in &self.backends {
            if let Some(br) = b.browser() {
                br.shutdown().await;
            }
        }
    }

    fn backend_named(&self, name: &str) -> Result<&Arc<dyn Backend>, Error> {
        if let Some(b) = self.backends.iter().find(|b| b.name() == name) {
            return Ok(b);
        }
        Err(self.unavailable_error(name))
    }

    fn unavailable_error(&self, name: &str) -> Error {
        match self.unavailable.iter().find(|(n, _)| n == name) {
            Some((_, e)) => e.clone(),
            None => Error::new(
                ErrorCode::BackendUnavailable,
                format!("the {name} backend is not running in this daemon"),
            ),
        }
    }

    /// `backend_unavailable` for a capability (`what`: "a screen", "a browser") that no running
    /// backend offers: the start error of the backend that failed when one did (it would have
    /// been the one), or all of them, or that none offers it.
    fn missing(&self, what: &str) -> Error {
        match self.unavailable.as_slice() {
            [(_, e)] => e.clone(),
            [] => Error::new(
                ErrorCode::BackendUnavailable,
                format!("no backend running in this daemon offers {what}"),
            ),
            failed => {
                let why: Vec<String> = failed
                    .iter()
                    .map(|(n, e)| format!("{n}: {}", e.message))
                    .collect();
                Error::new(
                    ErrorCode::BackendUnavailable,
                    format!(
                        "no running backend offers {what}; these did not start: {}",
                        why.join("; ")
                    ),
                )
                .with_hint("Run `uidriver doctor` to see what is missing.")
            }
        }
    }

    /// The first running backend that drives browsers.
    fn browser(&self) -> Result<&dyn uidriver_core::BrowserControl, Error> {
        self.backends
            .iter()
            .find_map(|b| b.browser())
            .ok_or_else(|| self.missing("a browser"))
    }

    /// The first running backend that owns a screen.
    fn screen(&self) -> Result<&dyn uidriver_core::ScreenControl, Error> {
        self.backends
            .iter()
            .find_map(|b| b.screen())
            .ok_or_else(|| self.missing("a screen"))
    }

    fn persist_ids(&self) {
        let mut ids = self.ids.lock().unwrap_or_else(|p| p.into_inner());
        ids.ensure(self.store.next_id(), self.roots.next_id());
    }
}
