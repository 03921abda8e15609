//! MCP over Streamable HTTP (rmcp's server), for clients that connect to a URL instead of
//! spawning a process. The same handler as stdio serves each session. The listener binds to a
//! loopback address unless the user asks for a remote one ([`HttpOptions::remote`], e.g. a
//! Kubernetes pod's address), and every request must carry `Authorization: Bearer <token>`:
//! any local process can reach a loopback port, so the token is what keeps other users'
//! programs from driving the desktop. Two probe paths answer without the token and say
//! nothing but their verdict: [`LIVE_PATH`] (the server answers) and [`READY_PATH`] (its calls
//! can run: [`ToolCaller::ready`]). Web pages are stopped before rmcp sees their request: a foreign
//! `Host` (DNS rebinding; rmcp's check) or a present `Origin` that is neither loopback nor
//! allowed by the user gets 403. A body larger than [`MAX_REQUEST_BYTES`] is read to its end
//! and answered (`invalid_args` naming the limit) without reaching rmcp.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tracing::{debug, warn};

use crate::caller::ToolCaller;
use crate::frame::{too_large, Bounded, Line, MAX_REQUEST_BYTES};
use crate::mcp::{refusal, Handler};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The liveness probe: 200 `ok` while the server answers.
pub const LIVE_PATH: &str = "/healthz";

/// The readiness probe: 200 `ready` when calls can run, else 503 `not ready`.
pub const READY_PATH: &str = "/readyz";

/// Shortest token accepted (a guessable token is no protection).
pub const MIN_TOKEN_LEN: usize = 16;

/// Where and how the HTTP endpoint listens.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// A loopback address, or any address when `remote`; port 0 picks a free one.
    pub addr: SocketAddr,
    /// The user asked to listen beyond loopback (`--allow-remote`): any address may be bound.
    pub remote: bool,
    /// `Host` names (or `host:port`) accepted besides loopback ones. Empty and `remote`: any
    /// host, since the token and the Origin check stand either way; empty and not `remote`:
    /// loopback names only (DNS rebinding).
    pub allowed_hosts: Vec<String>,
    /// The bearer token every request must carry.
    pub token: String,
    /// Origins (`scheme://host[:port]`) allowed besides loopback ones, e.g. a local web app's.
    pub allowed_origins: Vec<String>,
    /// How each session is traced (`None`: not at all).
    pub trace: Option<Arc<crate::trace::TraceOptions>>,
    /// The file roots of each session's calls, unless its client lists its own.
    pub files: uidriver_service::FileAccess,
}

/// Checks the options before anything listens: loopback unless remote was asked for, a long
/// enough token.
pub fn check_options(o: &HttpOptions) -> std::io::Result<()> {
    if !o.addr.ip().is_loopback() && !o.remote {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is not a loopback address: MCP over HTTP listens on 127.0.0.1 or ::1 unless \
                 --allow-remote is given (with a token from --token-file or $UIDRIVER_MCP_TOKEN)",
                o.addr.ip()
            ),
        ));
    }
    if o.token.len() < MIN_TOKEN_LEN || o.token.chars().any(char::is_whitespace) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("the token must be at least {MIN_TOKEN_LEN} characters without spaces"),
        ));
    }
    if let Some(bad) = o.allowed_origins.iter().find(|a| !is_origin(a)) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("--allow-origin {bad:?} is not an origin: give scheme://host[:port], e.g. http://app.local:3000"),
        ));
    }
    Ok(())
}

