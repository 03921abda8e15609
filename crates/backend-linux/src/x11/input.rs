//! Physical input through XTEST: pointer motion, buttons, wheel, key chords and text.
//!
//! Text is typed by keysym: a character the current keymap has (at level 1 or 2) is typed with
//! its keycode (and Shift); any other character (ä on a US map, €, CJK, emoji) is bound for the
//! moment to a spare keycode (one with no keysyms), typed, and the spare is restored afterwards.
//! X clients re-read the map on MappingNotify, so a short pause follows each remap; a keycode is
//! never rebound while a press on it may still be in flight.
//!
//! Every function here blocks on the X connection; callers run them on the X11 thread. Callers
//! also own the policy (headless), the input lock and the frame checks: this file only sends.

use std::collections::HashMap;
use std::thread::sleep;
use std::time::Duration;

use uidriver_core::action::{Button, KeyChord};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, Keycode, Keysym, Window};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

use crate::error::LinuxError;

const KEY_PRESS: u8 = 2;
const KEY_RELEASE: u8 = 3;
const BUTTON_PRESS: u8 = 4;
const BUTTON_RELEASE: u8 = 5;
const MOTION: u8 = 6;

const SHIFT_L: Keysym = 0xffe1;
const CONTROL_L: Keysym = 0xffe3;
const ALT_L: Keysym = 0xffe9;
const SUPER_L: Keysym = 0xffeb;

/// Pause after rebinding spare keycodes, so clients have processed MappingNotify (xdotool
/// measured the same race; 30 ms was enough for GTK3/GTK4 here).
const REMAP_SETTLE: Duration = Duration::from_millis(30);
/// Pause between a press and its release, and between keys: some toolkits drop events that
/// arrive in the same millisecond.
const KEY_GAP: Duration = Duration::from_millis(2);
/// Pause between the clicks of a double or triple click (well inside GTK's 400 ms).
const CLICK_GAP: Duration = Duration::from_millis(40);

fn x<E: std::fmt::Display>(e: E) -> LinuxError {
    LinuxError::X11(e.to_string())
}

/// The keysym of a named key or a single character.
pub(crate) fn keysym_for(key: &str) -> Option<Keysym> {
    let named = match key {
        "Return" => 0xff0d,
        "Tab" => 0xff09,
        "Escape" => 0xff1b,
        "BackSpace" => 0xff08,
        "Delete" => 0xffff,
        "Insert" => 0xff63,
        "Home" => 0xff50,
        "End" => 0xff57,
        "Page_Up" => 0xff55,
        "Page_Down" => 0xff56,
        "Left" => 0xff51,
        "Up" => 0xff52,
        "Right" => 0xff53,
        "Down" => 0xff54,
        "space" => 0x20,
        "Menu" => 0xff67,
        "Print" => 0xff61,
        "Pause" => 0xff13,
        "plus" => 0x2b,
        "minus" => 0x2d,
        k if k.len() >= 2 && k.starts_with('F') => {
            let n: u32 = k[1..].parse().ok()?;
            if !(1..=12).contains(&n) {
                return None;
            }
            0xffbe + n - 1
        }
        _ => {
            let mut chars = key.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            return Some(char_keysym(c));
        }
    };
    Some(named)
}

/// The keysym of a character: Latin-1 maps directly, everything else through the Unicode
/// keysym range (0x01000000 + code point); newline and tab are Return and Tab.
pub(crate) fn char_keysym(c: char) -> Keysym {
    match c {
        '\n' | '\r' => 0xff0d,
        '\t' => 0xff09,
        c if (' '..='~').contains(&c) || ('\u{a0}'..='\u{ff}').contains(&c) => c as u32,
        c => 0x0100_0000 + c as u32,
    }
}

/// Where a keysym lives in the keymap: keycode and whether Shift is needed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct KeyPos {
    code: Keycode,
    shift: bool,
}

/// The keyboard map, read once per typing job.
pub(crate) struct Keymap {
    min: Keycode,
    per: usize,
    syms: Vec<Keysym>,
    index: HashMap<Keysym, KeyPos>,
}

