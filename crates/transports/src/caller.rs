//! The one thing a transport needs from the rest of uidriver: run a tool by name.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use uidriver_service::{Service, ToolResult};

/// Runs tools: the in-process service, or a daemon client.
#[async_trait]
pub trait ToolCaller: Send + Sync + 'static {
    /// Calls a tool.
    async fn call(&self, tool: &str, args: Value) -> ToolResult;
}

#[async_trait]
impl ToolCaller for Service {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        Service::call(self, tool, args).await
    }
}

#[async_trait]
impl<T: ToolCaller + ?Sized> ToolCaller for Arc<T> {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        (**self).call(tool, args).await
    }
}
