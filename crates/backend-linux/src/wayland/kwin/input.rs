//! Input on KWin through `org_kde_kwin_fake_input` (version 4): absolute pointer motion in
//! global (layout) coordinates, buttons, wheel steps, and keys by Linux evdev code.
//!
//! Unlike a wlroots virtual keyboard, fake input uploads no keymap: KWin reads each evdev code
//! through its own layout (a sandbox's private home has no `kxkbrc`, so KWin's default `us`).
//! So characters are mapped here to the key and Shift level of a US layout ([`us_key`]); a
//! character that layout cannot type is refused before anything is sent, naming it, rather
//! than sending a key that would type something else. Modifiers are plain key events: KWin
//! derives the modifier state from them. Measured on KWin 5.27 (WAYLAND-FACTS.md): no key is
//! lost, the first included, so there is no warm-up.
//!
//! Every function blocks on the connection; callers run them on the Wayland thread.

use std::thread::sleep;
use std::time::{Duration, Instant};

use uidriver_core::action::{Button, KeyChord};
use wayland_client::Proxy as _;
use wayland_protocols_plasma::fake_input::client::org_kde_kwin_fake_input::OrgKdeKwinFakeInput;

use super::super::connection::{missing, WlConn};
use crate::error::LinuxError;
use crate::x11::input::{char_keysym, keysym_for};

/// Pause between a press and its release, and between keys (as on X11 and sway).
const KEY_GAP: Duration = Duration::from_millis(2);
/// Pause between the clicks of a double or triple click (well inside GTK's 400 ms).
const CLICK_GAP: Duration = Duration::from_millis(40);
/// Linux evdev codes (`linux/input-event-codes.h`).
const BTN_LEFT: u32 = 0x110;
const BTN_RIGHT: u32 = 0x111;
const BTN_MIDDLE: u32 = 0x112;
const KEY_LEFTCTRL: u32 = 29;
const KEY_LEFTSHIFT: u32 = 42;
const KEY_LEFTALT: u32 = 56;
const KEY_LEFTMETA: u32 = 125;
/// One wheel detent in `wl_pointer.axis` units (libinput reports 15 degrees per click).
const WHEEL_STEP: f64 = 15.0;
/// The first version with `pointer_motion_absolute` and `keyboard_key`.
const ABSOLUTE_SINCE: u32 = 3;
const KEYS_SINCE: u32 = 4;

/// The fake input device, authenticated once per connection (KWin grants it when started with
/// `KWIN_WAYLAND_NO_PERMISSION_CHECKS=1`, as the sandbox does; a real session may ask the user
/// or refuse, and then nothing arrives).
fn device(w: &mut WlConn, what: &str, since: u32) -> Result<OrgKdeKwinFakeInput, LinuxError> {
    let Some((dev, authenticated)) = w.fake_input.as_mut() else {
        return Err(missing(what, "org_kde_kwin_fake_input"));
    };
    if dev.version() < since {
        return Err(LinuxError::Unsupported {
            what: what.into(),
            reason: format!(
                "the compositor offers org_kde_kwin_fake_input version {}, {what} needs {since}",
                dev.version()
            ),
        });
    }
    if !*authenticated {
        dev.authenticate("uidriver".into(), "drive desktop apps for an agent".into());
        *authenticated = true;
    }
    Ok(dev.clone())
}

/// Moves the pointer to a point in screen (layout) coordinates.
pub(crate) fn move_to(w: &mut WlConn, px: i32, py: i32) -> Result<(), LinuxError> {
    let d = device(w, "pointer input", ABSOLUTE_SINCE)?;
    let layout = w.layout().ok_or_else(|| {
        LinuxError::Wayland("the compositor announced no output with a mode".into())
    })?;
    let x = px.clamp(layout.x, layout.x + layout.width - 1);
    let y = py.clamp(layout.y, layout.y + layout.height - 1);
    d.pointer_motion_absolute(f64::from(x), f64::from(y));
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
    let d = device(w, "pointer input", ABSOLUTE_SINCE)?;
    d.button(code, u32::from(down));
    w.sync()
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
        sleep(KEY_GAP);
        button(w, code, false)?;
    }
    Ok(())
}

