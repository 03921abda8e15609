//! The entry of the `getitems` fuzz target: arbitrary bytes as the body of a
//! `Cache.GetItems` reply, read by our own decoder (`atspi/cache.rs`) and by zvariant's (the
//! fallback). Hidden from the API; the cargo-fuzz target (`fuzz/fuzz_targets/getitems.rs`),
//! the proptest in `tests/fuzz.rs` and the replay of kept crash inputs all call [`get_items`]
//! (`docs/FUZZING.md`).

use zbus::zvariant::serialized::{Context, Data};
use zbus::zvariant::Endian;

use crate::atspi::cache::{decode, CacheItem, OwnedWireItem};

/// One item of the reply as zvariant types it (`a((so)(so)(so)iiassusau)`), for tests that
/// marshal real replies.
pub type WireItem = OwnedWireItem;

/// Byte 0: bit 0 the byte order (1: little-endian), bits 1–3 the body's offset in its message
/// (alignment counts from the message start). The rest is the body. Panics only when a rule
/// breaks: a decoder panicked, or both decoders accepted the bytes and read different items.
pub fn get_items(data: &[u8]) {
    let Some((&head, body)) = data.split_first() else {
        return;
    };
    let little = head & 1 == 1;
    let base = usize::from((head >> 1) & 7);
    let fast = decode(body, base, little);
    let endian = if little { Endian::Little } else { Endian::Big };
    let slow = Data::new(body, Context::new_dbus(endian, base))
        .deserialize::<Vec<OwnedWireItem>>()
        .ok()
        .map(|(items, _)| items.into_iter().map(CacheItem::from).collect::<Vec<_>>());
    if let (Some(fast), Some(slow)) = (&fast, &slow) {
        let show = |v: &[CacheItem]| format!("{v:?}");
        assert_eq!(show(fast), show(slow), "the two decoders disagree");
    }
}
