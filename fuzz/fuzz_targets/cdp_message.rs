//! Fuzz target `cdp_message`: text from the browser: a WebSocket frame, the walker's output, a screenshot's base64.
//! The body is `uidriver_backend_cdp::fuzzing::message`, which the crate's `tests/fuzz.rs` also runs (docs/FUZZING.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| uidriver_backend_cdp::fuzzing::message(data));