/// An origin as browsers send it, lowercased, without a trailing `/`.
fn normalize(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Whether `o` looks like `http(s)://host[:port]`: no path, no spaces.
fn is_origin(o: &str) -> bool {
    let o = normalize(o);
    let rest = o
        .strip_prefix("http://")
        .or_else(|| o.strip_prefix("https://"));
    rest.is_some_and(|r| !r.is_empty() && !r.contains(['/', ' ', '?', '#', '@']))
}

/// `http(s)://127.0.0.1`, `localhost` or `[::1]`, with any port.
fn is_loopback_origin(origin: &str) -> bool {
    let o = normalize(origin);
    let Some(rest) = o
        .strip_prefix("http://")
        .or_else(|| o.strip_prefix("https://"))
    else {
        return false;
    };
    ["127.0.0.1", "localhost", "[::1]"].iter().any(|host| {
        rest.strip_prefix(host).is_some_and(|port| {
            port.is_empty()
                || port
                    .strip_prefix(':')
                    .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
    })
}

/// Whether a request's `Origin` is acceptable: absent (not a browser's cross-origin request),
/// loopback, or one the user allowed.
fn origin_allowed(req: &Request<Incoming>, allowed: &[String]) -> bool {
    let Some(v) = req.headers().get(hyper::header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = v.to_str() else {
        return false;
    };
    is_loopback_origin(origin) || allowed.iter().any(|a| normalize(a) == normalize(origin))
}

/// Binds the listener (after [`check_options`]); its address says which port was picked.
pub async fn bind_mcp_http(o: &HttpOptions) -> std::io::Result<TcpListener> {
    check_options(o)?;
    TcpListener::bind(o.addr).await
}

/// Serves MCP on `listener` until `stop` resolves. Each request passes, in order: the Origin
/// check (403), the bearer token (401), the path (404) and the body size (answered) before
/// rmcp handles it.
pub async fn serve_mcp_http(
    caller: Arc<dyn ToolCaller>,
    listener: TcpListener,
    opts: HttpOptions,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts = allowed_hosts(&opts);
    config.max_request_body_bytes = MAX_REQUEST_BYTES;
    let cancel = config.cancellation_token.clone();
    let trace = opts.trace.clone();
    let files = opts.files.clone();
    let for_sessions = caller.clone();
    let service = StreamableHttpService::new(
        move || {
            Ok(Handler::new(
                for_sessions.clone(),
                trace.clone().map(|t| (t, "http")),
                files.clone(),
            ))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let access = Arc::new(opts);
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => r?,
            () = &mut stop => break,
        };
        debug!(%peer, "MCP HTTP connection");
        let (service, access, caller) = (service.clone(), access.clone(), caller.clone());
        tokio::spawn(async move {
            let handle = hyper::service::service_fn(move |req: Request<Incoming>| {
                let (service, access, caller) = (service.clone(), access.clone(), caller.clone());
                async move {
                    if let Some(answer) = probe(&req, caller.as_ref()).await {
                        return Ok(answer);
                    }
                    if !origin_allowed(&req, &access.allowed_origins) {
                        warn!(origin = ?req.headers().get(hyper::header::ORIGIN), "refused a request from a foreign Origin");
                        return Ok::<_, Infallible>(plain(
                            StatusCode::FORBIDDEN,
                            "Origin not allowed: only loopback origins, or ones given with --allow-origin",
                        ));
                    }
                    if !authorized(&req, &access.token) {
                        return Ok(unauthorized());
                    }
                    if req.uri().path() != MCP_PATH {
                        return Ok(plain(StatusCode::NOT_FOUND, "the MCP endpoint is /mcp"));
                    }
                    if req.method() != hyper::Method::POST {
                        return Ok(service.handle(req).await);
                    }
                    Ok(match bounded(req).await {
                        Ok(req) => service.handle(req).await,
                        Err(answer) => answer,
                    })
                }
            });
            if let Err(e) = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handle)
                .await
            {
                warn!(%peer, "MCP HTTP connection ended: {e}");
            }
        });
    }
    cancel.cancel();
    Ok(())
}

/// The `Host` values rmcp accepts: loopback names, the user's, or any when remote without a
/// list (see [`HttpOptions::allowed_hosts`]).
fn allowed_hosts(o: &HttpOptions) -> Vec<String> {
    if o.remote && o.allowed_hosts.is_empty() {
        return Vec::new();
    }
    let loopback = ["localhost", "127.0.0.1", "::1"].map(String::from);
    loopback
        .into_iter()
        .chain(o.allowed_hosts.iter().cloned())
        .collect()
}

/// Answers a probe (`GET` or `HEAD` of [`LIVE_PATH`] or [`READY_PATH`]) before any other check:
/// a kubelet brings no token. The answer is one word, so a probe learns nothing else.
async fn probe(req: &Request<Incoming>, caller: &dyn ToolCaller) -> Option<Response<Body>> {
    if !matches!(*req.method(), hyper::Method::GET | hyper::Method::HEAD) {
        return None;
    }
    match req.uri().path() {
        LIVE_PATH => Some(plain(StatusCode::OK, "ok")),
        READY_PATH => Some(if caller.ready().await {
            plain(StatusCode::OK, "ready")
        } else {
            plain(StatusCode::SERVICE_UNAVAILABLE, "not ready")
        }),
        _ => None,
    }
}

/// Reads a POST body of at most [`MAX_REQUEST_BYTES`]; a longer one is read to its end and
/// answered here: the JSON-RPC refusal for a request with an id, 413 for anything else.
async fn bounded(req: Request<Incoming>) -> Result<Request<Full<Bytes>>, Response<Body>> {
    let (parts, mut body) = req.into_parts();
    let mut frame = Bounded::default();
    while let Some(piece) = body.frame().await {
        let piece =
            piece.map_err(|_| plain(StatusCode::BAD_REQUEST, "the request body broke off"))?;
        if let Some(data) = piece.data_ref() {
            frame.take(data, MAX_REQUEST_BYTES);
        }
    }
    match frame.finish() {
        Line::Fits(bytes) => Ok(Request::from_parts(parts, Full::new(Bytes::from(bytes)))),
        Line::Refused { bytes, head } => {
            warn!(bytes, "refused an oversized MCP request");
            Err(match refusal(&head, bytes) {
                Some(answer) => {
                    let mut r = Response::new(Full::new(Bytes::from(answer.to_string())).boxed());
                    r.headers_mut().insert(
                        hyper::header::CONTENT_TYPE,
                        hyper::header::HeaderValue::from_static("application/json"),
                    );
                    r
                }
                None => {
                    let mut r =
                        Response::new(Full::new(Bytes::from(too_large(bytes).message)).boxed());
                    *r.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
                    r
                }
            })
        }
        Line::Eof => Err(plain(StatusCode::BAD_REQUEST, "empty request body")),
    }
}

/// Whether the request carries the token (compared in constant time).
fn authorized(req: &Request<Incoming>, token: &str) -> bool {
    let Some(given) = req
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (given.as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *r.status_mut() = status;
    r
}

fn unauthorized() -> Response<Body> {
    let mut r = plain(
        StatusCode::UNAUTHORIZED,
        "missing or wrong bearer token (Authorization: Bearer <token>)",
    );
    r.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static("Bearer"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(addr: &str, token: &str) -> HttpOptions {
        HttpOptions {
            addr: addr.parse().unwrap(),
            token: token.into(),
            remote: false,
            allowed_hosts: vec![],
            allowed_origins: vec![],
            trace: None,
            files: uidriver_service::FileAccess::working_dir("a test"),
        }
    }

    #[test]
    fn loopback_origins_and_well_formed_allowed_origins() {
        for o in [
            "http://127.0.0.1:8765",
            "http://localhost:3000",
            "http://[::1]:80",
            "HTTP://LOCALHOST",
            "https://127.0.0.1/",
        ] {
            assert!(is_loopback_origin(o), "{o}");
        }
        for o in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example:80",
            "http://localhost:80x",
            "http://localhost:",
            "null",
            "file://",
            "ws://localhost:80",
        ] {
            assert!(!is_loopback_origin(o), "{o}");
        }
        let mut o = opts("127.0.0.1:0", "0123456789abcdef0123");
        o.allowed_origins = vec!["http://app.local:3000".into(), "https://x.example/".into()];
        assert!(check_options(&o).is_ok());
        for bad in ["app.local", "http://", "http://a/b", "http://a b", ""] {
            o.allowed_origins = vec![bad.into()];
            let e = check_options(&o).unwrap_err();
            assert!(e.to_string().contains("--allow-origin"), "{bad}: {e}");
        }
    }

    #[test]
    fn only_loopback_and_real_tokens_are_accepted() {
        let good = "0123456789abcdef0123";
        assert!(check_options(&opts("127.0.0.1:0", good)).is_ok());
        assert!(check_options(&opts("[::1]:0", good)).is_ok());
        let e = check_options(&opts("0.0.0.0:0", good)).unwrap_err();
        assert!(e.to_string().contains("loopback"), "{e}");
        assert!(check_options(&opts("192.168.1.2:80", good)).is_err());
        assert!(check_options(&opts("127.0.0.1:0", "short")).is_err());
        assert!(check_options(&opts("127.0.0.1:0", "has a space in it ok")).is_err());
    }

    #[test]
    fn a_remote_address_needs_the_users_say_so_and_hosts_follow_it() {
        let good = "0123456789abcdef0123";
        let mut o = opts("0.0.0.0:8765", good);
        let e = check_options(&o).unwrap_err();
        assert!(e.to_string().contains("--allow-remote"), "{e}");
        o.remote = true;
        assert!(check_options(&o).is_ok());
        o.token = "short".into();
        assert!(
            check_options(&o).is_err(),
            "remote does not relax the token"
        );
        assert!(
            allowed_hosts(&o).is_empty(),
            "remote without a list: any Host"
        );
        o.allowed_hosts = vec!["uidriver.default.svc".into()];
        assert_eq!(allowed_hosts(&o).len(), 4);
        let local = opts("127.0.0.1:0", good);
        assert_eq!(allowed_hosts(&local), ["localhost", "127.0.0.1", "::1"]);
    }
}
