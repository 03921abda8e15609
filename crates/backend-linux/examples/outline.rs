//! Lists the roots of the current desktop and prints the folded outline of one of them, the way
//! a model reads it. Runs against whatever `DISPLAY` / `AT_SPI_BUS_ADDRESS` point at (a sandbox's
//! env file, for instance):
//!
//! ```text
//! . /tmp/uidriver-sandbox-XXXX/env
//! cargo run -p uidriver-backend-linux --example outline -- "widget-factory"
//! ```
//!
//! The argument is a case-insensitive substring of the root's title or app (default: the first
//! root with a tree). `--all` prints every node instead of the folded outline; `--handles` prints
//! each node's object handle instead.

use std::time::Duration;

use uidriver_backend_linux::LinuxBackend;
use uidriver_core::outline::{render_outline, OutlineOptions};
use uidriver_core::{Backend, Deadline, NewState, ObserveRequest, RootRef, StateId};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.iter().any(|a| a == "--all");
    let pattern = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(|s| s.to_lowercase());
    let linux = LinuxBackend::from_env().await?;
    let roots = linux
        .list_roots(Deadline::after(Duration::from_secs(3)))
        .await?;
    for r in &roots {
        eprintln!(
            "{:<8} {:<22} pid {:<7} {:<40} {} tree={} focused={} modal={} hidden={} key={}",
            r.kind.as_str(),
            r.app,
            r.pid.unwrap_or(0),
            format!("{:?}", r.title),
            r.bounds.map(|b| b.to_string()).unwrap_or_default(),
            r.has_tree,
            r.focused,
            r.modal,
            r.hidden,
            r.key
        );
    }
    let root = roots
        .iter()
        .find(|r| match &pattern {
            Some(p) => r.title.to_lowercase().contains(p) || r.app.to_lowercase().contains(p),
            None => r.has_tree,
        })
        .ok_or("no matching root")?;
    let snap = linux
        .observe(
            root,
            &ObserveRequest::default(),
            Deadline::after(Duration::from_secs(5)),
        )
        .await?;
    snap.check()?;
    if args.iter().any(|a| a == "--handles") {
        // One object handle per node, to compare against tools/atspi_walk.py's paths.
        #[allow(clippy::print_stdout)]
        for n in &snap.nodes {
            println!("{}", n.handle);
        }
        return Ok(());
    }
    eprintln!(
        "{} nodes, complete={}, timings={}, notes={:?}",
        snap.nodes.len(),
        snap.complete,
        serde_json::to_string(&snap.timings)?,
        snap.notes
    );
    let state = uidriver_core::State::build(NewState {
        id: StateId::new(1).ok_or("id")?,
        root: RootRef::new(1).ok_or("ref")?,
        root_info: root.clone(),
        epoch: 0,
        snapshot: snap,
        image: None,
        ocr: Vec::new(),
        previous: None,
        successor: false,
    });
    let opts = if all {
        OutlineOptions {
            max_lines: 100_000,
            max_children: 100_000,
            show_hidden: true,
        }
    } else {
        OutlineOptions::default()
    };
    let out = render_outline(&state, 0, &opts);
    // An example program: stdout is its output.
    #[allow(clippy::print_stdout)]
    {
        println!("{}", out.text);
    }
    Ok(())
}
