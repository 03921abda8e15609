//! Traces: a record of what each MCP client session did, call by call, for a person to read
//! (`uidriver trace view`) and for `uidriver trace replay` to run again on another desktop.
//!
//! # Layout
//! - `record`: the format, one JSON object a line (a session header, then calls).
//! - `store`: where traces live, ids, size limits and pruning, reading them back.
//! - `session`: one session's recorder (redaction, caps, screenshots), used by `mcp.rs`.
//! - `capture`: what the recorder asks the service around an act (targets, root, screenshots);
//!   replay finds elements with the same search.

mod capture;
mod record;
mod session;
mod store;

pub use capture::{same_elements, search_args};
pub use record::{outcome_of, parse_line, Call, Client, Header, Line, RootSeen, Target, FORMAT};
pub(crate) use session::Session;
pub use session::TraceOptions;
pub use store::{default_dir, list, new_id, prune, read, rfc3339, Limits, Summary, Trace, FILE};
