//! Keyboard and mouse events as `Input.dispatch*Event` wants them: a key chord becomes
//! modifier downs, the key's down/up with DOM `key`, `code`, Windows virtual key code and text
//! (US layout), then modifier ups; a click becomes move, press and release. Deciding where and
//! when to send them is `act.rs`.
//!
//! CDP input goes to the renderer, not to the OS: it moves no pointer and takes no OS focus,
//! which is why browser steps are allowed under the `headless` policy.

use uidriver_core::action::Button;
use uidriver_core::KeyChord;

use crate::protocol::{DispatchKeyEvent, DispatchMouseEvent};

/// Modifier bits of `Input.dispatch*Event`.
const ALT: i32 = 1;
const CTRL: i32 = 2;
const META: i32 = 4;
const SHIFT: i32 = 8;

/// One physical key: DOM key, DOM code, Windows virtual key code, text when typed.
#[derive(Debug, Clone, PartialEq)]
struct Key {
    key: String,
    code: String,
    vk: i32,
    text: Option<String>,
}

fn named(key: &str, code: &str, vk: i32, text: Option<&str>) -> Key {
    Key {
        key: key.into(),
        code: code.into(),
        vk,
        text: text.map(str::to_string),
    }
}

/// US-layout punctuation: (unshifted, shifted, code, vk).
const PUNCT: &[(char, char, &str, i32)] = &[
    ('`', '~', "Backquote", 192),
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
];
const SHIFTED_DIGITS: &str = ")!@#$%^&*(";

/// The key of a chord (`KeyChord::key` is a named key or one character); `shift` says whether
/// Shift is held, which selects the shifted character.
fn key_of(name: &str, shift: bool) -> Key {
    match name {
        "Return" => named("Enter", "Enter", 13, Some("\r")),
        "Tab" => named("Tab", "Tab", 9, None),
        "Escape" => named("Escape", "Escape", 27, None),
        "BackSpace" => named("Backspace", "Backspace", 8, None),
        "Delete" => named("Delete", "Delete", 46, None),
        "Insert" => named("Insert", "Insert", 45, None),
        "Home" => named("Home", "Home", 36, None),
        "End" => named("End", "End", 35, None),
        "Page_Up" => named("PageUp", "PageUp", 33, None),
        "Page_Down" => named("PageDown", "PageDown", 34, None),
        "Left" => named("ArrowLeft", "ArrowLeft", 37, None),
        "Up" => named("ArrowUp", "ArrowUp", 38, None),
        "Right" => named("ArrowRight", "ArrowRight", 39, None),
        "Down" => named("ArrowDown", "ArrowDown", 40, None),
        "space" => named(" ", "Space", 32, Some(" ")),
        "Menu" => named("ContextMenu", "ContextMenu", 93, None),
        "Print" => named("PrintScreen", "PrintScreen", 44, None),
        "Pause" => named("Pause", "Pause", 19, None),
        "plus" => named("+", "Equal", 187, Some("+")),
        "minus" => named("-", "Minus", 189, Some("-")),
        f if f.len() >= 2
            && f.starts_with('F')
            && f[1..].parse::<i32>().is_ok_and(|n| (1..=12).contains(&n)) =>
        {
            let n: i32 = f[1..].parse().unwrap_or(1);
            named(f, f, 111 + n, None)
        }
        other => char_key(other.chars().next().unwrap_or(' '), shift),
    }
}

