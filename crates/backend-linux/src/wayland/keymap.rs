//! The XKB keymap uidriver's virtual keyboard types with: every keysym it needs on a keycode of
//! its own, so no character needs a level, a group or a dead key to reach.
//!
//! A Wayland virtual keyboard (`zwp_virtual_keyboard_v1`) sends keycodes, and the client reads
//! them through the keymap the keyboard uploaded; there is no server-side map to look keys up in
//! as XTEST has. So, like `wtype`, we write the map ourselves: four fixed modifier keys at their
//! usual evdev places, then one key per keysym in the order they were first needed. The map only
//! grows (a keycode never changes meaning while a press on it may be in flight) until it is full;
//! then everything but the modifiers and held keys is dropped. Keysyms come from
//! `x11::input::keysym_for` / `char_keysym` (numeric X keysyms, written here in hex, which XKB
//! accepts). Sending the map, and when, is `input.rs`'s job.

use std::collections::HashMap;
use std::fmt::Write as _;

/// An X keysym (`x11::input` gives them).
pub(crate) type Keysym = u32;

/// XKB keycode of Shift_L (evdev KEY_LEFTSHIFT 42 + 8).
pub(crate) const SHIFT_CODE: u8 = 50;
/// XKB keycode of Control_L (evdev KEY_LEFTCTRL 29 + 8).
pub(crate) const CONTROL_CODE: u8 = 37;
/// XKB keycode of Alt_L (evdev KEY_LEFTALT 56 + 8).
pub(crate) const ALT_CODE: u8 = 64;
/// XKB keycode of Super_L (evdev KEY_LEFTMETA 125 + 8).
pub(crate) const SUPER_CODE: u8 = 133;

/// Modifier masks of `zwp_virtual_keyboard_v1.modifiers`: the core X modifier bits, which the
/// `modifier_map` lines below tie to the four keys.
pub(crate) const MOD_SHIFT: u32 = 1;
/// Control's mask.
pub(crate) const MOD_CONTROL: u32 = 4;
/// Mod1 (Alt).
pub(crate) const MOD_ALT: u32 = 8;
/// Mod4 (Super).
pub(crate) const MOD_SUPER: u32 = 64;

const FIXED: [(u8, Keysym, &str); 4] = [
    (SHIFT_CODE, 0xffe1, "Shift"),
    (CONTROL_CODE, 0xffe3, "Control"),
    (ALT_CODE, 0xffe9, "Mod1"),
    (SUPER_CODE, 0xffeb, "Mod4"),
];

const MIN_CODE: u8 = 9;
const MAX_CODE: u8 = 255;

/// Tab's shifted level, so shift+Tab reads as toolkits expect from a real keyboard.
const ISO_LEFT_TAB: Keysym = 0xfe20;
const TAB: Keysym = 0xff09;

/// The growing keymap: which keycode each keysym sits on.
#[derive(Clone, Debug)]
pub(crate) struct Keymap {
    /// Keycode → its levels (level 1 first), modifiers included.
    keys: Vec<(u8, Vec<Keysym>)>,
    /// Keysym → keycode, for level-1 keysyms.
    index: HashMap<Keysym, u8>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap::new()
    }
}

impl Keymap {
    /// A map with only the four modifier keys.
    pub(crate) fn new() -> Keymap {
        let mut map = Keymap {
            keys: Vec::new(),
            index: HashMap::new(),
        };
        for (code, sym, _) in FIXED {
            map.keys.push((code, vec![sym]));
            map.index.insert(sym, code);
        }
        map
    }

    /// The keycode that types `sym` without a modifier.
    pub(crate) fn code(&self, sym: Keysym) -> Option<u8> {
        self.index.get(&sym).copied()
    }

    /// How many more keysyms fit.
    pub(crate) fn room(&self) -> usize {
        usize::from(MAX_CODE - MIN_CODE + 1) - self.keys.len()
    }

    /// Adds the keysyms not yet on the map; false when there was no room for all of them (those
    /// that fit were added). Whether anything changed: compare [`Keymap::len`] before and after.
    pub(crate) fn add(&mut self, syms: &[Keysym]) -> bool {
        for &sym in syms {
            if self.index.contains_key(&sym) {
                continue;
            }
            let Some(code) = self.free_code() else {
                return false;
            };
            // A physical keyboard's second level: shift+a gives A, shift+Tab ISO_Left_Tab.
            let levels = match sym {
                0x61..=0x7a => vec![sym, sym - 0x20],
                TAB => vec![TAB, ISO_LEFT_TAB],
                _ => vec![sym],
            };
            self.keys.push((code, levels));
            self.index.insert(sym, code);
        }
        true
    }

