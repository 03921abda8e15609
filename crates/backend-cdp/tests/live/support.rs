//! What every live test needs: a local HTTP server for fixture pages (recording POST bodies),
//! a headless Chromium launched through the backend and stopped on every exit path, a hard
//! timeout, and helpers to turn snapshots into core states and act on them.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use uidriver_backend_cdp::{CdpBackend, CdpConfig};
use uidriver_core::search::{search, Query};
use uidriver_core::{
    ActRequest, Backend, Deadline, ElementRef, InputLock, LaunchRequest, Navigation, NewState,
    ObserveRequest, Role, RootInfo, RootRef, State, StateId, Step, StepReport,
};

pub const CHROMIUM: &str = "/usr/lib/chromium/chromium";

/// Live tests run one at a time: each starts a browser, and the machines here have two cores.
static LIVE: Mutex<()> = Mutex::new(());

/// A request the server received with a body.
#[derive(Clone, Debug)]
pub struct Posted {
    pub path: String,
    pub body: String,
}

/// The fixture server: pages by path, the Rust docs under `/rustdoc/`, POSTs recorded.
pub struct Server {
    pub port: u16,
    pub posts: Arc<Mutex<Vec<Posted>>>,
}

impl Server {
    pub async fn start(pages: HashMap<String, String>, docs: Option<PathBuf>) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let posts: Arc<Mutex<Vec<Posted>>> = Arc::default();
        let pages = Arc::new(pages);
        let p2 = posts.clone();
        tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (pages, posts, docs) = (pages.clone(), p2.clone(), docs.clone());
                tokio::spawn(async move {
                    let _ = handle(sock, &pages, &posts, docs.as_deref()).await;
                });
            }
        });
        Server { port, posts }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn posts(&self) -> Vec<Posted> {
        self.posts.lock().unwrap().clone()
    }
}

async fn handle(
    mut sock: tokio::net::TcpStream,
    pages: &HashMap<String, String>,
    posts: &Mutex<Vec<Posted>>,
    docs: Option<&Path>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_string();
    let mut lines = head.lines();
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let len: usize = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < header_end + len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    let (status, ctype, body): (&str, &str, Vec<u8>) = if method == "POST" {
        let body = String::from_utf8_lossy(&buf[header_end..(header_end + len).min(buf.len())])
            .to_string();
        posts.lock().unwrap().push(Posted {
            path: path.clone(),
            body,
        });
        (
            "200 OK",
            "text/html; charset=utf-8",
            b"<!doctype html><title>Submitted</title><p>Thanks</p>".to_vec(),
        )
    } else if let Some(page) = pages.get(&path) {
        (
            "200 OK",
            "text/html; charset=utf-8",
            page.clone().into_bytes(),
        )
    } else if let (Some(rest), Some(docs)) = (path.strip_prefix("/rustdoc/"), docs) {
        let file = docs.join(rest);
        match std::fs::read(&file) {
            Ok(b) if !rest.contains("..") => {
                let ct = match file.extension().and_then(|e| e.to_str()) {
                    Some("html") => "text/html; charset=utf-8",
                    Some("js") => "text/javascript",
                    Some("css") => "text/css",
                    Some("svg") => "image/svg+xml",
                    _ => "application/octet-stream",
                };
                ("200 OK", ct, b)
            }
            _ => ("404 Not Found", "text/plain", b"not found".to_vec()),
        }
    } else {
        ("404 Not Found", "text/plain", b"not found".to_vec())
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(&body).await?;
    sock.shutdown().await
}

/// The Rust docs shipped with a toolchain, if any.
pub fn rust_docs() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(Path::new(&home).join(".rustup/toolchains"))
        .ok()?
        .flatten()
        .map(|e| e.path().join("share/doc/rust/html"))
        .filter(|d| d.join("std/vec/struct.Vec.html").exists())
        .collect();
    dirs.sort();
    dirs.into_iter().next()
}

/// A running test: the server, the backend (owning one headless Chromium) and its page.
pub struct Env {
    pub server: Server,
    pub backend: CdpBackend,
    pub root: RootInfo,
    states: u64,
}

pub fn deadline() -> Deadline {
    Deadline::after(Duration::from_secs(30))
}

