//! The `getitems` fuzz target as a test (docs/FUZZING.md): the same body
//! (`uidriver_backend_linux::fuzzing::get_items`) on proptest's inputs — arbitrary bytes, and
//! real replies (items zvariant marshals, then damaged) — and on every kept input
//! (`fuzz/corpus/getitems/`, crash inputs in `fuzz/regressions/getitems/`). The seeds are
//! written by `examples/getitems_seeds.rs` with copies of this file's `item` and `reply`.

use proptest::prelude::*;
use uidriver_backend_linux::fuzzing::{get_items, WireItem as Item};
use uidriver_core::testing::replay_kept_inputs;
use zbus::zvariant::serialized::Context;
use zbus::zvariant::{Endian, ObjectPath, OwnedObjectPath};

fn wire_ref() -> impl Strategy<Value = (String, OwnedObjectPath)> {
    (":1\\.[0-9]{1,3}", "(/[a-z0-9_]{1,8}){1,4}").prop_map(|(bus, path)| {
        let path = ObjectPath::try_from(path).expect("a valid path by construction");
        (bus, OwnedObjectPath::from(path))
    })
}

fn item() -> impl Strategy<Value = Item> {
    (
        (wire_ref(), wire_ref(), wire_ref()),
        (any::<i32>(), any::<i32>()),
        proptest::collection::vec("org\\.a11y\\.atspi\\.[A-Za-z]{1,12}", 0..5),
        (any::<String>(), any::<u32>(), any::<String>()),
        proptest::collection::vec(any::<u32>(), 0..3),
    )
        .prop_map(|((o, a, p), (i, c), ifaces, (n, r, d), s)| (o, a, p, i, c, ifaces, n, r, d, s))
}

/// A reply body as an app sends it: byte 0 is the target's header (byte order, offset).
fn reply(items: &[Item], little: bool, base: usize) -> Vec<u8> {
    let endian = if little { Endian::Little } else { Endian::Big };
    let body = zbus::zvariant::to_bytes(Context::new_dbus(endian, base), &items.to_vec())
        .expect("zvariant encodes what it typed");
    let mut data = vec![u8::from(little) | (base as u8) << 1];
    data.extend_from_slice(body.bytes());
    data
}

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
