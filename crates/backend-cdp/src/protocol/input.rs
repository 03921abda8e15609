//! The `Input` domain: mouse and key events and text as an IME commits it, delivered to the
//! renderer (built by `input.rs`).

use serde::Serialize;

use super::Empty;

/// `Input.dispatchMouseEvent`.
#[derive(Serialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct DispatchMouseEvent {
    /// `mousePressed`, `mouseReleased`, `mouseMoved`, `mouseWheel`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// CSS pixels of the main frame's viewport.
    pub x: f64,
    /// CSS pixels.
    pub y: f64,
    /// Modifier bits: Alt 1, Ctrl 2, Meta 4, Shift 8.
    pub modifiers: i32,
    /// `none`, `left`, `middle`, `right`.
    pub button: &'static str,
    /// Buttons held (bit 1 left, 2 right, 4 middle).
    pub buttons: i32,
    /// Click count.
    pub click_count: i32,
    /// Wheel delta.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    /// Wheel delta.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}
command!(DispatchMouseEvent, "Input.dispatchMouseEvent", Empty);

/// `Input.dispatchKeyEvent`.
#[derive(Serialize, Default, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DispatchKeyEvent {
    /// `keyDown` (with text), `rawKeyDown` (without), `keyUp`, `char`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Modifier bits: Alt 1, Ctrl 2, Meta 4, Shift 8.
    pub modifiers: i32,
    /// DOM `key`, e.g. `Enter`, `a`, `Control`.
    pub key: String,
    /// DOM `code`, e.g. `Enter`, `KeyA`, `ControlLeft`.
    pub code: String,
    /// Windows virtual key code (Chromium derives keyCode and editing commands from it).
    pub windows_virtual_key_code: i32,
    /// Text inserted by the key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Text without modifiers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodified_text: Option<String>,
    /// 1 for left modifier keys, 2 for right, 3 for the numpad.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<i32>,
    /// Editing commands for the renderer (e.g. `selectAll`) when a chord means one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<&'static str>,
}
command!(DispatchKeyEvent, "Input.dispatchKeyEvent", Empty);

/// `Input.insertText`: text as an IME would commit it (fires `beforeinput`/`input`).
#[derive(Serialize)]
pub struct InsertText<'a> {
    /// Text.
    pub text: &'a str,
}
command!(InsertText<'_>, "Input.insertText", Empty);
