//! Real pages nobody here wrote: the Rust standard library docs shipped with the toolchain.

use uidriver_core::search::{search, Query};
use uidriver_core::{Outcome, Role, Step};

use crate::support::{live, rust_docs, Env};

#[test]
#[ignore = "live: starts headless Chromium on the Rust docs; scripts/test.sh runs it"]
fn vec_docs_method_link_scrolls_to_the_method() {
    let docs = rust_docs().expect(
        "no Rust docs under ~/.rustup/toolchains/*/share/doc/rust/html: scripts/install-deps.sh adds the rust-docs component",
    );
    live(
        "vec_docs_method_link_scrolls_to_the_method",
        180,
        || async move {
            let mut env = Env::start(&[], Some(docs)).await;
            env.goto("/rustdoc/std/vec/struct.Vec.html").await;
            let s = env.observe(None).await;
            assert!(s.len() > 2000, "a big page: {} nodes", s.len());
            // The method's own link in its heading (href "#method.with_capacity"), not a sidebar entry.
            let q = Query {
                text: Some("with_capacity".into()),
                roles: vec![Role::Link],
                ..Query::default()
            };
            let m = search(&s, &q)
                .into_iter()
                .find(|m| {
                    let n = &s.snapshot.nodes[m.index];
                    n.name.text() == Some("with_capacity")
                        && n.description.text() == Some("#method.with_capacity")
                })
                .expect("the with_capacity method link");
            let link = s.ref_of(m.index);
            let before = env.eval("[location.hash, scrollY]").await;
            assert_eq!(before[0], "");
            let r = env.act(&s, vec![Step::Press(link)]).await;
            assert_eq!(r[0].outcome, Outcome::Worked, "{r:#?}");
            assert_eq!(r[0].delivery.method.as_str(), "cdp-input");
            let after = env.eval("[location.hash, scrollY]").await;
            assert_eq!(after[0], "#method.with_capacity", "{after}");
            assert_ne!(
                after[1], before[1],
                "the page scrolled: {before} -> {after}"
            );
            env.finish().await;
        },
    );
}
