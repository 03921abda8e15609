//! Benchmark program (not a test): how fast uidriver's semantic observation is against the two
//! references measured in the same run, per application:
//!
//! - the libatspi walk (`tools/atspi_walk.py --repeat N`, system python with gi), which visits
//!   every node of the app;
//! - one `org.a11y.atspi.Cache.GetItems` call made from Rust (the floor: one round trip that
//!   returns the app's cached tree without extents, text or values).
//!
//! uidriver is timed twice: observing the whole application object (the same scope as the walk
//! and GetItems: node counts are comparable) and observing the app's window root (what
//! `observe_ui` does). Medians over `--runs` (10) after one warm-up. Prints a table and writes
//! JSON (`--json PATH`, default `target/bench_observe.json`). Like `observe_ui` in its default and
//! semantic modes it reads no rectangles; `--bounds` measures a visual look's request instead.
//!
//! ```text
//! cargo run --release -p uidriver-backend-linux --example bench_observe -- --runs 10
//! ```
//!
//! `--only LABEL` (repeatable) measures just those apps (`gtk3-widget-factory`, `mousepad`,
//! `gnome-calculator`, `zenity`, `chromium`, `chromium-30k`, `calc`). `chromium-30k` is a page of
//! about 30,000 nodes, nearly all scrolled out of view (issue 11: observed complete, no node cap).
//!
//! `calc` is LibreOffice Calc, whose sheet has 2^34 cells: no walk can visit it, so its row is
//! uidriver's observation time of the window (the sheet read over its visible window) and the
//! soffice process's resident memory before and after the runs (a look must not make the app
//! build accessibles it then keeps).
//!
//! It starts its own sandbox (Xvfb + D-Bus + AT-SPI + openbox) with gtk3-widget-factory,
//! mousepad, gnome-calculator, zenity and Chromium, and stops it at the end.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_core::{
    Backend, Deadline, Evidence, NewState, Node, ObserveRequest, RootInfo, RootRef, Snapshot,
    State, StateId,
};
use uidriver_sandbox::{Sandbox, SandboxConfig};