impl Keymap {
    /// Reads the server's map.
    pub fn read(conn: &RustConnection) -> Result<Keymap, LinuxError> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let reply = conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(x)?
            .reply()
            .map_err(x)?;
        let per = reply.keysyms_per_keycode as usize;
        let mut index = HashMap::new();
        for (i, chunk) in reply.keysyms.chunks(per.max(1)).enumerate() {
            let code = min + i as u8;
            for (level, &sym) in chunk.iter().enumerate().take(2) {
                if sym != 0 {
                    let pos = KeyPos {
                        code,
                        shift: level == 1,
                    };
                    // A key reachable without Shift anywhere beats a shifted one (keypad and
                    // main-row duplicates).
                    let e = index.entry(sym).or_insert(pos);
                    if e.shift && !pos.shift {
                        *e = pos;
                    }
                }
            }
        }
        Ok(Keymap {
            min,
            per,
            syms: reply.keysyms,
            index,
        })
    }

    fn find(&self, sym: Keysym) -> Option<KeyPos> {
        // Letters: the keymap lists lowercase at level 1 and uppercase at level 2.
        self.index.get(&sym).copied()
    }

    /// Keycodes with no keysyms at all: safe to bind for a moment.
    fn spare_codes(&self) -> Vec<Keycode> {
        self.syms
            .chunks(self.per.max(1))
            .enumerate()
            .filter(|(_, c)| c.iter().all(|s| *s == 0))
            .map(|(i, _)| self.min + i as u8)
            .collect()
    }
}

fn fake(
    conn: &RustConnection,
    root: Window,
    kind: u8,
    detail: u8,
    pos: (i16, i16),
) -> Result<(), LinuxError> {
    conn.xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, root, pos.0, pos.1, 0)
        .map_err(x)?;
    Ok(())
}

fn sync(conn: &RustConnection) -> Result<(), LinuxError> {
    conn.get_input_focus().map_err(x)?.reply().map_err(x)?;
    Ok(())
}

