//! Physical input on wlroots compositors: pointer motion, buttons, wheel, key chords and text,
//! through one long-lived `zwlr_virtual_pointer_v1` and one `zwp_virtual_keyboard_v1`.
//!
//! The same operations as `x11/input.rs`, with the same arguments but the connection. The
//! pointer moves absolutely over the compositor's layout (the bounding box of the outputs), so
//! coordinates are uidriver's screen coordinates. The keyboard types through a keymap we write
//! (`keymap.rs`): every keysym on a key of its own, so any character (é, €, CJK, emoji) types the
//! same way; a keysym not yet on the map is added and the whole map uploaded before the keys that
//! need it. Modifiers are sent both as key events (apps that watch the Alt key see it) and as the
//! `modifiers` request (wlroots does not derive a virtual keyboard's modifier state from its
//! keys).
//!
//! Every function here blocks on the connection; callers run them on the Wayland thread. Callers
//! also own the policy (headless), the input lock and the frame checks: this file only sends.

use std::fs::File;
use std::io::Write as _;
use std::os::fd::AsFd as _;
use std::thread::sleep;
use std::time::{Duration, Instant};

use uidriver_core::action::{Button, KeyChord};
use wayland_client::protocol::wl_pointer::{Axis, AxisSource, ButtonState};

use super::connection::{missing, Keyboard, WlConn};
use super::keymap::{
    Keymap, Keysym, ALT_CODE, CONTROL_CODE, MOD_ALT, MOD_CONTROL, MOD_SHIFT, MOD_SUPER, SHIFT_CODE,
    SUPER_CODE,
};
use crate::error::LinuxError;
use crate::x11::input::{char_keysym, keysym_for};

/// Pause between a press and its release, and between keys (as on X11: some toolkits drop
/// events that arrive in the same millisecond).
const KEY_GAP: Duration = Duration::from_millis(2);
/// Pause between the clicks of a double or triple click (well inside GTK's 400 ms).
const CLICK_GAP: Duration = Duration::from_millis(40);
/// Pause after a new keyboard's warm-up key: sway dropped the first key of a new virtual
/// keyboard under `wtype` (WAYLAND-FACTS.md; `wtype -s 150` was the workaround). Here the keymap
/// is followed by a roundtrip before any key, and 6 of 6 runs of the live typing test without
/// the warm-up lost nothing; it stays, costing 150 ms once per connection, as cheap insurance.
const KEYBOARD_WARMUP: Duration = Duration::from_millis(150);
/// Pause after uploading a grown keymap, before keys that need it. The compositor forwards the
/// keymap to the focused client ahead of the keys on the same socket, so ordering alone should
/// suffice; the live test types characters that each need a new upload with this pause.
const KEYMAP_SETTLE: Duration = Duration::from_millis(0);
/// `zwp_virtual_keyboard_v1.keymap` format: `WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1`.
const XKB_V1: u32 = 1;
/// Linux evdev codes of the buttons (`linux/input-event-codes.h`).
const BTN_LEFT: u32 = 0x110;
const BTN_RIGHT: u32 = 0x111;
const BTN_MIDDLE: u32 = 0x112;
/// One wheel detent in `wl_pointer.axis` units (libinput reports 15 degrees per click).
const WHEEL_STEP: f64 = 15.0;

/// Moves the pointer to a point in screen (layout) coordinates.
pub(crate) fn move_to(w: &mut WlConn, px: i32, py: i32) -> Result<(), LinuxError> {
    let p = w.pointer()?;
    let layout = w.layout().ok_or_else(|| {
        LinuxError::Wayland("the compositor announced no output with a mode".into())
    })?;
    // motion_absolute maps x / x_extent onto the layout's bounding box (wlroots'
    // wlr_cursor_warp_absolute), so the extent is the box and x is relative to its corner.
    let x = (px - layout.x).clamp(0, layout.width - 1) as u32;
    let y = (py - layout.y).clamp(0, layout.height - 1) as u32;
    p.motion_absolute(w.now_ms(), x, y, layout.width as u32, layout.height as u32);
    p.frame();
    w.sync()
}

fn button_code(b: Button) -> u32 {
    match b {
        Button::Left => BTN_LEFT,
        Button::Middle => BTN_MIDDLE,
        Button::Right => BTN_RIGHT,
    }
}

