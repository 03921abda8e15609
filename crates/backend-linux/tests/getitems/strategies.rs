//! Real `GetItems` replies for the `getitems` fuzz target: items drawn by proptest and marshalled
//! by zvariant as an app sends them. Shared by `tests/fuzz.rs` (its proptests) and
//! `examples/getitems_seeds.rs` (the seed corpus), so a seed is a reply the proptests make.

use proptest::prelude::*;
use uidriver_backend_linux::fuzzing::WireItem as Item;
use zbus::zvariant::serialized::Context;
use zbus::zvariant::{Endian, ObjectPath, OwnedObjectPath};

fn wire_ref() -> impl Strategy<Value = (String, OwnedObjectPath)> {
    (":1\\.[0-9]{1,3}", "(/[a-z0-9_]{1,8}){1,4}").prop_map(|(bus, path)| {
        let path = ObjectPath::try_from(path).expect("a valid path by construction");
        (bus, OwnedObjectPath::from(path))
    })
}

pub fn item() -> impl Strategy<Value = Item> {
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
pub fn reply(items: &[Item], little: bool, base: usize) -> Vec<u8> {
    let endian = if little { Endian::Little } else { Endian::Big };
    let body = zbus::zvariant::to_bytes(Context::new_dbus(endian, base), &items.to_vec())
        .expect("zvariant encodes what it typed");
    let mut data = vec![u8::from(little) | (base as u8) << 1];
    data.extend_from_slice(body.bytes());
    data
}
