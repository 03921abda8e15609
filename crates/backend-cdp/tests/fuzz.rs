//! The `cdp_message` fuzz target as a test (docs/FUZZING.md): the same body
//! (`uidriver_backend_cdp::fuzzing::message`) on proptest's inputs — arbitrary text, and
//! walker outputs and replies with rows whose parents, frames and numbers are random — and on
//! every kept input (`fuzz/corpus/cdp_message/`, crash inputs in
//! `fuzz/regressions/cdp_message/`).

use proptest::prelude::*;
use serde_json::{json, Value};
use uidriver_backend_cdp::fuzzing::message;
use uidriver_core::testing::replay_kept_inputs;

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-2000.0f64..2000.0).prop_map(Value::from),
        Just(json!(1e300)),
        Just(json!(-1e300)),
        Just(json!(0)),
    ]
}

/// One walker row: [id, parent, role, tag, name, value, states, caps, x, y, w, h, domId,
/// textLen, description, numeric].
fn row() -> impl Strategy<Value = Value> {
    (
        (-3i64..40, "[a-z]{0,8}", any::<u32>(), any::<u32>()),
        (number(), number(), number(), number()),
        (
            any::<u64>(),
            proptest::option::of(proptest::collection::vec(proptest::option::of(number()), 4)),
        ),
    )
        .prop_map(
            |((parent, role, states, caps), (x, y, w, h), (len, numeric))| {
                json!([
                    "7", parent, role, "div", "n", null, states, caps, x, y, w, h, "", len, "",
                    numeric
                ])
            },
        )
}

fn walk() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(row(), 0..40),
        proptest::collection::vec((0usize..45, prop_oneof![Just("cross-origin frame"), Just("cap")]), 0..6),
    )
        .prop_map(|(nodes, trunc)| {
            json!({"nonce": "n", "vp": [800, 600, 0, 0, 1, 0, 0, 800, 600], "nodes": nodes, "trunc": trunc})
                .to_string()
        })
}

fn with_mode(mode: u8, text: &str) -> Vec<u8> {
    let mut data = vec![mode];
    data.extend_from_slice(text.as_bytes());
    data
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn cdp_message_never_panics_on_arbitrary_bytes(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        message(&data);
    }

    #[test]
    fn cdp_message_never_panics_on_arbitrary_text(mode in 0u8..3, text in any::<String>()) {
        message(&with_mode(mode, &text));
    }

    /// Walker outputs with random parents and frames, alone and inside an evaluation reply.
    #[test]
    fn cdp_walks_with_random_rows_build_well_formed_pages(w in walk(), id in 0u64..5) {
        message(&with_mode(1, &w));
        let reply = json!({"id": id, "result": {"result": {"type": "string", "value": w}}});
        message(&with_mode(0, &reply.to_string()));
    }
}

/// Every seed and every input that once crashed the fuzz target still passes.
#[test]
fn cdp_message_kept_inputs_replay() {
    let n = replay_kept_inputs(env!("CARGO_MANIFEST_DIR"), "cdp_message", message);
    assert!(n > 0, "no seeds found");
}