    /// Number of keys on the map (modifiers included).
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Drops every key but the modifiers and those in `keep` (keys held down).
    pub(crate) fn reset(&mut self, keep: &[u8]) {
        let fixed: Vec<u8> = FIXED.iter().map(|f| f.0).collect();
        self.keys
            .retain(|(code, _)| fixed.contains(code) || keep.contains(code));
        self.index = self
            .keys
            .iter()
            .filter_map(|(code, levels)| levels.first().map(|s| (*s, *code)))
            .collect();
    }

    fn free_code(&self) -> Option<u8> {
        (MIN_CODE..=MAX_CODE).find(|c| !self.keys.iter().any(|(k, _)| k == c))
    }

    /// The map as XKB text (`xkb_v1`), NUL not included.
    pub(crate) fn to_xkb(&self) -> String {
        let mut keys = self.keys.clone();
        keys.sort_by_key(|k| k.0);
        let mut s = String::with_capacity(256 + keys.len() * 48);
        s.push_str("xkb_keymap {\nxkb_keycodes \"uidriver\" {\n");
        let _ = writeln!(s, "minimum = 8;\nmaximum = {MAX_CODE};");
        for (code, _) in &keys {
            let _ = writeln!(s, "<I{code}> = {code};");
        }
        s.push_str("};\nxkb_types \"uidriver\" { include \"complete\" };\n");
        s.push_str("xkb_compatibility \"uidriver\" { include \"complete\" };\n");
        s.push_str("xkb_symbols \"uidriver\" {\n");
        for (code, levels) in &keys {
            let syms: Vec<String> = levels.iter().map(|l| format!("0x{l:x}")).collect();
            let ty = match levels.len() {
                1 => "ONE_LEVEL",
                _ if levels[0] == TAB => "TWO_LEVEL",
                _ => "ALPHABETIC",
            };
            let _ = writeln!(
                s,
                "key <I{code}> {{ type = \"{ty}\", [ {} ] }};",
                syms.join(", ")
            );
        }
        for (code, _, modifier) in FIXED {
            let _ = writeln!(s, "modifier_map {modifier} {{ <I{code}> }};");
        }
        s.push_str("};\n};\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_keysym_gets_its_own_code_and_the_map_only_grows() {
        let mut m = Keymap::new();
        assert_eq!(m.code(0xffe1), Some(SHIFT_CODE));
        let before = m.len();
        assert!(m.add(&[0x61, 0x48, 0x0100_00e9, 0x61]));
        assert_eq!(m.len(), before + 3);
        let a = m.code(0x61).unwrap();
        assert!(m.add(&[0x62]));
        assert_eq!(m.code(0x61), Some(a), "a key keeps its code");
        let codes: Vec<u8> = [0x61, 0x48, 0x0100_00e9, 0x62]
            .iter()
            .map(|s| m.code(*s).unwrap())
            .collect();
        assert!(codes
            .iter()
            .all(|c| ![SHIFT_CODE, CONTROL_CODE, ALT_CODE, SUPER_CODE].contains(c)));
        let mut sorted = codes.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), 4);
    }

    #[test]
    fn a_full_map_says_so_and_a_reset_keeps_modifiers_and_held_keys() {
        let mut m = Keymap::new();
        let room = m.room();
        let syms: Vec<u32> = (0..room as u32 + 5).map(|i| 0x0100_4e00 + i).collect();
        assert!(!m.add(&syms));
        assert_eq!(m.room(), 0);
        let held = m.code(0x0100_4e00).unwrap();
        m.reset(&[held]);
        assert_eq!(m.len(), 5);
        assert_eq!(m.code(0x0100_4e00), Some(held));
        assert_eq!(m.code(0xffe3), Some(CONTROL_CODE));
        assert_eq!(m.code(0x0100_4e01), None);
    }

    #[test]
    fn the_text_declares_every_key_and_the_modifier_map() {
        let mut m = Keymap::new();
        m.add(&[0x61, 0xff09, 0x20ac]);
        let t = m.to_xkb();
        let a = m.code(0x61).unwrap();
        assert!(t.contains(&format!("<I{a}> = {a};")), "{t}");
        assert!(t.contains(&format!(
            "key <I{a}> {{ type = \"ALPHABETIC\", [ 0x61, 0x41 ] }};"
        )));
        assert!(t.contains("[ 0xff09, 0xfe20 ]"));
        assert!(t.contains("[ 0x20ac ]"));
        assert!(t.contains("modifier_map Mod4 { <I133> };"));
        assert!(t.contains("include \"complete\""));
    }
}