fn button(w: &mut WlConn, code: u32, down: bool) -> Result<(), LinuxError> {
    let p = w.pointer()?;
    let state = if down {
        ButtonState::Pressed
    } else {
        ButtonState::Released
    };
    p.button(w.now_ms(), code, state);
    p.frame();
    Ok(())
}

/// Clicks `count` times at a point.
pub(crate) fn click(
    w: &mut WlConn,
    px: i32,
    py: i32,
    b: Button,
    count: u8,
) -> Result<(), LinuxError> {
    move_to(w, px, py)?;
    let code = button_code(b);
    for i in 0..count {
        if i > 0 {
            sleep(CLICK_GAP);
        }
        button(w, code, true)?;
        w.sync()?;
        sleep(KEY_GAP);
        button(w, code, false)?;
        w.sync()?;
    }
    Ok(())
}

/// Wheel steps at a point: positive dy scrolls down, positive dx right.
pub(crate) fn scroll(w: &mut WlConn, px: i32, py: i32, dx: i32, dy: i32) -> Result<(), LinuxError> {
    move_to(w, px, py)?;
    let p = w.pointer()?;
    for (amount, axis) in [(dy, Axis::VerticalScroll), (dx, Axis::HorizontalScroll)] {
        let sign = amount.signum();
        for _ in 0..amount.unsigned_abs() {
            p.axis_source(AxisSource::Wheel);
            p.axis_discrete(w.now_ms(), axis, WHEEL_STEP * f64::from(sign), sign);
            p.frame();
            w.sync()?;
            sleep(Duration::from_millis(8));
        }
    }
    Ok(())
}

/// Press at the first point, move through the others in small steps, release at the last.
pub(crate) fn drag(w: &mut WlConn, path: &[(i32, i32)], b: Button) -> Result<(), LinuxError> {
    let Some(&(sx, sy)) = path.first() else {
        return Ok(());
    };
    let code = button_code(b);
    move_to(w, sx, sy)?;
    button(w, code, true)?;
    w.sync()?;
    for (ix, iy) in crate::desk::drag_motion(path) {
        move_to(w, ix, iy)?;
        sleep(Duration::from_millis(4));
    }
    button(w, code, false)?;
    w.sync()
}

/// The virtual keyboard, created on first use: a keymap first (wlroots refuses keys before
/// one), then a harmless Shift press and release, which sway drops instead of the first real
/// key.
fn keyboard(w: &mut WlConn) -> Result<&mut Keyboard, LinuxError> {
    if w.keyboard.is_none() {
        let manager = w
            .keyboard_manager
            .as_ref()
            .ok_or_else(|| missing("keyboard input", "zwp_virtual_keyboard_manager_v1"))?;
        let seat = w
            .seat
            .as_ref()
            .ok_or_else(|| missing("keyboard input", "wl_seat"))?;
        let device = manager.create_virtual_keyboard(seat, w.qh(), ());
        let map = Keymap::new();
        upload(&device, &map)?;
        let evdev = u32::from(SHIFT_CODE) - 8;
        device.key(w.now_ms(), evdev, 1);
        device.key(w.now_ms(), evdev, 0);
        w.sync()?;
        sleep(KEYBOARD_WARMUP);
        tracing::debug!("virtual keyboard created");
        w.keyboard = Some(Keyboard {
            device,
            map,
            held: Vec::new(),
            held_mods: 0,
        });
    }
    w.keyboard
        .as_mut()
        .ok_or_else(|| LinuxError::Wayland("the virtual keyboard vanished".into()))
}

/// Creates the virtual keyboard now if there is none. Until a seat has a keyboard, no client
/// gets the keyboard focus (a headless compositor has no real one), so toolkits report no
/// focused widget and a window that is "focused" takes no keys: activation makes sure of it.
pub(crate) fn ensure_keyboard(w: &mut WlConn) -> Result<(), LinuxError> {
    keyboard(w).map(|_| ())
}

