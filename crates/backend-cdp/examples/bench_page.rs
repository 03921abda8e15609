//! Benchmark program (not a test): how long uidriver's first observation of a real page takes
//! and how much text the model reads, against raw CDP alternatives on the same connection.
//!
//! Serves the Rust docs shipped with the toolchain from a local HTTP server, launches a
//! headless Chromium through `CdpBackend`, and for each page measures (medians of `--reps`):
//! - `uidriver`: observe + `State::build` + `render_outline` (wall time; outline chars);
//! - `getFullAXTree`: raw `Accessibility.getFullAXTree` (reply received, undecoded);
//! - the other extraction options that were considered: `DOMSnapshot.captureSnapshot`,
//!   `DOM.getDocument`, the walker alone in the page's world, and a partial AX query
//!   (`Accessibility.queryAXTree` for one role).
//!
//! Prints one JSON object on stdout and writes each page's outline next to `--out` so a driver
//! (`bench/cdp/pwmcp_compare.py`) can count tokens and compare with Playwright MCP.
//!
//! Usage: `cargo run --release -p uidriver-backend-cdp --example bench_page -- [--reps 5]
//! [--docs DIR] [--out DIR] [PAGE ...]` (pages relative to the docs root).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use uidriver_backend_cdp::{bench, CdpBackend, CdpConfig};
use uidriver_core::outline::{render_outline, OutlineOptions};
use uidriver_core::{
    Backend, Deadline, LaunchRequest, Navigation, NewState, ObserveRequest, RootRef, State, StateId,
};

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    if xs.is_empty() {
        0.0
    } else {
        xs[xs.len() / 2]
    }
}

fn find_docs() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let tc = Path::new(&home).join(".rustup/toolchains");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(tc)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| d.join("share/doc/rust/html"))
        .find(|d| d.join("std/vec/struct.Vec.html").exists())
}

/// A minimal static file server (GET only) for the docs.
async fn serve(root: PathBuf) -> std::io::Result<u16> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let root = Arc::new(root);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let root = root.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]);
                let path = req.split_whitespace().nth(1).unwrap_or("/");
                let path = path
                    .split(['?', '#'])
                    .next()
                    .unwrap_or("/")
                    .trim_start_matches('/');
                let file = root.join(path);
                let safe = !path.split('/').any(|s| s == "..");
                let (status, body) = match tokio::fs::read(&file).await {
                    Ok(b) if safe => ("200 OK", b),
                    _ => ("404 Not Found", b"not found".to_vec()),
                };
                let ctype = match file.extension().and_then(|e| e.to_str()) {
                    Some("html") => "text/html; charset=utf-8",
                    Some("js") => "text/javascript",
                    Some("css") => "text/css",
                    Some("svg") => "image/svg+xml",
                    Some("woff2") => "font/woff2",
                    Some("png") => "image/png",
                    _ => "application/octet-stream",
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(&body).await;
            });
        }
    });
    Ok(port)
}

