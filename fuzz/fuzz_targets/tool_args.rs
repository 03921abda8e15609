//! Fuzz target `tool_args`: a tool's JSON arguments, decoded and checked as before any live work.
//! The body is `uidriver_service::fuzzing::tool_args`, which the crate's `tests/fuzz.rs` also runs (docs/FUZZING.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| uidriver_service::fuzzing::tool_args(data));