/// Sends `map` as the keyboard's keymap, through a memfd (the protocol passes an fd and a size;
/// wlroots reads it as a NUL-terminated string).
fn upload(
    device: &wayland_protocols_misc::zwp_virtual_keyboard_v1::client::zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
    map: &Keymap,
) -> Result<(), LinuxError> {
    let mut text = map.to_xkb().into_bytes();
    text.push(0);
    let fd = rustix::fs::memfd_create("uidriver-keymap", rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| LinuxError::Wayland(format!("memfd_create: {e}")))?;
    let mut file = File::from(fd);
    file.write_all(&text)
        .map_err(|e| LinuxError::Wayland(format!("writing the keymap: {e}")))?;
    device.keymap(XKB_V1, file.as_fd(), text.len() as u32);
    Ok(())
}

/// Puts `syms` on the keyboard's map (uploading it when it grew). When the map is full, it is
/// reset to the modifiers and held keys first; more distinct keys than a map holds at once is an
/// error.
fn ensure(w: &mut WlConn, syms: &[Keysym]) -> Result<(), LinuxError> {
    let kb = keyboard(w)?;
    let before = kb.map.len();
    if !kb.map.add(syms) {
        let held = kb.held.clone();
        kb.map.reset(&held);
        if !kb.map.add(syms) {
            return Err(LinuxError::InvalidArgs(format!(
                "{} distinct keys in one call; at most {} fit a keymap",
                syms.len(),
                Keymap::new().room()
            )));
        }
    } else if kb.map.len() == before {
        return Ok(());
    }
    upload(&kb.device, &kb.map)?;
    // Clients start a fresh XKB state (no modifiers) with a new keymap, but wlroots keeps its
    // last modifiers and forwards only changes: modifiers held by `key_event` are cleared and
    // set again so they reach the client (measured: shift held across an upload was lost, and
    // re-sending the same mask alone did not bring it back).
    if kb.held_mods != 0 {
        kb.device.modifiers(0, 0, 0, 0);
        kb.device.modifiers(kb.held_mods, 0, 0, 0);
    }
    w.sync()?;
    sleep(KEYMAP_SETTLE);
    Ok(())
}

/// Presses or releases one key (by XKB keycode).
fn key(w: &WlConn, kb: &Keyboard, code: u8, down: bool) {
    kb.device
        .key(w.now_ms(), u32::from(code) - 8, u32::from(down));
}

/// The modifier keys and mask of a chord (`extra_shift` adds Shift).
fn chord_mods(chord: &KeyChord) -> (Vec<u8>, u32) {
    let mut codes = Vec::new();
    let mut mask = 0;
    for (on, code, bit) in [
        (chord.ctrl, CONTROL_CODE, MOD_CONTROL),
        (chord.shift, SHIFT_CODE, MOD_SHIFT),
        (chord.alt, ALT_CODE, MOD_ALT),
        (chord.super_, SUPER_CODE, MOD_SUPER),
    ] {
        if on {
            codes.push(code);
            mask |= bit;
        }
    }
    (codes, mask)
}

fn sym_of(chord: &KeyChord) -> Result<Keysym, LinuxError> {
    keysym_for(&chord.key)
        .ok_or_else(|| LinuxError::InvalidArgs(format!("no keysym for key {:?}", chord.key)))
}

/// Taps `code` with the modifiers `mods` (keycodes, mask) held, on top of those `key_event`
/// holds.
fn tap(w: &mut WlConn, code: u8, mods: &(Vec<u8>, u32)) -> Result<(), LinuxError> {
    let kb = w
        .keyboard
        .as_ref()
        .ok_or_else(|| LinuxError::Wayland("no virtual keyboard".into()))?;
    let base = kb.held_mods;
    for m in &mods.0 {
        key(w, kb, *m, true);
    }
    if mods.1 != 0 {
        kb.device.modifiers(base | mods.1, 0, 0, 0);
    }
    key(w, kb, code, true);
    w.sync()?;
    sleep(KEY_GAP);
    let kb = w
        .keyboard
        .as_ref()
        .ok_or_else(|| LinuxError::Wayland("no virtual keyboard".into()))?;
    key(w, kb, code, false);
    for m in mods.0.iter().rev() {
        key(w, kb, *m, false);
    }
    if mods.1 != 0 {
        kb.device.modifiers(base, 0, 0, 0);
    }
    w.sync()?;
    sleep(KEY_GAP);
    Ok(())
}