/// The other extraction options, each on the same page: milliseconds (median), reply bytes,
/// and how many nodes or matches it returned.
async fn alternatives(
    backend: &CdpBackend,
    root: &uidriver_core::RootInfo,
    reps: usize,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let long = || Deadline::after(Duration::from_secs(60));
    let mut out = serde_json::Map::new();
    let walker = format!("({})({{max: 20000, root: 0}})", bench::WALKER_JS);
    let options: Vec<(&str, &'static str, serde_json::Value)> = vec![
        (
            "DOMSnapshot.captureSnapshot",
            "DOMSnapshot.captureSnapshot",
            json!({"computedStyles": ["display", "visibility"], "includeDOMRects": true}),
        ),
        (
            "DOM.getDocument(depth -1)",
            "DOM.getDocument",
            json!({"depth": -1, "pierce": true}),
        ),
        (
            "walker (Runtime.evaluate, page world)",
            "Runtime.evaluate",
            json!({"expression": walker, "returnByValue": true}),
        ),
    ];
    for (name, method, params) in options {
        let (mut ts, mut bytes, mut count) = (vec![], 0, 0);
        for _ in 0..reps.min(3) {
            let (ms, b, v) = bench::raw(backend, root, method, &params, true, long()).await?;
            ts.push(ms);
            bytes = b;
            count = match method {
                "DOMSnapshot.captureSnapshot" => v["documents"]
                    .as_array()
                    .map(|d| {
                        d.iter()
                            .map(|d| d["nodes"]["nodeType"].as_array().map_or(0, Vec::len))
                            .sum()
                    })
                    .unwrap_or(0),
                "Runtime.evaluate" => v["result"]["value"]
                    .as_str()
                    .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok())
                    .and_then(|w| w["nodes"].as_array().map(Vec::len))
                    .unwrap_or(0),
                _ => 0,
            };
        }
        out.insert(
            name.into(),
            json!({"median_ms": median(&mut ts), "bytes": bytes, "nodes": count}),
        );
    }
    // A partial AX tree: every link of the page by role (one call after the document's id).
    let (_, _, doc) = bench::raw(
        backend,
        root,
        "DOM.getDocument",
        &json!({"depth": 0}),
        true,
        long(),
    )
    .await?;
    let doc_id = doc["root"]["backendNodeId"].clone();
    let (mut ts, mut bytes, mut count) = (vec![], 0, 0);
    for _ in 0..reps.min(3) {
        let params = json!({"backendNodeId": doc_id, "role": "link"});
        let (ms, b, v) = bench::raw(
            backend,
            root,
            "Accessibility.queryAXTree",
            &params,
            true,
            long(),
        )
        .await?;
        ts.push(ms);
        bytes = b;
        count = v["nodes"].as_array().map_or(0, Vec::len);
    }
    out.insert(
        "Accessibility.queryAXTree(role=link)".into(),
        json!({"median_ms": median(&mut ts), "bytes": bytes, "nodes": count}),
    );
    Ok(serde_json::Value::Object(out))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut reps = 5usize;
    let mut docs = None;
    let mut out_dir = std::env::temp_dir().join("uidriver-bench");
    let mut pages = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).unwrap_or(5),
            "--docs" => docs = args.next().map(PathBuf::from),
            "--out" => out_dir = args.next().map(PathBuf::from).unwrap_or(out_dir),
            p => pages.push(p.to_string()),
        }
    }
    if pages.is_empty() {
        pages = vec!["std/index.html".into(), "std/vec/struct.Vec.html".into()];
    }
    let docs = docs
        .or_else(find_docs)
        .ok_or("no Rust docs found; pass --docs DIR")?;
    std::fs::create_dir_all(&out_dir)?;
    let port = serve(docs.clone()).await?;

    let backend = CdpBackend::new(CdpConfig {
        headless: Some(true),
        ..CdpConfig::default()
    });
    let long = || Deadline::after(Duration::from_secs(60));
    let t = Instant::now();
    let roots = backend
        .browser()
        .ok_or("no browser control")?
        .launch(
            LaunchRequest {
                url: None,
                headless: true,
                endpoint: None,
                size: None,
                ..LaunchRequest::default()
            },
            long(),
        )
        .await?;
    let launch_ms = t.elapsed().as_secs_f64() * 1000.0;
    let root = roots.first().ok_or("no page")?.clone();
    let mut results = Vec::new();
    for page in &pages {
        let url = format!("http://127.0.0.1:{port}/{page}");
        let t = Instant::now();
        let root = backend
            .browser()
            .ok_or("no browser control")?
            .navigate(&root, Navigation::Url(url.clone()), long())
            .await?;
        let nav_ms = t.elapsed().as_secs_f64() * 1000.0;
        // Let the page's own scripts finish their post-load work, as a person would.
        tokio::time::sleep(Duration::from_millis(500)).await;

        let (mut ours, mut walk, mut transfer, mut build_ms, mut ax) =
            (vec![], vec![], vec![], vec![], vec![]);
        let mut first_ms = None;
        let mut outline_text = String::new();
        let mut nodes = 0;
        let mut ax_nodes = 0;
        let mut ax_bytes = 0;
        for i in 0..reps {
            let t = Instant::now();
            let snap = backend
                .observe(&root, &ObserveRequest::default(), long())
                .await?;
            let t_obs = t.elapsed();
            let state = State::build(NewState {
                id: StateId::new(i as u64 + 1).ok_or("id")?,
                root: RootRef::new(1).ok_or("ref")?,
                root_info: root.clone(),
                epoch: 0,
                snapshot: snap,
                image: None,
                ocr: vec![],
                previous: None,
                successor: false,
            });
            let outline = render_outline(&state, 0, &OutlineOptions::default());
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            first_ms.get_or_insert(ms);
            ours.push(ms);
            let ph = &state.snapshot.timings.phases;
            walk.push(ph.get("walk").copied().unwrap_or(0.0));
            transfer.push(ph.get("transfer").copied().unwrap_or(0.0));
            build_ms
                .push(ms - t_obs.as_secs_f64() * 1000.0 + ph.get("build").copied().unwrap_or(0.0));
            nodes = state.len();
            outline_text = format!(
                "state s{} · root @r1 browser_page {:?} · {} nodes, {} · {:.0} ms\n{}",
                i + 1,
                root.title,
                state.len(),
                if state.snapshot.complete {
                    "complete"
                } else {
                    "partial"
                },
                ms,
                outline.text
            );
        }
        for _ in 0..reps {
            let (ms, n, bytes) = bench::full_ax_tree(&backend, &root, long()).await?;
            ax.push(ms);
            ax_nodes = n;
            ax_bytes = bytes;
        }
        let alt = alternatives(&backend, &root, reps).await?;
        let file = out_dir.join(format!("{}.outline.txt", page.replace('/', "_")));
        std::fs::write(&file, &outline_text)?;
        results.push(json!({
            "page": page,
            "url": url,
            "navigate_ms": nav_ms,
            "uidriver": {
                "first_ms": first_ms,
                "median_ms": median(&mut ours),
                "samples_ms": ours,
                "walk_samples_ms": walk.clone(),
                "transfer_samples_ms": transfer.clone(),
                "walk_median_ms": median(&mut walk),
                "transfer_median_ms": median(&mut transfer),
                "build_and_render_median_ms": median(&mut build_ms),
                "nodes": nodes,
                "outline_chars": outline_text.chars().count(),
                "outline_file": file,
            },
            "getFullAXTree": {"median_ms": median(&mut ax), "samples_ms": ax, "nodes": ax_nodes, "bytes": ax_bytes},
            "alternatives": alt,
        }));
    }
    backend.shutdown().await;
    let summary = json!({"launch_ms": launch_ms, "reps": reps, "pages": results});
    let mut stdout = std::io::stdout().lock();
    std::io::Write::write_all(&mut stdout, format!("{summary:#}\n").as_bytes())?;
    Ok(())
}
