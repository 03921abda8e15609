//! `org.a11y.atspi.EditableText` (per object): replacing and inserting text without keyboard
//! input, so it works on a window in the background and under the headless policy.
//!
//! Offsets are characters; the `length` of `InsertText` is passed as the text's UTF-8 byte
//! length, which is what GTK (`gtk_editable_insert_text`) counts, and never less than what a
//! toolkit counting characters needs.

use super::connection::Caller;
use super::Obj;
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.EditableText";

/// Replaces the whole text; whether the toolkit accepted.
pub(crate) async fn set_text_contents(c: &Caller, o: &Obj, text: &str) -> Result<bool, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "SetTextContents", &(text,))
        .await
}

/// Inserts `text` at character `position`; whether the toolkit accepted.
pub(crate) async fn insert_text(
    c: &Caller,
    o: &Obj,
    position: i32,
    text: &str,
) -> Result<bool, LinuxError> {
    let len = i32::try_from(text.len()).unwrap_or(i32::MAX);
    c.call(&o.bus, &o.path, IFACE, "InsertText", &(position, text, len))
        .await
}

/// Deletes characters `start..end`; whether the toolkit accepted.
pub(crate) async fn delete_text(
    c: &Caller,
    o: &Obj,
    start: i32,
    end: i32,
) -> Result<bool, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "DeleteText", &(start, end))
        .await
}