/// Moves the pointer.
pub(crate) fn move_to(
    conn: &RustConnection,
    root: Window,
    px: i32,
    py: i32,
) -> Result<(), LinuxError> {
    fake(conn, root, MOTION, 0, (clamp16(px), clamp16(py)))?;
    sync(conn)
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

fn button_code(b: Button) -> u8 {
    match b {
        Button::Left => 1,
        Button::Middle => 2,
        Button::Right => 3,
    }
}

/// Clicks `count` times at a point.
pub(crate) fn click(
    conn: &RustConnection,
    root: Window,
    px: i32,
    py: i32,
    b: Button,
    count: u8,
) -> Result<(), LinuxError> {
    move_to(conn, root, px, py)?;
    let code = button_code(b);
    for i in 0..count {
        if i > 0 {
            sleep(CLICK_GAP);
        }
        fake(conn, root, BUTTON_PRESS, code, (0, 0))?;
        sleep(KEY_GAP);
        fake(conn, root, BUTTON_RELEASE, code, (0, 0))?;
        sync(conn)?;
    }
    Ok(())
}

/// Wheel steps at a point: positive dy scrolls down, positive dx right.
pub(crate) fn scroll(
    conn: &RustConnection,
    root: Window,
    px: i32,
    py: i32,
    dx: i32,
    dy: i32,
) -> Result<(), LinuxError> {
    move_to(conn, root, px, py)?;
    for (amount, neg, pos) in [(dy, 4u8, 5u8), (dx, 6u8, 7u8)] {
        let code = if amount < 0 { neg } else { pos };
        for _ in 0..amount.unsigned_abs() {
            fake(conn, root, BUTTON_PRESS, code, (0, 0))?;
            fake(conn, root, BUTTON_RELEASE, code, (0, 0))?;
            sync(conn)?;
            sleep(Duration::from_millis(8));
        }
    }
    Ok(())
}

/// Press at the first point, move through the others in small steps, release at the last.
pub(crate) fn drag(
    conn: &RustConnection,
    root: Window,
    path: &[(i32, i32)],
    b: Button,
) -> Result<(), LinuxError> {
    let Some(&(sx, sy)) = path.first() else {
        return Ok(());
    };
    let code = button_code(b);
    move_to(conn, root, sx, sy)?;
    fake(conn, root, BUTTON_PRESS, code, (0, 0))?;
    sync(conn)?;
    for (ix, iy) in crate::desk::drag_motion(path) {
        move_to(conn, root, ix, iy)?;
        sleep(Duration::from_millis(4));
    }
    fake(conn, root, BUTTON_RELEASE, code, (0, 0))?;
    sync(conn)
}

/// Where the pointer is now.
pub(crate) fn pointer(conn: &RustConnection, root: Window) -> Result<(i32, i32), LinuxError> {
    let r = conn.query_pointer(root).map_err(x)?.reply().map_err(x)?;
    Ok((r.root_x as i32, r.root_y as i32))
}

/// Presses or releases one keycode.
fn key(conn: &RustConnection, root: Window, code: Keycode, down: bool) -> Result<(), LinuxError> {
    fake(
        conn,
        root,
        if down { KEY_PRESS } else { KEY_RELEASE },
        code,
        (0, 0),
    )
}

fn modifier_codes(
    map: &Keymap,
    chord: &KeyChord,
    extra_shift: bool,
) -> Result<Vec<Keycode>, LinuxError> {
    let mut mods = Vec::new();
    for (on, sym, name) in [
        (chord.ctrl, CONTROL_L, "Control"),
        (chord.shift || extra_shift, SHIFT_L, "Shift"),
        (chord.alt, ALT_L, "Alt"),
        (chord.super_, SUPER_L, "Super"),
    ] {
        if on {
            let pos = map
                .find(sym)
                .ok_or_else(|| LinuxError::X11(format!("the keymap has no {name} key")))?;
            mods.push(pos.code);
        }
    }
    Ok(mods)
}

/// Binds keysyms to spare keycodes; returns the bindings and what to restore.
struct Remap {
    bound: Vec<(Keysym, Keycode)>,
}

impl Remap {
    fn bind(conn: &RustConnection, map: &Keymap, syms: &[Keysym]) -> Result<Remap, LinuxError> {
        let spare = map.spare_codes();
        if syms.len() > spare.len() {
            return Err(LinuxError::X11(format!(
                "{} characters need temporary keys but the keymap has only {} spare keycodes",
                syms.len(),
                spare.len()
            )));
        }
        let per = map.per.max(1) as u8;
        let mut bound = Vec::new();
        for (&sym, &code) in syms.iter().zip(spare.iter()) {
            // Same keysym at both levels so a held Shift cannot change it.
            let mut row = vec![0u32; per as usize];
            row[0] = sym;
            if per > 1 {
                row[1] = sym;
            }
            conn.change_keyboard_mapping(1, code, per, &row)
                .map_err(x)?;
            bound.push((sym, code));
        }
        sync(conn)?;
        sleep(REMAP_SETTLE);
        Ok(Remap { bound })
    }

    fn restore(self, conn: &RustConnection, map: &Keymap) -> Result<(), LinuxError> {
        if self.bound.is_empty() {
            return Ok(());
        }
        // Let the last release be processed with the binding still in place.
        sync(conn)?;
        sleep(REMAP_SETTLE);
        let per = map.per.max(1) as u8;
        for (_, code) in &self.bound {
            conn.change_keyboard_mapping(1, *code, per, &vec![0u32; per as usize])
                .map_err(x)?;
        }
        sync(conn)
    }
}

/// Presses chords in order (e.g. ctrl+s, shift+Tab, F2), binding a spare key for keys the map lacks.
pub(crate) fn press_chords(
    conn: &RustConnection,
    root: Window,
    chords: &[KeyChord],
) -> Result<(), LinuxError> {
    let map = Keymap::read(conn)?;
    let mut missing = Vec::new();
    for c in chords {
        let sym = keysym_for(&c.key)
            .ok_or_else(|| LinuxError::X11(format!("no keysym for key {:?}", c.key)))?;
        if map.find(sym).is_none() && !missing.contains(&sym) {
            missing.push(sym);
        }
    }
    let remap = Remap::bind(conn, &map, &missing)?;
    let result = (|| {
        for c in chords {
            let sym = keysym_for(&c.key).unwrap_or(0);
            let pos = map
                .find(sym)
                .or_else(|| {
                    remap
                        .bound
                        .iter()
                        .find(|(s, _)| *s == sym)
                        .map(|(_, code)| KeyPos {
                            code: *code,
                            shift: false,
                        })
                })
                .ok_or_else(|| LinuxError::X11(format!("no keycode for key {:?}", c.key)))?;
            // A chord names the key, not the shifted character: "ctrl+s" never adds Shift, but a
            // plain uppercase or symbol key ("A", "?") needs the level its keysym is on.
            let needs_shift = pos.shift && !c.ctrl && !c.alt && !c.super_;
            let mods = modifier_codes(&map, c, needs_shift)?;
            for m in &mods {
                key(conn, root, *m, true)?;
            }
            key(conn, root, pos.code, true)?;
            sleep(KEY_GAP);
            key(conn, root, pos.code, false)?;
            for m in mods.iter().rev() {
                key(conn, root, *m, false)?;
            }
            sync(conn)?;
            sleep(KEY_GAP);
        }
        Ok(())
    })();
    let restored = remap.restore(conn, &map);
    result.and(restored)
}

/// Presses (`down`) or releases a chord's key and modifiers, for held keys (`keyDown`/`keyUp`):
/// down presses modifiers then the key; up releases the key then the modifiers. Keys the map
/// lacks cannot be held (a temporary binding would outlive the call).
pub(crate) fn key_event(
    conn: &RustConnection,
    root: Window,
    chord: &KeyChord,
    down: bool,
) -> Result<(), LinuxError> {
    let map = Keymap::read(conn)?;
    let sym = keysym_for(&chord.key)
        .ok_or_else(|| LinuxError::X11(format!("no keysym for key {:?}", chord.key)))?;
    let pos = map.find(sym).ok_or_else(|| {
        LinuxError::InvalidArgs(format!(
            "key {:?} is not on the keyboard map and cannot be held",
            chord.key
        ))
    })?;
    let mods = modifier_codes(&map, chord, false)?;
    if down {
        for m in &mods {
            key(conn, root, *m, true)?;
        }
        key(conn, root, pos.code, true)?;
    } else {
        key(conn, root, pos.code, false)?;
        for m in mods.iter().rev() {
            key(conn, root, *m, false)?;
        }
    }
    sync(conn)
}

/// Types text character by character (newlines as Return), stopping at `stop` (checked
/// between characters, so a deadline cannot be overrun by more than one key); the error then
/// says how much was typed.
pub(crate) fn type_text_until(
    conn: &RustConnection,
    root: Window,
    text: &str,
    stop: Option<std::time::Instant>,
) -> Result<(), LinuxError> {
    let map = Keymap::read(conn)?;
    let spare = map.spare_codes().len().max(1);
    let chars: Vec<char> = text.chars().filter(|c| *c != '\r').collect();
    // Type in runs so each run needs at most `spare` temporary bindings.
    let mut i = 0;
    while i < chars.len() {
        let mut missing: Vec<Keysym> = Vec::new();
        let mut j = i;
        while j < chars.len() {
            let sym = char_keysym(chars[j]);
            if map.find(sym).is_none() && !missing.contains(&sym) {
                if missing.len() == spare {
                    break;
                }
                missing.push(sym);
            }
            j += 1;
        }
        let remap = Remap::bind(conn, &map, &missing)?;
        let run = (|| {
            for (k, &c) in chars[i..j].iter().enumerate() {
                if stop.is_some_and(|t| std::time::Instant::now() >= t) {
                    return Err(LinuxError::Deadline(format!(
                        "typing: {} of {} characters were sent",
                        i + k,
                        chars.len()
                    )));
                }
                let sym = char_keysym(c);
                let pos = map
                    .find(sym)
                    .or_else(|| {
                        remap
                            .bound
                            .iter()
                            .find(|(s, _)| *s == sym)
                            .map(|(_, code)| KeyPos {
                                code: *code,
                                shift: false,
                            })
                    })
                    .ok_or_else(|| LinuxError::X11(format!("no keycode for U+{:04X}", c as u32)))?;
                let shift = if pos.shift { map.find(SHIFT_L) } else { None };
                if let Some(s) = shift {
                    key(conn, root, s.code, true)?;
                }
                key(conn, root, pos.code, true)?;
                sleep(KEY_GAP);
                key(conn, root, pos.code, false)?;
                if let Some(s) = shift {
                    key(conn, root, s.code, false)?;
                }
                sync(conn)?;
                sleep(KEY_GAP);
            }
            Ok(())
        })();
        let restored = remap.restore(conn, &map);
        run.and(restored)?;
        i = j;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keysyms() {
        assert_eq!(keysym_for("Return"), Some(0xff0d));
        assert_eq!(keysym_for("F2"), Some(0xffbf));
        assert_eq!(keysym_for("F12"), Some(0xffc9));
        assert_eq!(keysym_for("F13"), None);
        assert_eq!(keysym_for("a"), Some(0x61));
        assert_eq!(keysym_for("ä"), Some(0xe4));
        assert_eq!(keysym_for("€"), Some(0x0100_20ac));
        assert_eq!(char_keysym('\n'), 0xff0d);
        assert_eq!(keysym_for("ab"), None);
    }
}
