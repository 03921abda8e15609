//! Fuzz target `daemon_frames`: one client's bytes on the daemon socket, answered by a real daemon.
//! The body is `uidriver_transports::fuzzing::daemon_frames`, which the crate's `tests/fuzz.rs` also runs (docs/FUZZING.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| uidriver_transports::fuzzing::daemon_frames(data));
