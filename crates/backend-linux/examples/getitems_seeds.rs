//! Writes the `getitems` fuzz target's seed corpus, `fuzz/corpus/getitems/`: real `GetItems`
//! reply bodies of a few shapes (0, 1 and 3 items; little endian at offset 0, big endian at
//! offset 4) that zvariant marshals from items proptest draws with a fixed seed, so a run writes
//! the same bytes again. Run it by hand when the reply's shape changes, and keep the files:
//!
//! ```text
//! cargo run -p uidriver-backend-linux --example getitems_seeds
//! ```
//!
//! It is not a test: the suite only reads the corpus (`getitems_kept_inputs_replay` in
//! `tests/fuzz.rs`; both take `item` and `reply` from `tests/getitems/strategies.rs`, so a seed
//! is a reply its proptests make).

use std::path::Path;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use uidriver_backend_linux::fuzzing::WireItem as Item;

#[path = "../tests/getitems/strategies.rs"]
mod strategies;
use strategies::{item, reply};

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/getitems");
    std::fs::create_dir_all(&dir)?;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for (k, n) in [0usize, 1, 3].into_iter().enumerate() {
        let items: Vec<Item> = (0..n)
            .map(|_| {
                item()
                    .new_tree(&mut runner)
                    .expect("the strategy draws")
                    .current()
            })
            .collect();
        for (little, base) in [(true, 0), (false, 4)] {
            let name = format!("reply-{k}-{}-{base}", if little { "le" } else { "be" });
            std::fs::write(dir.join(&name), reply(&items, little, base))?;
            eprintln!("wrote {}", dir.join(&name).display());
        }
    }
    Ok(())
}
