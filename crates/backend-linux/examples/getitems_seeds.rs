//! Writes the `getitems` fuzz target's seed corpus, `fuzz/corpus/getitems/`: real `GetItems`
//! reply bodies of a few shapes (0, 1 and 3 items; little endian at offset 0, big endian at
//! offset 4) that zvariant marshals from items proptest draws with a fixed seed, so a run writes
//! the same bytes again. Run it by hand when the reply's shape changes, and keep the files:
//!
//! ```text
//! cargo run -p uidriver-backend-linux --example getitems_seeds
//! ```
//!
//! It is not a test: the suite only reads the corpus (`getitems_kept_inputs_replay` in
//! `tests/fuzz.rs`, whose `item` and `reply` these copy, so a seed is a reply its proptests make).

use std::path::Path;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use uidriver_backend_linux::fuzzing::WireItem as Item;
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

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/getitems");
    std::fs::create_dir_all(&dir)?;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for (k, n) in [0usize, 1, 3].into_iter().enumerate() {
        let items: Vec<Item> = (0..n)
            .map(|_| {
                item()
                    .new_tree(&mut runner)
                    .expect("the strategy draws")
                    .current()
            })
            .collect();
        for (little, base) in [(true, 0), (false, 4)] {
            let name = format!("reply-{k}-{}-{base}", if little { "le" } else { "be" });
            std::fs::write(dir.join(&name), reply(&items, little, base))?;
            eprintln!("wrote {}", dir.join(&name).display());
        }
    }
    Ok(())
}
