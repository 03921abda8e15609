//! Messages on the daemon socket: one JSON object per line each way. Requests carry an id;
//! responses echo it, so one connection can have many calls in flight. A request line is at
//! most `MAX_REQUEST_BYTES` long and must end with `\n` (a line cut off by a dying writer is
//! never run); a line the daemon refuses (too long, not a request) is answered by its id when
//! one can be found, and the connection goes on with the next line.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uidriver_service::{Policy, ToolResult};

/// A request line.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// Correlates the response.
    pub id: u64,
    /// `call` (default), `ping` or `shutdown`.
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
}

fn default_op() -> String {
    "call".into()
}

/// A response line.
#[derive(Debug, Serialize, Deserialize)]
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
}
