//! `uidriver call TOOL ARGS`: one tool call through the daemon (started when absent).
//! Arguments larger than the daemon accepts are refused here (`invalid_args`, exit 2). On a
//! terminal, the call's progress is shown on stderr as it runs; ^C cancels the call (the
//! daemon stops it at its next safe point and its answer, printed as usual, says what ran),
//! a second ^C quits without waiting.

use std::io::IsTerminal;
use std::sync::Arc;

use std::io::{Read, Write};

use serde_json::Value;
use uidriver_core::ErrorCode;
use uidriver_service::{CallContext, ToolResult};
use uidriver_transports::{too_large, DaemonClient, ToolCaller, MAX_REQUEST_BYTES};

use super::daemon::connect;
use super::exit;
use crate::cli::CallArgs;

/// The arguments: parsed JSON, or the tool result refusing them (too large to send).
fn read_args(spec: Option<&str>) -> Result<Result<Value, ToolResult>, String> {
    let text = match spec {
        None => return Ok(Ok(Value::Object(Default::default()))),
        Some("-") => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| format!("reading stdin: {e}"))?;
            s
        }
        Some(s) if s.starts_with('@') => {
            std::fs::read_to_string(&s[1..]).map_err(|e| format!("reading {}: {e}", &s[1..]))?
        }
        Some(s) => s.to_string(),
    };
    if text.len() > MAX_REQUEST_BYTES {
        return Ok(Err(ToolResult::error(&too_large(text.len()))));
    }
    serde_json::from_str(&text)
        .map(Ok)
        .map_err(|e| format!("arguments are not valid JSON: {e}"))
}

fn save_images(
    dir: &std::path::Path,
    images: &[uidriver_service::ImageContent],
) -> std::io::Result<()> {
    use base64::Engine;
    std::fs::create_dir_all(dir)?;
    for (i, img) in images.iter().enumerate() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&img.data)
            .map_err(std::io::Error::other)?;
        std::fs::write(dir.join(format!("image-{}.png", i + 1)), bytes)?;
    }
    Ok(())
}

/// The call's context: progress lines on stderr when it is a terminal (scripts reading
/// stderr see what they always saw).
fn context() -> CallContext {
    let ctx = CallContext::default();
    if !std::io::stderr().is_terminal() {
        return ctx;
    }
    ctx.with_progress(Arc::new(|p| eprintln!("… {}", p.message)))
}

/// Cancels the call at the first ^C; quits at the second.
async fn cancel_on_interrupt(ctx: CallContext) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    eprintln!("uidriver call: cancelling; ^C again quits without waiting for the answer");
    ctx.cancel();
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(130);
    }
}

pub async fn run(a: CallArgs) -> u8 {
    let args = match read_args(a.args.as_deref()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("uidriver call: {e}");
            return exit::USAGE;
        }
    };
    let policy = match super::policy::load("call", &a.service) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let result = match args {
        // Refused here, before any daemon is started or reached.
        Err(refused) => refused,
        Ok(args) => {
            let client: DaemonClient =
                match connect(&a.service, policy, 1800, "uidriver call").await {
                    Ok(c) => c,
                    Err(e) => {
                        eprintln!("uidriver call: {e}");
                        return exit::UNAVAILABLE;
                    }
                };
            let ctx = context();
            let watch = tokio::spawn(cancel_on_interrupt(ctx.clone()));
            // A call the daemon did not answer is a result too (backend_unavailable, with
            // whether it may have run), printed like any other.
            let r = client.call_in(&ctx, &[], &a.tool, args).await;
            watch.abort();
            r
        }
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&result.structured).unwrap_or_default()
        );
    } else {
        let _ = write!(out, "{}", result.text);
        if !result.text.ends_with('\n') {
            let _ = writeln!(out);
        }
        if !result.images.is_empty() && a.images.is_none() {
            let _ = writeln!(
                out,
                "({} image(s) attached; --images DIR saves them)",
                result.images.len()
            );
        }
    }
    if let Some(dir) = &a.images {
        if let Err(e) = save_images(dir, &result.images) {
            eprintln!("uidriver call: saving images: {e}");
        }
    }
    if !result.is_error {
        return exit::OK;
    }
    let code = result.structured["error"]["code"].as_str().unwrap_or("");
    if code == ErrorCode::InvalidArgs.as_str() {
        exit::USAGE
    } else if code == ErrorCode::BackendUnavailable.as_str() {
        exit::UNAVAILABLE
    } else {
        exit::TOOL_ERROR
    }
}
