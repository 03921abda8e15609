//! Fuzz target `getitems`: the body of an AT-SPI Cache.GetItems reply, read by both decoders.
//! The body is `uidriver_backend_linux::fuzzing::get_items`, which the crate's `tests/fuzz.rs` also runs (docs/FUZZING.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| uidriver_backend_linux::fuzzing::get_items(data));
