//! The entry of the `tool_args` fuzz target: arbitrary bytes → a tool and its JSON arguments →
//! the decoding and checks every tool makes before any live work. Hidden from the API; the
//! cargo-fuzz target (`fuzz/fuzz_targets/tool_args.rs`), the proptest in `tests/fuzz.rs` and
//! the replay of kept crash inputs all call [`tool_args`], so they test the same thing
//! (`docs/FUZZING.md`).

use serde_json::Value;
use uidriver_core::ErrorCode;

use crate::tools::{check_args, TOOLS};

/// Longest error message a refusal may carry, in characters: errors never echo long input
/// back (a 100 kB text, a huge key name), so a caller's data cannot flood the model's context.
pub const MAX_MESSAGE_CHARS: usize = 600;

/// Byte 0 picks the tool (one value past the registry: an unknown tool name); the rest, when
/// it is JSON, is the arguments. Panics only when a check breaks a rule: decoding panicked, a
/// refusal is not `invalid_args`, or its message echoes too much.
pub fn tool_args(data: &[u8]) {
    let Some((&pick, json)) = data.split_first() else {
        return;
    };
    let tool = TOOLS
        .get(pick as usize % (TOOLS.len() + 1))
        .map_or("no_such_tool", |t| t.name.as_str());
    let Ok(args) = serde_json::from_slice::<Value>(json) else {
        return;
    };
    if let Err(e) = check_args(tool, args) {
        assert_eq!(e.code, ErrorCode::InvalidArgs, "{tool}: {e:?}");
        assert!(
            e.message.chars().count() <= MAX_MESSAGE_CHARS,
            "{tool}: a {}-character message echoes the input",
            e.message.chars().count()
        );
    }
}
