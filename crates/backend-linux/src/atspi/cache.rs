//! `org.a11y.atspi.Cache.GetItems` (fixed path `/org/a11y/atspi/cache` on the app's bus name):
//! the app's whole cached tree in one call.
//!
//! Measured here: 0.2–11 ms for 9–562 items, against 1–140 ms for a libatspi walk. What the
//! cache leaves out (children of `MANAGES_DESCENDANTS` containers, Qt, parts of GTK4 and
//! Chromium) is found by `observe.rs`, which checks every cached item against its child count
//! and the live child list. GTK3's bridge only answers after some client registered an event
//! listener (`events.rs`).

use std::time::Duration;

use super::connection::Caller;
use super::{Ifaces, Obj, States, WireRef};
use crate::error::LinuxError;

/// Fixed object path of the cache.
pub(crate) const CACHE_PATH: &str = "/org/a11y/atspi/cache";
const IFACE: &str = "org.a11y.atspi.Cache";

/// One cached object.
#[derive(Clone, Debug)]
pub(crate) struct CacheItem {
    pub obj: Obj,
    pub parent: Option<Obj>,
    /// Index in the parent, -1 when the toolkit did not say.
    pub index: i32,
    /// Number of children, -1 when the toolkit did not say.
    pub child_count: i32,
    pub ifaces: Ifaces,
    pub name: String,
    pub role: u32,
    pub description: String,
    pub states: States,
}

/// The reply's signature: object, application, parent, index, child count, interfaces, name,
/// role, description, states.
const ITEMS_SIGNATURE: &str = "a((so)(so)(so)iiassusau)";

/// Fetches the app's cached tree.
///
/// The reply is on the critical path of every look, and zvariant's general decoder took 0.4–0.55
/// ms for gtk3-widget-factory's 250 items (a tenth of a look), so this one fixed signature is
/// read straight from the bytes ([`decode`]: 0.13 ms for 252 items); zvariant reads anything
/// `decode` does not accept.
pub(crate) async fn get_items(
    c: &Caller,
    bus: &str,
    timeout: Duration,
) -> Result<Vec<CacheItem>, LinuxError> {
    let msg = c
        .message_within(timeout, bus, CACHE_PATH, IFACE, "GetItems", &())
        .await?;
    let body = msg.body();
    let data = body.data();
    let ctx = data.context();
    let fast = (body.signature().to_string() == ITEMS_SIGNATURE)
        .then(|| {
            decode(
                data.bytes(),
                ctx.position(),
                ctx.endian() == zbus::zvariant::Endian::Little,
            )
        })
        .flatten();
    let items = match fast {
        Some(items) => items,
        None => {
            let items: Vec<OwnedWireItem> = body.deserialize()?;
            items.into_iter().map(CacheItem::from).collect()
        }
    };
    Ok(without_defunct(items))
}

/// The items without the defunct ones (objects the toolkit has shut down) and what hangs below
/// them. The bridge keeps an object in its cache until the toolkit says it was removed, and
/// Gecko shuts a page's document down when it navigates without saying so to its frame first:
/// the cache still files the old document (`defunct`, no longer enabled) under the frame, with
/// the frame's child count agreeing, so every look trusted it and kept showing the old page
/// until the new one was announced (an `expect` after a form POST in Firefox failed on
/// `~ document [disabled]`). Without them, the parent's cached children no longer agree with its
/// count (or with the live list), so `observe.rs` reads its children live: the current document.
/// A rule for every toolkit: a defunct object is never current.
pub(crate) fn without_defunct(items: Vec<CacheItem>) -> Vec<CacheItem> {
    if !items.iter().any(|i| i.states.has(super::state::DEFUNCT)) {
        return items;
    }
    let mut gone: std::collections::HashSet<(String, String)> = items
        .iter()
        .filter(|i| i.states.has(super::state::DEFUNCT))
        .map(|i| (i.obj.bus.clone(), i.obj.path.clone()))
        .collect();
    // Descendants of a defunct object go with it (parents may come after their children).
    loop {
        let before = gone.len();
        for i in &items {
            if let Some(p) = &i.parent {
                if gone.contains(&(p.bus.clone(), p.path.clone())) {
                    gone.insert((i.obj.bus.clone(), i.obj.path.clone()));
                }
            }
        }
        if gone.len() == before {
            break;
        }
    }
    items
        .into_iter()
        .filter(|i| !gone.contains(&(i.obj.bus.clone(), i.obj.path.clone())))
        .collect()
}

