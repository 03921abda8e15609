//! `uidriver mcp`: MCP over stdio, attached to the shared daemon (or standalone).

use std::sync::Arc;

use uidriver_transports::{serve_mcp_stdio, ToolCaller};

use super::daemon::{connect, spawn_options};
use super::exit;
use crate::backends::build_service;
use crate::cli::McpArgs;

pub async fn run(a: McpArgs) -> u8 {
    let caller: Arc<dyn ToolCaller> = if a.standalone {
        Arc::new(build_service(&a.service).await)
    } else {
        match connect(&a.service, &spawn_options(&a.service, 600)).await {
            Ok(c) => Arc::new(c),
            Err(e) => {
                eprintln!("uidriver mcp: {e}");
                return exit::UNAVAILABLE;
            }
        }
    };
    match serve_mcp_stdio(caller).await {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("uidriver mcp: {e}");
            exit::UNAVAILABLE
        }
    }
}
