//! Core integration: a page's snapshot built into a core `State` gives a small folded outline,
//! while search and expansion still reach every element.

use uidriver_core::outline::{render_outline, OutlineOptions};
use uidriver_core::search::{search, Query};
use uidriver_core::StateFlag;

use crate::support::{live, rust_docs, Env};

#[test]
#[ignore = "live: starts headless Chromium on the Rust docs; scripts/test.sh runs it"]
fn folded_outline_is_small_and_search_reaches_everything() {
    let docs = rust_docs().expect(
        "no Rust docs under ~/.rustup/toolchains/*/share/doc/rust/html: scripts/install-deps.sh adds the rust-docs component",
    );
    live(
        "folded_outline_is_small_and_search_reaches_everything",
        180,
        || async move {
            let mut env = Env::start(&[], Some(docs)).await;
            for (page, min_nodes) in [("std/index.html", 500), ("std/vec/struct.Vec.html", 5000)] {
                env.goto(&format!("/rustdoc/{page}")).await;
                let s = env.observe(None).await;
                assert!(s.len() >= min_nodes, "{page}: {} nodes", s.len());
                assert!(s.snapshot.complete, "{page}: complete");
                assert!(s.snapshot.timings.describe_ms > 0.0 && s.snapshot.timings.calls > 0);
                assert!(s.snapshot.timings.phases.contains_key("walk"));
                let out = render_outline(&s, 0, &OutlineOptions::default());
                // The model reads at most ~150 lines, a fraction of the page.
                assert!(out.lines <= 310, "{page}: {} lines", out.lines);
                assert!(out.text.len() < 20_000, "{page}: {} chars", out.text.len());
                assert!(out.folded > 0, "{page}: something is folded");

                // Every named element is found by search on its name (sampled evenly on big pages).
                let named: Vec<usize> = (0..s.len())
                    .filter(|&i| s.snapshot.nodes[i].name.text().is_some())
                    .collect();
                let step = (named.len() / 300).max(1);
                for &i in named.iter().step_by(step) {
                    let name = s.snapshot.nodes[i].name.text().unwrap().to_string();
                    let q = Query {
                        text: Some(name.clone()),
                        include_hidden: true,
                        ..Query::default()
                    };
                    assert!(
                        search(&s, &q).iter().any(|m| m.index == i),
                        "{page}: search misses node {i} {name:?}"
                    );
                }
                // Anything folded away is reached by expanding its nearest shown ancestor.
                let deepest = (0..s.len())
                    .filter(|&i| {
                        !s.snapshot.nodes[i].has_state(StateFlag::Hidden)
                            && s.snapshot.nodes[i].name.text().is_some()
                    })
                    .max_by_key(|&i| s.ancestors(i).len())
                    .unwrap();
                let r = s.ref_of(deepest).to_string();
                assert!(
                    !out.text.contains(&format!("{r} ")),
                    "{page}: the deepest node is folded away"
                );
                let mut shown = None;
                for a in s.ancestors(deepest) {
                    let sub = render_outline(&s, a, &OutlineOptions::default());
                    if sub.text.contains(&format!("{r} ")) {
                        shown = Some(a);
                        break;
                    }
                }
                assert!(shown.is_some(), "{page}: expanding an ancestor shows {r}");
            }
            env.finish().await;
        },
    );
}
