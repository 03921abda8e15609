//! Messages on the daemon socket: one JSON object per line each way. Requests carry an id;
//! responses echo it, so one connection can have many calls in flight. A request line is at
//! most `MAX_REQUEST_BYTES` long and must end with `\n` (a line cut off by a dying writer is
//! never run); a line the daemon refuses (too long, not a request) is answered by its id when
//! one can be found, and the connection goes on with the next line.
//!
//! Progress and cancellation: a `call` with `"progress": true` gets progress lines
//! (`{"id": N, "progress": {"progress": 3, "message": "…"}}`, at least one a second while it
//! runs) before its answer, which is always the last line with its id. A `cancel` request
//! (`{"id": M, "op": "cancel", "cancels": N}`) asks the daemon to stop call N of the same
//! connection at its next safe point; it is not answered (the cancelled call's own answer
//! says what ran: `cancelled`, or an `act_ui` result whose refused step says so). A call
//! without `progress` gets no progress lines, so older clients see the protocol they know; an
//! older daemon ignores `progress` and answers `cancel` with a protocol error nobody waits for.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uidriver_service::{FileAccess, Policy, Progress, ToolResult, ViewerId};

/// A request line.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// Correlates the response.
    pub id: u64,
    /// `call` (default), `cancel`, `ping` or `shutdown`.
    #[serde(default = "default_op")]
    pub op: String,
    /// Tool name, for `call`.
    #[serde(default)]
    pub tool: Option<String>,
    /// Tool arguments, for `call`.
    #[serde(default)]
    pub args: Value,
    /// Policies the caller brought (`--policy FILE`), for `call`: the daemon checks the call
    /// against each of them and its own, so one daemon serves clients with different policies
    /// and none gets another's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<Policy>,
    /// The roots the files a call names must lie under (the caller's: an MCP client's roots,
    /// the working directory of `uidriver call`); absent: the daemon's working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<FileAccess>,
    /// For `call`: send progress lines before the answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub progress: bool,
    /// For `cancel`: the id of the call (on this connection) to stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancels: Option<u64>,
    /// For `call`: who reads the result (an MCP session served through this client), so a
    /// second look at a root can be shown as what changed; absent: always the whole outline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<ViewerId>,
}

fn default_op() -> String {
    "call".into()
}

/// A response line.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// The request's id.
    pub id: u64,
    /// The tool result, for `call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
    /// Daemon facts, for `ping`: pid, version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pong: Option<Value>,
    /// A protocol error (bad line, unknown op).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A progress report of a running `call` that asked for them; not its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<ProgressFrame>,
}

/// One progress report on the socket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgressFrame {
    /// Grows with every report of the call.
    pub progress: f64,
    /// What the call is doing and for how long it has run.
    pub message: String,
}

impl From<Progress> for ProgressFrame {
    fn from(p: Progress) -> Self {
        ProgressFrame {
            progress: p.progress,
            message: p.message,
        }
    }
}

impl From<ProgressFrame> for Progress {
    fn from(p: ProgressFrame) -> Self {
        Progress {
            progress: p.progress,
            message: p.message,
        }
    }
}
