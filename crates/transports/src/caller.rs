//! The one thing a transport needs from the rest of uidriver: run a tool by name.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use uidriver_core::{Error, ErrorCode};
use uidriver_service::{CallContext, Policy, Service, ToolResult};

/// Runs tools: the in-process service, or a daemon client.
#[async_trait]
pub trait ToolCaller: Send + Sync + 'static {
    /// Calls a tool.
    async fn call(&self, tool: &str, args: Value) -> ToolResult;

    /// Whether `tool` is worth offering (MCP's `tools/list`): false when the policy this
    /// caller applies denies it outright, so a model is not shown a tool it may never call.
    fn offers(&self, tool: &str) -> bool {
        let _ = tool;
        true
    }

    /// Whether calls can run now (an HTTP server's readiness probe): the in-process service
    /// always; a daemon client when the daemon answers a ping in time.
    async fn ready(&self) -> bool {
        true
    }

    /// Calls a tool under `policies` as well as the caller's own. A caller that cannot check
    /// them refuses every call that brings any (fails closed, never ignores a policy).
    async fn call_under(&self, policies: &[Arc<Policy>], tool: &str, args: Value) -> ToolResult {
        if policies.is_empty() {
            return self.call(tool, args).await;
        }
        ToolResult::error(&Error::new(
            ErrorCode::PolicyDenied,
            "this server cannot check the caller's policy, so it runs no call that brings one",
        ))
    }

    /// [`ToolCaller::call_under`] with the caller's progress sink and cancellation in `ctx`.
    /// A caller that cannot report or cancel runs the call without them.
    async fn call_in(
        &self,
        ctx: &CallContext,
        policies: &[Arc<Policy>],
        tool: &str,
        args: Value,
    ) -> ToolResult {
        let _ = ctx;
        self.call_under(policies, tool, args).await
    }
}

#[async_trait]
impl ToolCaller for Service {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        Service::call(self, tool, args).await
    }

    async fn call_under(&self, policies: &[Arc<Policy>], tool: &str, args: Value) -> ToolResult {
        self.call_as(policies, tool, args).await
    }

    async fn call_in(
        &self,
        ctx: &CallContext,
        policies: &[Arc<Policy>],
        tool: &str,
        args: Value,
    ) -> ToolResult {
        self.call_with(ctx, policies, tool, args).await
    }

    fn offers(&self, tool: &str) -> bool {
        self.policy().is_none_or(|p| p.tool_allowed(tool))
    }
}

#[async_trait]
impl<T: ToolCaller + ?Sized> ToolCaller for Arc<T> {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        (**self).call(tool, args).await
    }

    async fn call_under(&self, policies: &[Arc<Policy>], tool: &str, args: Value) -> ToolResult {
        (**self).call_under(policies, tool, args).await
    }

    async fn call_in(
        &self,
        ctx: &CallContext,
        policies: &[Arc<Policy>],
        tool: &str,
        args: Value,
    ) -> ToolResult {
        (**self).call_in(ctx, policies, tool, args).await
    }

    fn offers(&self, tool: &str) -> bool {
        (**self).offers(tool)
    }

    async fn ready(&self) -> bool {
        (**self).ready().await
    }
}