impl Env {
    pub async fn start(pages: &[(&str, &str)], docs: Option<PathBuf>) -> Env {
        let pages = pages
            .iter()
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .collect();
        let server = Server::start(pages, docs).await;
        let backend = CdpBackend::new(CdpConfig {
            headless: Some(true),
            ..CdpConfig::default()
        });
        let roots = backend
            .browser()
            .unwrap()
            .launch(
                LaunchRequest {
                    url: None,
                    headless: true,
                    endpoint: None,
                    size: None,
                    ..LaunchRequest::default()
                },
                deadline(),
            )
            .await
            .expect("launch");
        let root = roots.into_iter().next().expect("a page");
        Env {
            server,
            backend,
            root,
            states: 0,
        }
    }

    pub async fn goto(&mut self, path: &str) {
        let url = self.server.url(path);
        self.root = self
            .backend
            .browser()
            .unwrap()
            .navigate(&self.root, Navigation::Url(url), deadline())
            .await
            .expect("navigate");
    }

    /// Observes and builds a core state (refs carried over from `previous`).
    pub async fn observe(&mut self, previous: Option<Arc<State>>) -> Arc<State> {
        let root = self.root.clone();
        self.observe_root(&root, previous).await
    }

    /// [`Env::observe`] of another root (a dialog of the page).
    pub async fn observe_root(
        &mut self,
        root: &RootInfo,
        previous: Option<Arc<State>>,
    ) -> Arc<State> {
        let snap = self
            .backend
            .observe(root, &ObserveRequest::default(), deadline())
            .await
            .expect("observe");
        snap.check().expect("well-formed snapshot");
        self.states += 1;
        Arc::new(State::build(NewState {
            id: StateId::new(self.states).unwrap(),
            root: RootRef::new(1).unwrap(),
            root_info: root.clone(),
            epoch: 0,
            snapshot: snap,
            image: None,
            ocr: vec![],
            successor: previous.is_some(),
            previous,
        }))
    }

    pub async fn act(&self, state: &State, steps: Vec<Step>) -> Vec<StepReport> {
        self.act_on(&self.root, state, steps).await
    }

    /// [`Env::act`] on another root (a dialog of the page).
    pub async fn act_on(
        &self,
        root: &RootInfo,
        state: &State,
        steps: Vec<Step>,
    ) -> Vec<StepReport> {
        let lock = InputLock::new();
        let req = ActRequest {
            root,
            state,
            steps: &steps,
            headless: true,
            input: &lock,
            expect_follows: false,
            defer_settle: false,
        };
        self.backend.act(req, deadline()).await.expect("act")
    }

    /// Stops the browser (the backend launched it).
    pub async fn finish(self) {
        self.backend.shutdown().await;
    }

    pub async fn eval(&self, expr: &str) -> serde_json::Value {
        self.backend
            .browser()
            .unwrap()
            .evaluate(&self.root, expr, deadline())
            .await
            .expect("evaluate")
    }
}

/// The ref of the best match for text (and role).
pub fn find(state: &State, role: Option<Role>, text: &str) -> ElementRef {
    let q = Query {
        text: Some(text.to_string()),
        roles: role.into_iter().collect(),
        ..Query::default()
    };
    let m = search(state, &q);
    let best = m
        .first()
        .unwrap_or_else(|| panic!("no {role:?} {text:?} in the snapshot"));
    state.ref_of(best.index)
}

/// Runs a live test (failing when Chromium is missing), serialized with the other
/// live tests, on its own runtime, failing if it runs past `secs`. The browser is stopped on
/// every path: explicitly at the end, and by the backend's drop (SIGKILL by pid) on a panic.
pub fn live<F, Fut>(name: &str, secs: u64, f: F)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    if !Path::new(CHROMIUM).exists() {
        panic!("{CHROMIUM} is not installed: the test cannot run without it (scripts/install-deps.sh installs it)");
    }
    let _serial = LIVE.lock().unwrap_or_else(|p| p.into_inner());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        if tokio::time::timeout(Duration::from_secs(secs), f())
            .await
            .is_err()
        {
            panic!("{name} timed out after {secs} s");
        }
    });
}
