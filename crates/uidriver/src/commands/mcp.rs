//! `uidriver mcp`: MCP over stdio, or over loopback HTTP with a bearer token (`--http`),
//! attached to the shared daemon (or standalone).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::PathBuf;
use std::sync::Arc;

use uidriver_service::{FileAccess, Policy};
use uidriver_transports::trace::{self, TraceOptions};
use uidriver_transports::{
    bind_mcp_http, runtime_dir, serve_mcp_http, serve_mcp_stdio, HttpOptions, ToolCaller,
    LIVE_PATH, MCP_PATH, READY_PATH,
};

use super::daemon::{connect, file_access};
use super::exit;
use crate::backends::build_service;
use crate::cli::McpArgs;

/// The environment variable that gives the HTTP endpoint's token.
const TOKEN_ENV: &str = "UIDRIVER_MCP_TOKEN";

pub async fn run(a: McpArgs) -> u8 {
    if let Some(host) = &a.print_config {
        return crate::clients::print(host);
    }
    let policy = match super::policy::load("mcp", &a.service) {
        Ok(p) => p,
        Err(code) => return code,
    };
    super::daemon::tighten_private_state();
    let trace = trace_options(&a, policy.as_deref());
    let files = file_access(&a.service, policy.as_deref(), "uidriver mcp");
    let caller: Arc<dyn ToolCaller> = if a.standalone {
        Arc::new(build_service(&a.service, policy).await)
    } else {
        match connect(&a.service, policy, 600, "uidriver mcp").await {
            Ok(c) => Arc::new(c),
            Err(e) => {
                eprintln!("uidriver mcp: {e}");
                return exit::UNAVAILABLE;
            }
        }
    };
    let served = match a.http {
        None => serve_mcp_stdio(caller, trace, files).await,
        Some(addr) => {
            let opts = match http_options(&a, addr, trace, files) {
                Ok(o) => o,
                Err(code) => return code,
            };
            return serve_http(caller, opts).await;
        }
    };
    match served {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("uidriver mcp: {e}");
            exit::UNAVAILABLE
        }
    }
}

/// How this server's sessions are traced: not at all under `--no-trace` or a policy saying
/// `[trace] record = false`; the policy's secrets are redacted from what is recorded.
fn trace_options(a: &McpArgs, policy: Option<&Policy>) -> Option<Arc<TraceOptions>> {
    if a.no_trace || policy.is_some_and(|p| !p.records_traces()) {
        return None;
    }
    Some(Arc::new(TraceOptions {
        dir: trace::default_dir(),
        limits: trace::Limits::default(),
        screenshots: a.trace_screenshots,
        secrets: policy.map(|p| p.secrets().to_vec()).unwrap_or_default(),
    }))
}

/// Where the HTTP endpoint listens and whose token it asks for. A remote listener takes its
/// token only from the user (file or environment): a generated one would sit in a file the
/// remote client cannot read.
fn http_options(
    a: &McpArgs,
    addr: std::net::SocketAddr,
    trace: Option<Arc<TraceOptions>>,
    files: FileAccess,
) -> Result<HttpOptions, u8> {
    let (token, from) = match given_token(a.token_file.as_deref()) {
        Ok(Some(given)) => given,
        Ok(None) if a.allow_remote => {
            eprintln!(
                "uidriver mcp: --allow-remote needs a token: give --token-file FILE or set ${TOKEN_ENV}"
            );
            return Err(exit::USAGE);
        }
        Ok(None) => match new_token_file() {
            Ok((t, path)) => (t, path.display().to_string()),
            Err(e) => {
                eprintln!("uidriver mcp: cannot write a token file: {e}");
                return Err(exit::UNAVAILABLE);
            }
        },
        Err(e) => {
            eprintln!("uidriver mcp: {e}");
            return Err(exit::USAGE);
        }
    };
    eprintln!("uidriver mcp: the bearer token comes from {from}");
    Ok(HttpOptions {
        addr,
        token,
        remote: a.allow_remote,
        allowed_hosts: a.allow_host.clone(),
        allowed_origins: a.allow_origin.clone(),
        trace,
        files,
    })
}

/// The token the user gave: `--token-file`'s contents (trimmed), else `$UIDRIVER_MCP_TOKEN`;
/// with where it came from.
fn given_token(file: Option<&std::path::Path>) -> Result<Option<(String, String)>, String> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
        return Ok(Some((text.trim().to_string(), path.display().to_string())));
    }
    Ok(match std::env::var(TOKEN_ENV) {
        Ok(t) if !t.is_empty() => Some((t, format!("${TOKEN_ENV}"))),
        _ => None,
    })
}

async fn serve_http(caller: Arc<dyn ToolCaller>, opts: HttpOptions) -> u8 {
    let addr = opts.addr;
    let listener = match bind_mcp_http(&opts).await {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            eprintln!("uidriver mcp: {e}");
            return exit::USAGE;
        }
        Err(e) => {
            eprintln!("uidriver mcp: cannot listen on {addr}: {e}");
            return exit::UNAVAILABLE;
        }
    };
    let at = listener.local_addr().unwrap_or(addr);
    eprintln!(
        "uidriver mcp: serving MCP at http://{at}{MCP_PATH} (probes: {LIVE_PATH}, {READY_PATH})"
    );
    match serve_mcp_http(caller, listener, opts, stop_signal()).await {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("uidriver mcp: {e}");
            exit::UNAVAILABLE
        }
    }
}

/// Resolves at SIGINT or SIGTERM.
async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

/// A new random token, written to `<runtime dir>/mcp-http-token` readable by this user only.
fn new_token_file() -> std::io::Result<(String, PathBuf)> {
    let mut raw = [0u8; 24];
    std::fs::File::open("/dev/urandom").and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut raw)
    })?;
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let dir = runtime_dir();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let path = dir.join("mcp-http-token");
    let _ = std::fs::remove_file(&path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    f.write_all(token.as_bytes())?;
    Ok((token, path))
}
