//! The AT-SPI2 protocol as uidriver calls it: one module per D-Bus interface, plus the
//! connection (bus discovery, event registration, per-call timeouts) they all go through.
//!
//! These modules only speak the wire protocol and return wire-level values (role numbers, state
//! bitfields, interface names). Turning them into core's vocabulary is `mapping.rs`; deciding
//! what to call and when is `observe.rs` and `roots.rs`.
//!
//! Wire assumptions (at-spi2-core 2.46, at-spi2-atk 2.46, GTK 4.8, Chromium 1xx):
//!
//! | call | wire type | note |
//! |---|---|---|
//! | `Cache.GetItems` | `a((so)(so)(so)iiassusau)` | index/child count may be -1 (GTK3: ~70% of items) |
//! | `Accessible.GetChildren` | `a(so)` | creates accessibles on demand in GTK3 tree views |
//! | `Accessible.GetState` | `au` (2 words) | bit n = `ATSPI_STATE_*` n |
//! | `Component.GetExtents(u)` | `(iiii)` | GTK4 answers window-relative even for screen (0) |
//! | `Text.GetText(ii)` | `s` | offsets in characters; -1 end = to the end |
//! | `Action.GetActions` | `a(sss)` | never sent: kills Gecko apps (at-spi2-atk marshals strings Gecko already freed); names are `NActions` + `GetName(i)` |
//! | `Action.DoAction(i)` | `b` | at-spi2-atk replies before running the action; GTK 4 too |
//! | `EditableText.InsertText(isi)` | `b` | length in UTF-8 bytes (GTK); caret moves past the insert |
//! | `EditableText.SetTextContents(s)` | `b` | GTK 3 leaves the caret at 0 |
//! | `Selection.SelectChild(i)` | `b` | a GTK 3 combo box indexes its menu's items |
//! | `Component.GrabFocus` | `b` | GTK 3 presents (raises) the window; GTK 4.8 fails |
//! | `Application` properties | `ToolkitName`, `Version` | GTK3's `GetAll` fails (`Id` unavailable): read one by one |

pub(crate) mod accessible;
pub(crate) mod action;
pub(crate) mod application;
pub(crate) mod cache;
pub(crate) mod component;
pub(crate) mod connection;
pub(crate) mod editable_text;
pub(crate) mod events;
pub(crate) mod selection;
pub(crate) mod table;
pub(crate) mod text;
pub(crate) mod value;

use std::fmt;

/// Well-known name of the AT-SPI registry on the accessibility bus.
pub(crate) const REGISTRY: &str = "org.a11y.atspi.Registry";
/// Object path of every application's root accessible (and of the registry's desktop).
pub(crate) const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
/// The path AT-SPI uses for "no object".
pub(crate) const NULL_PATH: &str = "/org/a11y/atspi/null";
/// Standard D-Bus properties interface.
pub(crate) const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// One accessible object: the unique bus name of its application and its object path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Obj {
    /// Unique name of the application's connection (`:1.12`).
    pub bus: String,
    /// Object path (`/org/a11y/atspi/accessible/42`).
    pub path: String,
}

impl Obj {
    pub(crate) fn new(bus: impl Into<String>, path: impl Into<String>) -> Self {
        Obj {
            bus: bus.into(),
            path: path.into(),
        }
    }

    /// Whether this is AT-SPI's "no object" reference (empty bus or the null path).
    pub(crate) fn is_null(&self) -> bool {
        self.bus.is_empty() || self.path == NULL_PATH
    }

    /// Parses a node handle `"<bus name>:<object path>"` (the inverse of `Display`).
    ///
    /// Valid: `:1.12:/org/a11y/atspi/accessible/42`. Invalid: `:1.12` (no path),
    /// `/org/a11y/atspi/accessible/42` (no bus), `:1.12:org/x` (path not absolute).
    pub(crate) fn from_handle(handle: &str) -> Option<Obj> {
        // Object paths never contain ':' (D-Bus spec: [A-Za-z0-9_/]), so the last ':' separates.
        let (bus, path) = handle.rsplit_once(':')?;
        if bus.is_empty() || !path.starts_with('/') {
            return None;
        }
        Some(Obj::new(bus, path))
    }
}

impl fmt::Display for Obj {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.bus, self.path)
    }
}

/// The wire form of an object reference, `(so)`.
pub(crate) type WireRef = (String, zbus::zvariant::OwnedObjectPath);

impl From<WireRef> for Obj {
    fn from((bus, path): WireRef) -> Self {
        Obj {
            bus,
            path: path.as_str().to_string(),
        }
    }
}

/// The AT-SPI interfaces an object implements, as a bit set (from `GetInterfaces` or the cache).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ifaces(u32);

macro_rules! ifaces {
    ($($name:ident = $bit:literal, $wire:literal;)+) => {
        // The whole table is kept (acting uses more interfaces than observing).
        #[allow(dead_code)]
        impl Ifaces {
            $(pub(crate) const $name: Ifaces = Ifaces(1 << $bit);)+

            /// Builds the set from interface names; unknown names are ignored.
            pub(crate) fn from_names<S: AsRef<str>>(names: &[S]) -> Ifaces {
                let mut bits = 0;
                for n in names {
                    bits |= match n.as_ref() {
                        $($wire => 1 << $bit,)+
                        _ => 0,
                    };
                }
                Ifaces(bits)
            }
        }
    };
}