/// `a((so)(so)(so)iiassusau)` as zvariant reads it.
pub(crate) type OwnedWireItem = (
    WireRef,
    WireRef,
    WireRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

impl From<OwnedWireItem> for CacheItem {
    fn from(
        (obj, _app, parent, index, child_count, ifaces, name, role, description, states): OwnedWireItem,
    ) -> Self {
        let parent = Obj::from(parent);
        CacheItem {
            obj: Obj::from(obj),
            parent: (!parent.is_null()).then_some(parent),
            index,
            child_count,
            ifaces: Ifaces::from_names(&ifaces),
            name,
            role,
            description,
            states: States::from_words(&states),
        }
    }
}

/// Reads the D-Bus marshalling of `a((so)(so)(so)iiassusau)` from `bytes`, which start at
/// offset `base` of their message (alignment counts from the message start). `None` on
/// anything unexpected, never a panic (fuzzed: the `getitems` target, `docs/FUZZING.md`).
pub(crate) fn decode(bytes: &[u8], base: usize, little: bool) -> Option<Vec<CacheItem>> {
    let mut r = Wire {
        bytes,
        pos: 0,
        base,
        little,
    };
    let len = r.u32()? as usize;
    r.align(8)?;
    let end = r.pos.checked_add(len)?;
    if end > bytes.len() {
        return None;
    }
    let mut out = Vec::with_capacity(len / 128);
    while r.pos < end {
        r.align(8)?;
        let obj = r.obj()?;
        r.obj()?; // the application
        let parent = r.obj()?;
        let index = r.u32()? as i32;
        let child_count = r.u32()? as i32;
        let mut ifaces = Ifaces::default();
        let n = r.u32()? as usize;
        let stop = r.pos.checked_add(n)?;
        while r.pos < stop {
            ifaces.0 |= Ifaces::from_names(&[r.str()?]).0;
        }
        if r.pos != stop {
            return None;
        }
        let name = r.str()?.to_string();
        let role = r.u32()?;
        let description = r.str()?.to_string();
        let n = r.u32()? as usize;
        let stop = r.pos.checked_add(n)?;
        let mut words = Vec::with_capacity(2);
        while r.pos < stop {
            words.push(r.u32()?);
        }
        if r.pos != stop {
            return None;
        }
        out.push(CacheItem {
            obj,
            parent: (!parent.is_null()).then_some(parent),
            index,
            child_count,
            ifaces,
            name,
            role,
            description,
            states: States::from_words(&words),
        });
    }
    (r.pos == end).then_some(out)
}

/// A cursor over marshalled bytes.
struct Wire<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: usize,
    little: bool,
}

impl<'a> Wire<'a> {
    fn align(&mut self, n: usize) -> Option<()> {
        let at = self.base + self.pos;
        self.pos += (n - at % n) % n;
        (self.pos <= self.bytes.len()).then_some(())
    }

    fn u32(&mut self) -> Option<u32> {
        self.align(4)?;
        let b: [u8; 4] = self.bytes.get(self.pos..self.pos + 4)?.try_into().ok()?;
        self.pos += 4;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    /// A string or object path: length, bytes, NUL.
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        let s = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        if self.bytes.get(self.pos + n) != Some(&0) {
            return None;
        }
        self.pos += n + 1;
        std::str::from_utf8(s).ok()
    }