fn char_key(c: char, shift: bool) -> Key {
    let text = |c: char| Some(c.to_string());
    if c.is_ascii_alphabetic() {
        let upper = c.to_ascii_uppercase();
        let shown = if shift || c.is_ascii_uppercase() {
            upper
        } else {
            c.to_ascii_lowercase()
        };
        return Key {
            key: shown.to_string(),
            code: format!("Key{upper}"),
            vk: upper as i32,
            text: text(shown),
        };
    }
    if let Some(d) = c.to_digit(10) {
        let shown = if shift {
            SHIFTED_DIGITS.chars().nth(d as usize).unwrap_or(c)
        } else {
            c
        };
        return Key {
            key: shown.to_string(),
            code: format!("Digit{d}"),
            vk: 48 + d as i32,
            text: text(shown),
        };
    }
    if c == ' ' {
        return named(" ", "Space", 32, Some(" "));
    }
    for &(plain, shifted, code, vk) in PUNCT {
        if c == plain || c == shifted {
            let shown = if shift { shifted } else { c };
            return Key {
                key: shown.to_string(),
                code: code.into(),
                vk,
                text: text(shown),
            };
        }
    }
    for (i, s) in SHIFTED_DIGITS.chars().enumerate() {
        if c == s {
            return Key {
                key: c.to_string(),
                code: format!("Digit{i}"),
                vk: 48 + i as i32,
                text: text(c),
            };
        }
    }
    // Anything else (ä, €, emoji) has no US key: send it as text with no key code.
    Key {
        key: c.to_string(),
        code: String::new(),
        vk: 0,
        text: text(c),
    }
}

fn modifier_key(bit: i32) -> Key {
    match bit {
        CTRL => named("Control", "ControlLeft", 17, None),
        SHIFT => named("Shift", "ShiftLeft", 16, None),
        ALT => named("Alt", "AltLeft", 18, None),
        _ => named("Meta", "MetaLeft", 91, None),
    }
}

/// The key events of one chord, in order.
pub fn chord_events(chord: &KeyChord) -> Vec<DispatchKeyEvent> {
    let held: Vec<i32> = [
        (chord.ctrl, CTRL),
        (chord.shift, SHIFT),
        (chord.alt, ALT),
        (chord.super_, META),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, b)| *b)
    .collect();
    let all: i32 = held.iter().sum();
    let mut out = Vec::new();
    let mut mods = 0;
    for &b in &held {
        mods |= b;
        let k = modifier_key(b);
        out.push(DispatchKeyEvent {
            kind: "rawKeyDown",
            modifiers: mods,
            key: k.key,
            code: k.code,
            windows_virtual_key_code: k.vk,
            location: Some(1),
            ..Default::default()
        });
    }
    let k = key_of(&chord.key, chord.shift);
    // With Ctrl, Alt or Meta held the key is a shortcut, not text.
    let text = if all & (CTRL | ALT | META) != 0 {
        None
    } else {
        k.text.clone()
    };
    // Chromium on Linux maps Ctrl+A to select-all in editable fields by itself, but not in
    // every context (e.g. with focus in the document body); naming the command makes it sure.
    let commands = if all == CTRL && k.code == "KeyA" {
        vec!["selectAll"]
    } else {
        Vec::new()
    };
    out.push(DispatchKeyEvent {
        kind: if text.is_some() {
            "keyDown"
        } else {
            "rawKeyDown"
        },
        modifiers: all,
        key: k.key.clone(),
        code: k.code.clone(),
        windows_virtual_key_code: k.vk,
        unmodified_text: text.clone(),
        text,
        commands,
        ..Default::default()
    });
    out.push(DispatchKeyEvent {
        kind: "keyUp",
        modifiers: all,
        key: k.key,
        code: k.code,
        windows_virtual_key_code: k.vk,
        ..Default::default()
    });
    for &b in held.iter().rev() {
        mods &= !b;
        let k = modifier_key(b);
        out.push(DispatchKeyEvent {
            kind: "keyUp",
            modifiers: mods,
            key: k.key,
            code: k.code,
            windows_virtual_key_code: k.vk,
            location: Some(1),
            ..Default::default()
        });
    }
    out
}

/// CDP's button name and `buttons` bit.
pub fn button(b: Button) -> (&'static str, i32) {
    match b {
        Button::Left => ("left", 1),
        Button::Right => ("right", 2),
        Button::Middle => ("middle", 4),
    }
}