ifaces! {
    ACCESSIBLE = 0, "org.a11y.atspi.Accessible";
    ACTION = 1, "org.a11y.atspi.Action";
    APPLICATION = 2, "org.a11y.atspi.Application";
    COLLECTION = 3, "org.a11y.atspi.Collection";
    COMPONENT = 4, "org.a11y.atspi.Component";
    DOCUMENT = 5, "org.a11y.atspi.Document";
    EDITABLE_TEXT = 6, "org.a11y.atspi.EditableText";
    HYPERLINK = 7, "org.a11y.atspi.Hyperlink";
    HYPERTEXT = 8, "org.a11y.atspi.Hypertext";
    IMAGE = 9, "org.a11y.atspi.Image";
    SELECTION = 10, "org.a11y.atspi.Selection";
    TABLE = 11, "org.a11y.atspi.Table";
    TABLE_CELL = 12, "org.a11y.atspi.TableCell";
    TEXT = 13, "org.a11y.atspi.Text";
    VALUE = 14, "org.a11y.atspi.Value";
}

impl Ifaces {
    /// Whether every interface of `other` is present.
    pub(crate) fn has(self, other: Ifaces) -> bool {
        self.0 & other.0 == other.0
    }
}

/// `ATSPI_STATE_*` numbers (at-spi2-core `atspi-constants.h`), the ones uidriver reads.
pub(crate) mod state {
    pub(crate) const ACTIVE: u32 = 1;
    pub(crate) const BUSY: u32 = 3;
    pub(crate) const CHECKED: u32 = 4;
    pub(crate) const COLLAPSED: u32 = 5;
    pub(crate) const DEFUNCT: u32 = 6;
    pub(crate) const EDITABLE: u32 = 7;
    pub(crate) const ENABLED: u32 = 8;
    pub(crate) const EXPANDABLE: u32 = 9;
    pub(crate) const EXPANDED: u32 = 10;
    pub(crate) const FOCUSABLE: u32 = 11;
    pub(crate) const FOCUSED: u32 = 12;
    pub(crate) const HORIZONTAL: u32 = 14;
    pub(crate) const MODAL: u32 = 16;
    pub(crate) const MULTI_LINE: u32 = 17;
    pub(crate) const MULTISELECTABLE: u32 = 18;
    pub(crate) const PRESSED: u32 = 20;
    pub(crate) const SELECTABLE: u32 = 22;
    pub(crate) const SELECTED: u32 = 23;
    pub(crate) const SENSITIVE: u32 = 24;
    pub(crate) const SHOWING: u32 = 25;
    pub(crate) const VERTICAL: u32 = 29;
    pub(crate) const VISIBLE: u32 = 30;
    pub(crate) const MANAGES_DESCENDANTS: u32 = 31;
    pub(crate) const INDETERMINATE: u32 = 32;
    pub(crate) const REQUIRED: u32 = 33;
    pub(crate) const INVALID_ENTRY: u32 = 36;
    pub(crate) const IS_DEFAULT: u32 = 39;
    pub(crate) const VISITED: u32 = 40;
    pub(crate) const CHECKABLE: u32 = 41;
    pub(crate) const READ_ONLY: u32 = 43;
}

/// A state bitfield as sent on the wire (`au`, two 32-bit words).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct States(pub u64);

impl States {
    /// From the wire words (missing words count as zero).
    pub(crate) fn from_words(words: &[u32]) -> States {
        let lo = words.first().copied().unwrap_or(0) as u64;
        let hi = words.get(1).copied().unwrap_or(0) as u64;
        States(lo | (hi << 32))
    }
    /// Whether state number `n` is set.
    pub(crate) fn has(self, n: u32) -> bool {
        n < 64 && self.0 & (1 << n) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_reject_malformed() {
        let o = Obj::new(":1.12", "/org/a11y/atspi/accessible/42");
        assert_eq!(o.to_string(), ":1.12:/org/a11y/atspi/accessible/42");
        assert_eq!(Obj::from_handle(&o.to_string()), Some(o));
        assert_eq!(Obj::from_handle(":1.12"), None);
        assert_eq!(Obj::from_handle("/org/a11y/atspi/accessible/42"), None);
        assert_eq!(Obj::from_handle(":1.12:org/x"), None);
    }

    #[test]
    fn state_words_and_interfaces() {
        // 1124073728 = 0x4300_0000: sensitive (24), showing (25), visible (30).
        let s = States::from_words(&[1_124_073_728, 0]);
        assert!(s.has(state::SHOWING) && s.has(state::SENSITIVE) && s.has(state::VISIBLE));
        assert!(!s.has(state::FOCUSED));
        assert!(States::from_words(&[0, 1 << 11]).has(state::READ_ONLY));
        let i = Ifaces::from_names(&["org.a11y.atspi.Text", "org.a11y.atspi.Value", "x.y"]);
        assert!(i.has(Ifaces::TEXT) && i.has(Ifaces::VALUE) && !i.has(Ifaces::ACTION));
    }
}