    /// `(so)`.
    fn obj(&mut self) -> Option<Obj> {
        self.align(8)?;
        let bus = self.str()?;
        let path = self.str()?;
        Some(Obj::new(bus, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zbus::zvariant::serialized::Context;
    use zbus::zvariant::{Endian, ObjectPath, OwnedObjectPath};

    fn item(path: &str, parent: &str, states: u64) -> CacheItem {
        CacheItem {
            obj: Obj {
                bus: ":1.9".into(),
                path: path.into(),
            },
            parent: Some(Obj {
                bus: ":1.9".into(),
                path: parent.into(),
            }),
            index: 0,
            child_count: 1,
            ifaces: Ifaces::default(),
            name: String::new(),
            role: 0,
            description: String::new(),
            states: States(states),
        }
    }

    #[test]
    fn defunct_items_and_what_hangs_below_them_are_dropped() {
        let defunct = 1u64 << crate::atspi::state::DEFUNCT;
        let items = vec![
            item("/p", "/frame", 0),
            item("/frame", "/root", 0),
            item("/old-doc", "/frame", defunct),
            item("/new-doc", "/frame", 0),
        ];
        let mut items = items;
        items.insert(0, item("/old-para", "/old-doc", 0));
        let kept: Vec<String> = without_defunct(items)
            .into_iter()
            .map(|i| i.obj.path)
            .collect();
        assert_eq!(kept, ["/p", "/frame", "/new-doc"]);
    }

    fn wire(bus: &str, path: &str) -> WireRef {
        (
            bus.to_string(),
            OwnedObjectPath::from(ObjectPath::try_from(path.to_string()).unwrap()),
        )
    }

    fn sample() -> Vec<OwnedWireItem> {
        vec![
            (
                wire(":1.5", "/org/a11y/atspi/accessible/root"),
                wire(":1.5", "/org/a11y/atspi/accessible/root"),
                wire("", "/org/a11y/atspi/null"),
                -1,
                2,
                vec![
                    "org.a11y.atspi.Accessible".into(),
                    "org.a11y.atspi.Application".into(),
                ],
                "gtk3-widget-factory".into(),
                75,
                String::new(),
                vec![0, 0],
            ),
            (
                wire(":1.5", "/org/a11y/atspi/accessible/7"),
                wire(":1.5", "/org/a11y/atspi/accessible/root"),
                wire(":1.5", "/org/a11y/atspi/accessible/root"),
                0,
                0,
                vec![
                    "org.a11y.atspi.Accessible".into(),
                    "org.a11y.atspi.Action".into(),
                    "org.a11y.atspi.Component".into(),
                    "org.a11y.atspi.Text".into(),
                ],
                "Grüße ✓".into(),
                43,
                "a button".into(),
                vec![1 << 30 | 1 << 8, 1],
            ),
            (
                wire(":1.5", "/org/a11y/atspi/accessible/8"),
                wire(":1.5", "/org/a11y/atspi/accessible/root"),
                wire(":1.5", "/org/a11y/atspi/accessible/root"),
                1,
                -1,
                vec![],
                String::new(),
                29,
                String::new(),
                vec![],
            ),
        ]
    }

    fn same(a: &CacheItem, b: &CacheItem) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn decode_reads_what_zvariant_writes_in_both_byte_orders() {
        let items = sample();
        let want: Vec<CacheItem> = items.iter().cloned().map(CacheItem::from).collect();
        for endian in [Endian::Little, Endian::Big] {
            // Bodies start 8-aligned in a message; 16 checks that alignment counts from there.
            for base in [0usize, 16] {
                let data = zbus::zvariant::to_bytes(Context::new_dbus(endian, base), &items)
                    .expect("encode");
                let got = decode(data.bytes(), base, endian == Endian::Little).expect("decoded");
                assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    assert!(same(g, w), "{g:?} != {w:?}");
                }
            }
        }
        let empty: Vec<OwnedWireItem> = Vec::new();
        let data = zbus::zvariant::to_bytes(Context::new_dbus(Endian::Little, 0), &empty).unwrap();
        assert_eq!(decode(data.bytes(), 0, true).map(|v| v.len()), Some(0));
    }

    #[test]
    fn decode_refuses_damaged_bytes_without_panicking() {
        let data = zbus::zvariant::to_bytes(Context::new_dbus(Endian::Little, 0), &sample())
            .expect("encode");
        let bytes = data.bytes();
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], 0, true).is_none(), "cut at {cut}");
        }
        let mut bad = bytes.to_vec();
        // A string length pointing past the end.
        bad[8] = 0xff;
        assert!(decode(&bad, 0, true).is_none());
        assert_eq!(
            ITEMS_SIGNATURE,
            <Vec<OwnedWireItem> as zbus::zvariant::Type>::SIGNATURE.to_string()
        );
    }
}
