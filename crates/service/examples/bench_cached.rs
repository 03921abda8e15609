//! Benchmark of cached queries: `search_ui`, `expand_ui` and `inspect_ui` on a stored
//! 5,000-node state (in-memory backend), through the same `Service::call` path a transport
//! uses. Reference in the same run: a linear substring scan of the same node names, the floor
//! any search must pay. Prints medians and ratios; `--json FILE` writes them.
//!
//!     cargo run --release -p uidriver-service --example bench_cached [-- --json out.json]

// A benchmark program: its table on stdout is its output.
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use uidriver_core::testing::MemoryBackend;
use uidriver_core::Backend;
use uidriver_service::{Service, ServiceConfig};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mem = Arc::new(MemoryBackend::big(5000));
        let svc = Service::new(vec![mem as Arc<dyn Backend>], vec![], ServiceConfig::default());
        let roots = svc.call("find_roots", json!({})).await;
        let root = roots.structured["roots"][0]["ref"].as_str().unwrap().to_string();
        let t = Instant::now();
        let obs = svc.call("observe_ui", json!({ "root": root, "mode": "semantic" })).await;
        let observe_ms = t.elapsed().as_secs_f64() * 1000.0;
        let state = obs.structured["stateId"].as_str().unwrap().to_string();
        let names: Vec<String> = (1..600).flat_map(|i| (0..9).map(move |k| format!("Item {i}.{k} alpha beta"))).collect();
        let group = svc.call("search_ui", json!({ "stateId": state, "text": "Group 300", "role": "group" })).await;
        let gref = group.structured["matches"][0]["ref"].as_str().unwrap().to_string();
        let runs = 200;
        let mut search = Vec::new();
        let mut fuzzy = Vec::new();
        let mut expand = Vec::new();
        let mut inspect = Vec::new();
        let mut scan = Vec::new();
        for i in 0..runs {
            let q = format!("Item {}.3", 1 + (i * 7) % 550);
            let t = Instant::now();
            let r = svc.call("search_ui", json!({ "stateId": state, "text": q })).await;
            search.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(!r.is_error);
            let t = Instant::now();
            svc.call("search_ui", json!({ "stateId": state, "text": "itm alph bta" })).await;
            fuzzy.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            svc.call("expand_ui", json!({ "stateId": state, "ref": gref })).await;
            expand.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            svc.call("inspect_ui", json!({ "stateId": state, "ref": gref })).await;
            inspect.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let ql = q.to_lowercase();
            let hits = names.iter().filter(|n| n.to_lowercase().contains(&ql)).count();
            scan.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(hits > 0);
        }
        let (s, f, e, n, r) = (median(search), median(fuzzy), median(expand), median(inspect), median(scan));
        println!("cached queries on a 5,000-node state ({runs} runs, medians)");
        println!("{:<28} {:>10} {:>12}", "query", "ms", "÷ name scan");
        for (name, v) in [("search_ui (substring)", s), ("search_ui (fuzzy)", f), ("expand_ui (group)", e), ("inspect_ui", n), ("reference: name scan", r)] {
            println!("{name:<28} {v:>10.3} {:>12.1}", v / r);
        }
        println!("first observe_ui of the state: {observe_ms:.1} ms");
        if let Some(path) = std::env::args().skip_while(|a| a != "--json").nth(1) {
            let out = json!({ "nodes": 5000, "runs": runs, "medianMs": { "search": s, "fuzzySearch": f, "expand": e, "inspect": n, "referenceNameScan": r }, "observeMs": observe_ms });
            std::fs::write(path, serde_json::to_string_pretty(&out).unwrap()).unwrap();
        }
    });
}
