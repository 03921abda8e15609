//! MCP over Streamable HTTP (rmcp's server), for clients that connect to a URL instead of
//! spawning a process. The same handler as stdio serves each session. The listener binds to a
//! loopback address only, and every request must carry `Authorization: Bearer <token>`: any
//! local process can reach a loopback port, so the token is what keeps other users' programs
//! (and web pages, which rmcp's Host check also stops) from driving the desktop.

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
use crate::mcp::Handler;

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// Shortest token accepted (a guessable token is no protection).
pub const MIN_TOKEN_LEN: usize = 16;

/// Where and how the HTTP endpoint listens.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// A loopback address; port 0 picks a free one.
    pub addr: SocketAddr,
    /// The bearer token every request must carry.
    pub token: String,
}

/// Checks the options before anything listens: loopback only, a long enough token.
pub fn check_options(o: &HttpOptions) -> std::io::Result<()> {
    if !o.addr.ip().is_loopback() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is not a loopback address: MCP over HTTP listens on 127.0.0.1 or ::1 only",
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
    Ok(())
}

/// Binds the listener (after [`check_options`]); its address says which port was picked.
pub async fn bind_mcp_http(o: &HttpOptions) -> std::io::Result<TcpListener> {
    check_options(o)?;
    TcpListener::bind(o.addr).await
}

/// Serves MCP on `listener` until `stop` resolves.
pub async fn serve_mcp_http(
    caller: Arc<dyn ToolCaller>,
    listener: TcpListener,
    token: String,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let mut config = StreamableHttpServerConfig::default();
    config.allowed_hosts = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    let cancel = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        move || Ok(Handler::new(caller.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Arc<str> = token.into();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => r?,
            () = &mut stop => break,
        };
        debug!(%peer, "MCP HTTP connection");
        let (service, token) = (service.clone(), token.clone());
        tokio::spawn(async move {
            let handle = hyper::service::service_fn(move |req: Request<Incoming>| {
                let (service, allowed) = (service.clone(), authorized(&req, &token));
                async move {
                    if !allowed {
                        return Ok::<_, Infallible>(unauthorized());
                    }
                    if req.uri().path() != MCP_PATH {
                        return Ok(plain(StatusCode::NOT_FOUND, "the MCP endpoint is /mcp"));
                    }
                    Ok(service.handle(req).await)
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
}
