//! The `getitems` fuzz target as a test (docs/FUZZING.md): the same body
//! (`uidriver_backend_linux::fuzzing::get_items`) on proptest's inputs — arbitrary bytes, and
//! real replies (items zvariant marshals, then damaged) — and on every kept input
//! (`fuzz/corpus/getitems/`, crash inputs in `fuzz/regressions/getitems/`). The seeds are
//! written by `examples/getitems_seeds.rs` from the same `item` and `reply` (`getitems/strategies.rs`).

use proptest::prelude::*;
use uidriver_backend_linux::fuzzing::get_items;
use uidriver_core::testing::replay_kept_inputs;

#[path = "getitems/strategies.rs"]
mod strategies;
use strategies::{item, reply};

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn getitems_decode_never_panics_on_arbitrary_bytes(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        get_items(&data);
    }

    /// Both decoders read real replies alike (asserted inside), and damaged ones without a panic.
    #[test]
    fn getitems_decoders_agree_on_real_and_damaged_replies(
        items in proptest::collection::vec(item(), 0..4),
        little in any::<bool>(),
        base in 0usize..8,
        damage in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        let mut data = reply(&items, little, base);
        get_items(&data);
        for (at, byte) in damage {
            let i = 1 + at.index(data.len() - 1).min(data.len() - 2);
            data[i] = byte;
            get_items(&data);
        }
    }
}

/// Every seed and every input that once crashed the fuzz target still passes.
#[test]
fn getitems_kept_inputs_replay() {
    let n = replay_kept_inputs(env!("CARGO_MANIFEST_DIR"), "getitems", get_items);
    assert!(n > 0, "no seeds found");
}