type Ref = (String, zbus::zvariant::OwnedObjectPath);
type WireItem = (
    Ref,
    Ref,
    Ref,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn deadline(s: u64) -> Deadline {
    Deadline::after(Duration::from_secs(s))
}

fn path_of(handle: &str) -> &str {
    handle.rsplit_once(':').map_or(handle, |(_, p)| p)
}

/// Chromium showing a page of `sections` paragraphs and buttons (about 9 accessible nodes
/// each), titled `title`.
fn chromium(dir: &Path, title: &str, sections: usize) -> Res<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let page = dir.join("page.html");
    let mut body = String::from("<h1>Bench</h1>");
    for i in 0..sections {
        body.push_str(&format!(
            "<p>Paragraph {i} with <a href=\"#a{i}\">a link</a> and <b>bold</b> text.</p><button id=\"b{i}\">Button {i}</button>"
        ));
    }
    std::fs::write(
        &page,
        format!("<html><head><title>{title}</title></head><body>{body}</body></html>"),
    )?;
    Ok(vec![
        "/usr/lib/chromium/chromium".into(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--force-renderer-accessibility".into(),
        format!("--user-data-dir={}", dir.join("profile").display()),
        format!("file://{}", page.display()),
    ])
}

struct Target {
    label: &'static str,
    argv: Vec<String>,
    title_has: &'static str,
}

fn walk(sb: &Sandbox, pid: u32, runs: usize) -> Res<serde_json::Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/atspi_walk.py");
    let mut cmd = Command::new("/usr/bin/python3");
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default());
    for (k, v) in sb.env() {
        cmd.env(k, v);
    }
    let out = cmd
        .arg(script)
        .args([
            "--pid",
            &pid.to_string(),
            "--repeat",
            &(runs + 1).to_string(),
            "--wait",
            "10",
        ])
        .output()?;
    if !out.status.success() {
        return Err(format!("atspi_walk: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    Ok(v["apps"][0].clone())
}

/// Median of single `GetItems` calls made from Rust on a connection of its own.
async fn get_items(address: &str, bus: &str, runs: usize) -> Res<(f64, usize)> {
    let conn = zbus::connection::Builder::address(address)?.build().await?;
    let mut times = Vec::new();
    let mut count = 0;
    for _ in 0..=runs {
        let t = Instant::now();
        let reply = conn
            .call_method(
                Some(bus),
                "/org/a11y/atspi/cache",
                Some("org.a11y.atspi.Cache"),
                "GetItems",
                &(),
            )
            .await?;
        // The floor: until the reply is in. Decoding is not timed (uidriver pays for its own).
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        let items: Vec<WireItem> = reply.body().deserialize()?;
        count = items.len();
    }
    times.remove(0);
    Ok((median(&mut times), count))
}

fn app_state(root: &RootInfo, bus: &str) -> State {
    let node = Node {
        handle: format!("{bus}:/org/a11y/atspi/accessible/root"),
        name: Evidence::Known("app".into()),
        ..Node::default()
    };
    State::build(NewState {
        id: StateId::new(1).expect("non-zero"),
        root: RootRef::new(1).expect("non-zero"),
        root_info: root.clone(),
        epoch: 0,
        snapshot: Snapshot {
            nodes: vec![node],
            complete: true,
            ..Snapshot::default()
        },
        image: None,
        ocr: Vec::new(),
        previous: None,
        successor: false,
    })
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Res<()> {
    // RUST_LOG=uidriver_backend_linux=trace lists every AT-SPI call.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let runs: usize = opt("--runs").and_then(|s| s.parse().ok()).unwrap_or(10);
    let json_path = PathBuf::from(opt("--json").unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../target/bench_observe.json")
            .display()
            .to_string()
    }));

    let sb = Sandbox::start(SandboxConfig::default())?;
    let result = run(&sb, runs, &json_path).await;
    let stopped = sb.stop()?;
    if !stopped.survivors.is_empty() {
        eprintln!("warning: survivors after stop: {:?}", stopped.survivors);
    }
    result
}

async fn run(sb: &Sandbox, runs: usize, json_path: &Path) -> Res<()> {
    let targets = vec![
        Target {
            label: "gtk3-widget-factory",
            argv: vec!["gtk3-widget-factory".into()],
            title_has: "widget",
        },
        Target {
            label: "mousepad",
            argv: vec!["mousepad".into()],
            title_has: "Mousepad",
        },
        Target {
            label: "gnome-calculator",
            argv: vec!["gnome-calculator".into()],
            title_has: "Calculator",
        },
        Target {
            label: "zenity",
            argv: vec![
                "zenity".into(),
                "--info".into(),
                "--text".into(),
                "hi".into(),
            ],
            title_has: "",
        },
        Target {
            label: "chromium",
            argv: chromium(&sb.state_dir().join("bench-chromium"), "Bench Page", 40)?,
            title_has: "Bench Page",
        },
        // Issue 11's big tree: a page of about 30,000 nodes, nearly all scrolled out of view.
        Target {
            label: "chromium-30k",
            argv: chromium(
                &sb.state_dir().join("bench-chromium-30k"),
                "Big Page",
                3_400,
            )?,
            title_has: "Big Page",
        },
    ];
    // `--only LABEL` (repeatable): just those apps.
    let only: Vec<String> = std::env::args()
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0] == "--only")
        .map(|w| w[1].clone())
        .collect();
    let targets: Vec<Target> = targets
        .into_iter()
        .filter(|t| only.is_empty() || only.iter().any(|o| o == t.label))
        .collect();
    let mut pids = Vec::new();
    for t in &targets {
        let pid = sb.spawn(&t.argv)?;
        let w = sb.wait_for_app_window(pid, Duration::from_secs(40))?;
        pids.push(w.pid);
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let cfg = LinuxConfig::from_vars(sb.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let address = cfg
        .a11y_address
        .clone()
        .ok_or("sandbox has no AT_SPI_BUS_ADDRESS")?;
    let linux = LinuxBackend::connect(cfg).await?;
    let roots = linux.list_roots(deadline(5)).await?;
    // What `observe_ui` asks for in its default (fused) and semantic modes: no rectangles;
    // `--bounds` measures a visual look's request instead.
    let req = ObserveRequest {
        bounds: std::env::args().any(|a| a == "--bounds"),
        ..ObserveRequest::default()
    };
    let mut rows = Vec::new();
    let mut table = vec![format!(
        "{:<20} {:>5} {:>5} {:>5} | {:>8} {:>8} {:>8} {:>8} {:>8} | {:>8} {:>7} {:>8} | complete",
        "app",
        "walk",
        "app",
        "win",
        "uid app",
        "uid win",
        "uid tree",
        "walk",
        "GetItems",
        "walk/uid",
        "uid/GI",
        "tree/GI"
    )];
    for (t, pid) in targets.iter().zip(&pids) {
        let Some(root) = roots.iter().find(|r| {
            r.pid == Some(*pid)
                && r.has_tree
                && r.window_id.is_some()
                && r.title.contains(t.title_has)
        }) else {
            eprintln!("{}: no root found", t.label);
            continue;
        };
        // The first look of a run: Chromium fills its cache only with what was asked for, so
        // on a big page this one reads live what later looks take from the cache.
        let first = linux.observe(root, &req, deadline(10)).await?;
        eprintln!(
            "{}: first look {:.1} ms, {} nodes, complete {}",
            t.label,
            first.timings.total_ms,
            first.nodes.len(),
            first.complete
        );
        let bus = first.nodes[0]
            .handle
            .rsplit_once(':')
            .ok_or("handle")?
            .0
            .to_string();
        let state = app_state(root, &bus);
        let mut win_ms = Vec::new();
        let mut app_ms = Vec::new();
        let mut tree_ms = Vec::new();
        let mut win_nodes = 0;
        let mut app_snap = None;
        let mut complete = true;
        for i in 0..=runs {
            let s = linux.observe(root, &req, deadline(10)).await?;
            let a = linux
                .observe_region(root, &state, 0, &req, deadline(10))
                .await?;
            if i > 0 {
                win_ms.push(s.timings.total_ms);
                app_ms.push(a.timings.total_ms);
                // The tree alone (what GetItems is comparable to): ping, cache, walk.
                let p = &a.timings.phases;
                tree_ms.push(
                    ["ping", "getitems", "walk"]
                        .iter()
                        .filter_map(|k| p.get(*k))
                        .sum::<f64>(),
                );
            }
            complete &= s.complete && a.complete;
            win_nodes = s.nodes.len();
            app_snap = Some(a);
        }
        let app_snap = app_snap.ok_or("no runs")?;
        let w = walk(sb, *pid, runs)?;
        let mut walk_ms: Vec<f64> = w["ms_all"]
            .as_array()
            .map(|a| a.iter().skip(1).filter_map(|v| v.as_f64()).collect())
            .unwrap_or_default();
        let walk_nodes = w["nodes"].as_u64().unwrap_or(0) as usize;
        let walk_paths: HashSet<&str> = w["paths"]
            .as_array()
            .map(|a| a.iter().filter_map(|p| p.as_str()).collect())
            .unwrap_or_default();
        let showing: HashSet<&str> = w["showing_paths"]
            .as_array()
            .map(|a| a.iter().filter_map(|p| p.as_str()).collect())
            .unwrap_or_default();
        let ours: HashSet<&str> = app_snap.nodes.iter().map(|n| path_of(&n.handle)).collect();
        let missing_showing = showing.difference(&ours).count();
        let missing_all = walk_paths.difference(&ours).count();
        let (gi_ms, gi_items) = get_items(&address, &bus, runs).await?;
        let (uw, ua, ut, wk) = (
            median(&mut win_ms),
            median(&mut app_ms),
            median(&mut tree_ms),
            median(&mut walk_ms),
        );
        table.push(format!(
            "{:<20} {:>5} {:>5} {:>5} | {:>6.1}ms {:>6.1}ms {:>6.1}ms {:>6.1}ms {:>6.1}ms | {:>7.1}x {:>6.1}x {:>7.1}x | {} (missing vs walk: {} showing, {} any)",
            t.label, walk_nodes, app_snap.nodes.len(), win_nodes, ua, uw, ut, wk, gi_ms, wk / ua, ua / gi_ms, ut / gi_ms, complete, missing_showing, missing_all
        ));
        eprintln!("{}", table[table.len() - 1]);
        rows.push(json!({
            "app": t.label,
            "pid": pid,
            "walk": {"median_ms": wk, "nodes": walk_nodes, "showing": showing.len()},
            "getitems": {"median_ms": gi_ms, "items": gi_items},
            "uidriver_app": {"median_ms": ua, "nodes": app_snap.nodes.len(), "calls": app_snap.timings.calls, "phases": app_snap.timings.phases},
            "uidriver_window": {"median_ms": uw, "nodes": win_nodes},
            "first_look": {"ms": first.timings.total_ms, "nodes": first.nodes.len(), "complete": first.complete},
            "uidriver_tree": {"median_ms": ut},
            "tree_over_getitems": ut / gi_ms,
            "walk_over_uidriver": wk / ua,
            "uidriver_over_getitems": ua / gi_ms,
            "missing_vs_walk": {"showing": missing_showing, "all": missing_all},
            "complete": complete,
        }));
    }
    let calc = if only.is_empty() || only.iter().any(|o| o == "calc") {
        let c = calc(sb, &linux, &req, runs).await?;
        table.push(c.0);
        eprintln!("{}", table[table.len() - 1]);
        Some(c.1)
    } else {
        None
    };
    let out = json!({"runs": runs, "apps": rows, "calc": calc});
    if let Some(dir) = json_path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(json_path, serde_json::to_string_pretty(&out)?)?;
    // The table is the program's output.
    #[allow(clippy::print_stdout)]
    {
        println!("{}", table.join("\n"));
        println!("JSON: {}", json_path.display());
    }
    Ok(())
}

/// Resident memory of a process in KiB (`VmRSS`).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// LibreOffice Calc: the window observed `runs` times (median), and soffice's RSS before and
/// after. The table row and its JSON.
async fn calc(
    sb: &Sandbox,
    linux: &LinuxBackend,
    req: &ObserveRequest,
    runs: usize,
) -> Res<(String, serde_json::Value)> {
    // The task suite's profile: no Tip of the Day dialog in front of the sheet.
    let home = sb
        .env()
        .iter()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| PathBuf::from(v))
        .ok_or("the sandbox sets HOME")?;
    let profile = home.join(".config/libreoffice/4/user");
    std::fs::create_dir_all(&profile)?;
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tasks/files/libreoffice/registrymodifications.xcu"),
        profile.join("registrymodifications.xcu"),
    )?;
    let pid = sb.spawn(&["soffice".to_string(), "--calc".into(), "--norestore".into()])?;
    let pid = sb.wait_for_app_window(pid, Duration::from_secs(60))?.pid;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let roots = linux.list_roots(deadline(5)).await?;
    let root = roots
        .iter()
        .find(|r| r.pid == Some(pid) && r.title.contains("LibreOffice Calc"))
        .ok_or("no Calc window")?;
    let before = rss_kib(pid).unwrap_or(0);
    let mut ms = Vec::new();
    let mut nodes = 0;
    let mut window_note = String::new();
    for i in 0..=runs {
        let s = linux.observe(root, req, deadline(20)).await?;
        if i > 0 {
            ms.push(s.timings.total_ms);
        }
        nodes = s.nodes.len();
        if let Some(n) = s.notes.iter().find(|n| n.starts_with("table ")) {
            window_note = n.clone();
        }
    }
    let after = rss_kib(pid).unwrap_or(0);
    let median_ms = median(&mut ms);
    let growth = (after as f64 - before as f64) / (before.max(1) as f64) * 100.0;
    let row = format!(
        "{:<20} {:>5} {:>5} {:>5} | {:>6} {:>6.1}ms | soffice RSS {:.1} MiB before, {:.1} MiB after ({:+.1}%) | {}",
        "calc",
        "-",
        "-",
        nodes,
        "",
        median_ms,
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        growth,
        window_note
    );
    Ok((
        row,
        json!({"median_ms": median_ms, "nodes": nodes, "rss_kib_before": before,
               "rss_kib_after": after, "rss_growth_percent": growth, "window": window_note}),
    ))
}
