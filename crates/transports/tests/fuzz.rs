//! The `daemon_frames` fuzz target as a test (docs/FUZZING.md): the same body
//! (`uidriver_transports::fuzzing::daemon_frames`, a real daemon on a real socket) on
//! proptest's inputs — arbitrary bytes, and streams of request lines mixing good requests,
//! unknown ops, broken JSON and blank lines — and on every kept input
//! (`fuzz/corpus/daemon_frames/`, crash inputs in `fuzz/regressions/daemon_frames/`).

use proptest::prelude::*;
use serde_json::json;
use uidriver_core::testing::replay_kept_inputs;
use uidriver_transports::fuzzing::daemon_frames;

fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        any::<u64>().prop_map(|id| json!({"id": id, "op": "ping"}).to_string().into_bytes()),
        (any::<u64>(), "[a-z_]{0,12}", any::<String>()).prop_map(|(id, tool, text)| {
            json!({"id": id, "tool": tool, "args": {"text": text}})
                .to_string()
                .into_bytes()
        }),
        (any::<u64>(), "[a-z]{0,8}")
            .prop_map(|(id, op)| json!({"id": id, "op": op}).to_string().into_bytes()),
        Just(json!({"id": 1, "op": "shutdown"}).to_string().into_bytes()),
        proptest::collection::vec(any::<u8>(), 0..64).prop_map(|mut b| {
            b.retain(|&c| c != b'\n');
            b
        }),
        Just(Vec::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn daemon_frames_never_panic_on_arbitrary_bytes(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        daemon_frames(&data);
    }

    #[test]
    fn daemon_answers_every_line_of_mixed_streams(lines in proptest::collection::vec(line(), 0..12), end in any::<bool>()) {
        let mut data = lines.join(&b'\n');
        if end {
            data.push(b'\n');
        }
        daemon_frames(&data);
    }
}

/// Every seed and every input that once crashed the fuzz target still passes.
#[test]
fn daemon_frames_kept_inputs_replay() {
    let n = replay_kept_inputs(env!("CARGO_MANIFEST_DIR"), "daemon_frames", daemon_frames);
    assert!(n > 0, "no seeds found");
}
