//! How callers reach the service. Every transport moves the same [`ToolResult`]: MCP over stdio
//! (for agents), the daemon's Unix socket (which owns the one shared service), and the client
//! the CLI and attached MCP servers use to talk to the daemon.
//!
//! # Layout
//! - `caller`: [`ToolCaller`], what a transport needs: call a tool, by name, with JSON.
//! - `mcp`: the MCP server over stdio (rmcp), for any [`ToolCaller`].
//! - `daemon`: the socket server around a [`Service`](uidriver_service::Service).
//! - `client`: [`DaemonClient`], which starts the daemon when it is absent.
//! - `protocol`: the JSON-lines messages on the socket.
//! - `socket`: where the socket lives.

mod caller;
mod client;
mod daemon;
mod mcp;
mod protocol;
mod socket;

pub use caller::ToolCaller;
pub use client::{ClientError, DaemonClient, SpawnOptions};
pub use daemon::{bind_socket, serve_daemon, DaemonOptions};
pub use mcp::serve_mcp_stdio;
pub use protocol::{Request, Response};
pub use socket::{default_socket_path, runtime_dir};
pub use uidriver_service::ToolResult;