/// A pointer move to a viewport point (with `buttons` held, for drags).
pub fn mouse_move(x: f64, y: f64, buttons: i32) -> DispatchMouseEvent {
    DispatchMouseEvent {
        kind: "mouseMoved",
        x,
        y,
        button: if buttons != 0 { "left" } else { "none" },
        buttons,
        ..Default::default()
    }
}

/// The press/release pairs of an n-fold click (after a move to the point).
pub fn click_events(x: f64, y: f64, b: Button, count: u8) -> Vec<DispatchMouseEvent> {
    let (name, bit) = button(b);
    let mut out = vec![mouse_move(x, y, 0)];
    for n in 1..=i32::from(count.clamp(1, 3)) {
        for (kind, buttons) in [("mousePressed", bit), ("mouseReleased", 0)] {
            out.push(DispatchMouseEvent {
                kind,
                x,
                y,
                button: name,
                buttons,
                click_count: n,
                ..Default::default()
            });
        }
    }
    out
}

/// A wheel event at a point; one step is 100 CSS pixels.
pub fn wheel(x: f64, y: f64, dx: i32, dy: i32) -> DispatchMouseEvent {
    DispatchMouseEvent {
        kind: "mouseWheel",
        x,
        y,
        button: "none",
        delta_x: Some(f64::from(dx) * 100.0),
        delta_y: Some(f64::from(dy) * 100.0),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chord(s: &str) -> KeyChord {
        KeyChord::parse(s).unwrap()
    }

    #[test]
    fn ctrl_a_is_a_shortcut_with_select_all() {
        let ev = chord_events(&chord("ctrl+a"));
        assert_eq!(ev.len(), 4);
        assert_eq!((ev[0].key.as_str(), ev[0].modifiers), ("Control", CTRL));
        assert_eq!(ev[1].code, "KeyA");
        assert_eq!(ev[1].windows_virtual_key_code, 65);
        assert_eq!(ev[1].text, None);
        assert_eq!(ev[1].commands, vec!["selectAll"]);
        assert_eq!((ev[3].kind, ev[3].modifiers), ("keyUp", 0));
    }

    #[test]
    fn shift_tab_and_return() {
        let ev = chord_events(&chord("shift+Tab"));
        assert_eq!(ev[1].key, "Tab");
        assert_eq!(ev[1].modifiers, SHIFT);
        assert_eq!(ev[1].windows_virtual_key_code, 9);
        let ev = chord_events(&chord("Return"));
        assert_eq!(ev.len(), 2);
        assert_eq!((ev[0].kind, ev[0].key.as_str()), ("keyDown", "Enter"));
        assert_eq!(ev[0].text.as_deref(), Some("\r"));
    }

    #[test]
    fn printable_keys_carry_text() {
        let ev = chord_events(&chord("shift+a"));
        assert_eq!(ev[1].key, "A");
        assert_eq!(ev[1].text.as_deref(), Some("A"));
        let ev = chord_events(&chord("shift+1"));
        assert_eq!(ev[1].key, "!");
        assert_eq!(ev[1].code, "Digit1");
        let ev = chord_events(&chord("ä"));
        assert_eq!(
            (ev[0].windows_virtual_key_code, ev[0].text.as_deref()),
            (0, Some("ä"))
        );
        let ev = chord_events(&chord("F5"));
        assert_eq!(ev[0].windows_virtual_key_code, 116);
    }

    #[test]
    fn double_click_counts_up() {
        let ev = click_events(1.0, 2.0, Button::Left, 2);
        let counts: Vec<i32> = ev.iter().map(|e| e.click_count).collect();
        assert_eq!(counts, vec![0, 1, 1, 2, 2]);
        assert_eq!(ev[1].buttons, 1);
        assert_eq!(ev[2].buttons, 0);
    }
}