/// Wheel steps at a point: positive dy scrolls down, positive dx right.
pub(crate) fn scroll(w: &mut WlConn, px: i32, py: i32, dx: i32, dy: i32) -> Result<(), LinuxError> {
    move_to(w, px, py)?;
    let d = device(w, "pointer input", ABSOLUTE_SINCE)?;
    // `axis`: 0 vertical, 1 horizontal (wl_pointer's axis enum).
    for (amount, axis) in [(dy, 0), (dx, 1)] {
        for _ in 0..amount.unsigned_abs() {
            d.axis(axis, WHEEL_STEP * f64::from(amount.signum()));
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
    for (ix, iy) in crate::desk::drag_motion(path) {
        move_to(w, ix, iy)?;
        sleep(Duration::from_millis(4));
    }
    button(w, code, false)
}

/// Where an X keysym sits on a US keyboard: its evdev code and whether Shift is needed.
pub(crate) fn us_key(sym: u32) -> Option<(u32, bool)> {
    const LETTERS: &[u32; 26] = &[
        30, 48, 46, 32, 18, 33, 34, 35, 23, 36, 37, 38, 50, 49, 24, 25, 16, 19, 31, 20, 22, 47, 17,
        45, 21, 44,
    ];
    // Unshifted and shifted characters of the number row and punctuation keys.
    const KEYS: &[(u32, char, char)] = &[
        (2, '1', '!'),
        (3, '2', '@'),
        (4, '3', '#'),
        (5, '4', '$'),
        (6, '5', '%'),
        (7, '6', '^'),
        (8, '7', '&'),
        (9, '8', '*'),
        (10, '9', '('),
        (11, '0', ')'),
        (12, '-', '_'),
        (13, '=', '+'),
        (26, '[', '{'),
        (27, ']', '}'),
        (39, ';', ':'),
        (40, '\'', '"'),
        (41, '`', '~'),
        (43, '\\', '|'),
        (51, ',', '<'),
        (52, '.', '>'),
        (53, '/', '?'),
    ];
    Some(match sym {
        0x61..=0x7a => (LETTERS[(sym - 0x61) as usize], false),
        0x41..=0x5a => (LETTERS[(sym - 0x41) as usize], true),
        0x20 => (57, false),
        0xff0d => (28, false),
        0xff8d => (96, false),
        0xff09 => (15, false),
        0xfe20 => (15, true),
        0xff08 => (14, false),
        0xff1b => (1, false),
        0xffff => (111, false),
        0xff63 => (110, false),
        0xff50 => (102, false),
        0xff57 => (107, false),
        0xff55 => (104, false),
        0xff56 => (109, false),
        0xff51 => (105, false),
        0xff52 => (103, false),
        0xff53 => (106, false),
        0xff54 => (108, false),
        0xff67 => (127, false),
        0xff61 => (99, false),
        0xff13 => (119, false),
        0xffe5 => (58, false),
        0xffe1 => (KEY_LEFTSHIFT, false),
        0xffe2 => (54, false),
        0xffe3 => (KEY_LEFTCTRL, false),
        0xffe4 => (97, false),
        0xffe9 => (KEY_LEFTALT, false),
        0xffea => (100, false),
        0xffeb => (KEY_LEFTMETA, false),
        0xffec => (126, false),
        // F1–F10 are evdev 59–68; F11 and F12 are 87 and 88.
        0xffbe..=0xffc7 => (59 + sym - 0xffbe, false),
        0xffc8 => (87, false),
        0xffc9 => (88, false),
        _ => {
            let c = char::from_u32(sym)?;
            return KEYS.iter().find_map(|&(code, plain, shifted)| {
                (c == plain)
                    .then_some((code, false))
                    .or((c == shifted).then_some((code, true)))
            });
        }
    })
}

fn not_on_layout(what: String) -> LinuxError {
    LinuxError::InvalidArgs(format!(
        "{what} cannot be typed on KWin: its fake input sends keys of a US layout, which has no \
         key for it (use setText, or the clipboard, for such text)"
    ))
}

/// The evdev codes of a chord: modifiers (in press order) and the key.
fn chord_codes(chord: &KeyChord) -> Result<(Vec<u32>, u32), LinuxError> {
    let sym = keysym_for(&chord.key)
        .ok_or_else(|| LinuxError::InvalidArgs(format!("no keysym for key {:?}", chord.key)))?;
    let (code, shift) = us_key(sym).ok_or_else(|| not_on_layout(format!("key {:?}", chord.key)))?;
    let mut mods = Vec::new();
    for (on, m) in [
        (chord.ctrl, KEY_LEFTCTRL),
        (chord.shift || shift, KEY_LEFTSHIFT),
        (chord.alt, KEY_LEFTALT),
        (chord.super_, KEY_LEFTMETA),
    ] {
        if on {
            mods.push(m);
        }
    }
    Ok((mods, code))
}

/// Presses `code` with `mods` held, then releases all in reverse.
fn tap(w: &mut WlConn, mods: &[u32], code: u32) -> Result<(), LinuxError> {
    let d = device(w, "keyboard input", KEYS_SINCE)?;
    for m in mods {
        d.keyboard_key(*m, 1);
    }
    d.keyboard_key(code, 1);
    w.sync()?;
    sleep(KEY_GAP);
    d.keyboard_key(code, 0);
    for m in mods.iter().rev() {
        d.keyboard_key(*m, 0);
    }
    w.sync()?;
    sleep(KEY_GAP);
    Ok(())
}

/// Presses chords in order (e.g. ctrl+s, shift+Tab, F2). Every chord is checked before the
/// first is sent.
pub(crate) fn press_chords(w: &mut WlConn, chords: &[KeyChord]) -> Result<(), LinuxError> {
    let codes = chords
        .iter()
        .map(chord_codes)
        .collect::<Result<Vec<_>, _>>()?;
    for (mods, code) in codes {
        tap(w, &mods, code)?;
    }
    Ok(())
}

/// Presses (`down`) or releases a chord's key and modifiers, for held keys.
pub(crate) fn key_event(w: &mut WlConn, chord: &KeyChord, down: bool) -> Result<(), LinuxError> {
    let (mods, code) = chord_codes(chord)?;
    let d = device(w, "keyboard input", KEYS_SINCE)?;
    if down {
        for m in &mods {
            d.keyboard_key(*m, 1);
        }
        d.keyboard_key(code, 1);
    } else {
        d.keyboard_key(code, 0);
        for m in mods.iter().rev() {
            d.keyboard_key(*m, 0);
        }
    }
    w.sync()
}

/// Types text key by key (newlines as Return), stopping at `stop` (checked between
/// characters); every character is checked against the layout before the first is sent.
pub(crate) fn type_text_until(
    w: &mut WlConn,
    text: &str,
    stop: Option<Instant>,
) -> Result<(), LinuxError> {
    let keys = text
        .chars()
        .filter(|c| *c != '\r')
        .map(|c| {
            us_key(char_keysym(c))
                .ok_or_else(|| not_on_layout(format!("the character {:?} (U+{:04X})", c, c as u32)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (code, shift)) in keys.iter().enumerate() {
        if stop.is_some_and(|t| Instant::now() >= t) {
            return Err(LinuxError::Deadline(format!(
                "typing: {i} of {} characters were sent",
                keys.len()
            )));
        }
        let mods: &[u32] = if *shift { &[KEY_LEFTSHIFT] } else { &[] };
        tap(w, mods, *code)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_us_layout_types_ascii_with_shift_where_needed_and_nothing_else() {
        assert_eq!(us_key('a' as u32), Some((30, false)));
        assert_eq!(us_key('Q' as u32), Some((16, true)));
        assert_eq!(us_key('0' as u32), Some((11, false)));
        assert_eq!(us_key('?' as u32), Some((53, true)));
        assert_eq!(us_key('"' as u32), Some((40, true)));
        assert_eq!(us_key(char_keysym('\n')), Some((28, false)));
        assert_eq!(us_key(keysym_for("F12").unwrap()), Some((88, false)));
        assert_eq!(us_key(keysym_for("F3").unwrap()), Some((61, false)));
        assert_eq!(us_key(keysym_for("Page_Down").unwrap()), Some((109, false)));
        for c in ' '..='~' {
            assert!(us_key(char_keysym(c)).is_some(), "{c:?}");
        }
        assert_eq!(us_key(char_keysym('é')), None);
        assert_eq!(us_key(char_keysym('€')), None);
    }

    #[test]
    fn a_chord_adds_shift_for_shifted_characters() {
        let chord = |key: &str, ctrl: bool| KeyChord {
            ctrl,
            shift: false,
            alt: false,
            super_: false,
            key: key.into(),
        };
        assert_eq!(
            chord_codes(&chord("s", true)).unwrap(),
            (vec![KEY_LEFTCTRL], 31)
        );
        assert_eq!(
            chord_codes(&chord("plus", false)).unwrap(),
            (vec![KEY_LEFTSHIFT], 13)
        );
        let e = chord_codes(&chord("é", false)).unwrap_err().to_string();
        assert!(e.contains("US layout"), "{e}");
    }
}
