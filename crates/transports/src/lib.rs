//! How callers reach the service. Every transport moves the same [`ToolResult`]: MCP over stdio
//! or loopback HTTP with a bearer token (for agents), the daemon's Unix socket (which owns the one shared service), and the client
//! the CLI and attached MCP servers use to talk to the daemon.
//!
//! # Layout
//! - `caller`: [`ToolCaller`], what a transport needs: call a tool, by name, with JSON.
//! - `mcp`: the MCP server over stdio (rmcp), for any [`ToolCaller`].
//! - `mcp_http`: the same server over Streamable HTTP, loopback only, bearer token required.
//! - `daemon`: the socket server around a [`Service`](uidriver_service::Service).
//! - `client`: [`DaemonClient`], which starts the daemon when it is absent and reconnects.
//! - `frame`: the request size limit where bytes arrive, a bounded line reader, and finding the
//!   id of a refused frame so it can be answered.
//! - `protocol`: the JSON-lines messages on the socket.
//! - `roots`: an MCP session's file roots (its client's `roots/list`, else the server's own).
//! - `socket`: where the socket lives.
//! - `trace`: each MCP session's trace (records, storage, pruning), read back by `uidriver trace`.
//! - `fuzzing`: the byte-level entry of the `daemon_frames` fuzz target (hidden; `docs/FUZZING.md`).

mod caller;
mod client;
mod daemon;
mod frame;
#[doc(hidden)]
pub mod fuzzing;
mod mcp;
mod mcp_http;
mod protocol;
mod roots;
mod socket;
pub mod trace;

pub use caller::ToolCaller;
pub use client::{ClientError, DaemonClient, SpawnOptions};
pub use daemon::{bind_socket, serve_daemon, DaemonOptions};
pub use frame::{too_large, MAX_REQUEST_BYTES};
pub use mcp::serve_mcp_stdio;
pub use mcp_http::{
    bind_mcp_http, check_options, serve_mcp_http, HttpOptions, LIVE_PATH, MCP_PATH, MIN_TOKEN_LEN,
    READY_PATH,
};
pub use protocol::{ProgressFrame, Request, Response};
pub use socket::{default_socket_path, runtime_dir};
pub use uidriver_service::ToolResult;
