//! The `tool_args` fuzz target as a test (docs/FUZZING.md): the same body
//! (`uidriver_service::fuzzing::tool_args`) on proptest's inputs — arbitrary bytes, and JSON
//! built from the tools' own field names so it reaches past the first unknown field — and on
//! every kept input (`fuzz/corpus/tool_args/`, crash inputs in `fuzz/regressions/tool_args/`).

use proptest::prelude::*;
use serde_json::{Map, Value};
use uidriver_core::testing::replay_kept_inputs;
use uidriver_service::fuzzing::tool_args;

/// Field names and words of the tools' arguments, so generated objects are mostly known keys.
const WORDS: &[&str] = &[
    "stateId",
    "actions",
    "action",
    "ref",
    "text",
    "x",
    "y",
    "button",
    "count",
    "keys",
    "scrollX",
    "scrollY",
    "value",
    "path",
    "ms",
    "expect",
    "gone",
    "timeoutMs",
    "headless",
    "root",
    "mode",
    "limit",
    "role",
    "capability",
    "offset",
    "length",
    "url",
    "expression",
    "frameId",
    "ocr",
    "kind",
    "app",
    "pid",
    "scopeRef",
    "@e1",
    "@e0",
    "s1",
    "@r1",
    "f1",
    "ctrl+s",
    "left",
    "fused",
    "visual",
    "window",
    "button",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(WORDS).prop_map(str::to_string),
        2 => proptest::sample::select(uidriver_core::ActionKind::ALL).prop_map(|k| k.as_str().to_string()),
        1 => any::<String>(),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((word(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn tool_args_never_panic_on_generated_json(tool in 0u8..15, args in json()) {
        let mut data = vec![tool];
        data.extend(serde_json::to_vec(&args).unwrap());
        tool_args(&data);
    }

    #[test]
    fn tool_args_never_panic_on_arbitrary_bytes(data in proptest::collection::vec(any::<u8>(), 0..256)) {
        tool_args(&data);
    }
}

/// Every seed and every input that once crashed the fuzz target still passes.
#[test]
fn tool_args_kept_inputs_replay() {
    let n = replay_kept_inputs(env!("CARGO_MANIFEST_DIR"), "tool_args", tool_args);
    assert!(n > 0, "no seeds found");
}