fn code_of(w: &WlConn, sym: Keysym, what: &str) -> Result<u8, LinuxError> {
    w.keyboard
        .as_ref()
        .and_then(|k| k.map.code(sym))
        .ok_or_else(|| LinuxError::Wayland(format!("no keycode for {what}")))
}

/// Presses chords in order (e.g. ctrl+s, shift+Tab, F2).
pub(crate) fn press_chords(w: &mut WlConn, chords: &[KeyChord]) -> Result<(), LinuxError> {
    let mut syms = Vec::with_capacity(chords.len());
    for c in chords {
        let s = sym_of(c)?;
        if !syms.contains(&s) {
            syms.push(s);
        }
    }
    ensure(w, &syms)?;
    for c in chords {
        let code = code_of(w, sym_of(c)?, &format!("key {:?}", c.key))?;
        tap(w, code, &chord_mods(c))?;
    }
    Ok(())
}

/// Presses (`down`) or releases a chord's key and modifiers, for held keys (`keyDown`/`keyUp`):
/// down presses modifiers then the key; up releases the key then the modifiers. A held key and
/// held modifiers stay on the map and in every later modifiers request until released.
pub(crate) fn key_event(w: &mut WlConn, chord: &KeyChord, down: bool) -> Result<(), LinuxError> {
    let sym = sym_of(chord)?;
    ensure(w, &[sym])?;
    let code = code_of(w, sym, &format!("key {:?}", chord.key))?;
    let (mods, mask) = chord_mods(chord);
    let now = w.now_ms();
    let kb = keyboard(w)?;
    let evdev = |c: u8| u32::from(c) - 8;
    if down {
        for m in &mods {
            kb.device.key(now, evdev(*m), 1);
        }
        kb.held_mods |= mask;
        kb.device.modifiers(kb.held_mods, 0, 0, 0);
        kb.device.key(now, evdev(code), 1);
        if !kb.held.contains(&code) {
            kb.held.push(code);
        }
    } else {
        kb.device.key(now, evdev(code), 0);
        kb.held.retain(|c| *c != code);
        for m in mods.iter().rev() {
            kb.device.key(now, evdev(*m), 0);
        }
        kb.held_mods &= !mask;
        kb.device.modifiers(kb.held_mods, 0, 0, 0);
    }
    w.sync()
}

/// Types text character by character (newlines as Return).
pub(crate) fn type_text(w: &mut WlConn, text: &str) -> Result<(), LinuxError> {
    type_text_until(w, text, None)
}

/// [`type_text`] that stops at `stop` (checked between characters, so a deadline cannot be
/// overrun by more than one key); the error then says how much was typed.
pub(crate) fn type_text_until(
    w: &mut WlConn,
    text: &str,
    stop: Option<Instant>,
) -> Result<(), LinuxError> {
    let chars: Vec<char> = text.chars().filter(|c| *c != '\r').collect();
    keyboard(w)?;
    let mut i = 0;
    while i < chars.len() {
        // The longest run from `i` whose new keysyms fit the room left on the map.
        let room = w.keyboard.as_ref().map_or(0, |k| k.map.room());
        let mut missing: Vec<Keysym> = Vec::new();
        let mut j = i;
        while j < chars.len() {
            let sym = char_keysym(chars[j]);
            let known = w.keyboard.as_ref().and_then(|k| k.map.code(sym)).is_some();
            if !known && !missing.contains(&sym) {
                if missing.len() == room {
                    break;
                }
                missing.push(sym);
            }
            j += 1;
        }
        if j == i {
            // The map is full: `ensure` resets it for the next character.
            ensure(w, &[char_keysym(chars[i])])?;
            continue;
        }
        ensure(w, &missing)?;
        for (k, &c) in chars[i..j].iter().enumerate() {
            if stop.is_some_and(|t| Instant::now() >= t) {
                return Err(LinuxError::Deadline(format!(
                    "typing: {} of {} characters were sent",
                    i + k,
                    chars.len()
                )));
            }
            let code = code_of(w, char_keysym(c), &format!("U+{:04X}", c as u32))?;
            tap(w, code, &(Vec::new(), 0))?;
        }
        i = j;
    }
    Ok(())
}
