//! `org.a11y.atspi.Text` (per object): text content by character range. Offsets are in
//! characters (Unicode scalar values), never bytes; reading by range keeps a 1 MB document from
//! being copied whole to show its first line.

use zbus::zvariant::OwnedValue;

use super::connection::Caller;
use super::{Obj, PROPERTIES};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Text";

/// Number of characters.
pub(crate) async fn character_count(c: &Caller, o: &Obj) -> Result<i32, LinuxError> {
    let v: OwnedValue = c
        .call(
            &o.bus,
            &o.path,
            PROPERTIES,
            "Get",
            &(IFACE, "CharacterCount"),
        )
        .await?;
    i32::try_from(v).map_err(|e| LinuxError::Dbus(e.into()))
}

/// Characters `start..end` (`end` -1 = to the end).
pub(crate) async fn text(c: &Caller, o: &Obj, start: i32, end: i32) -> Result<String, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GetText", &(start, end))
        .await
}

/// The first `max` characters and the character count. One call for most text: the count is
/// asked only when the page came back full (there may be more) or empty, since a toolkit may
/// answer a range that runs past the end with nothing (Qt 5) rather than with what there is.
pub(crate) async fn head(c: &Caller, o: &Obj, max: i32) -> Result<(i32, String), LinuxError> {
    let t = text(c, o, 0, max).await?;
    let n = t.chars().count() as i32;
    if n > 0 && n < max {
        return Ok((n, t));
    }
    let count = character_count(c, o).await?;
    if n == 0 && count > 0 {
        let again = text(c, o, 0, count.min(max)).await?;
        return Ok((count, again));
    }
    Ok((count, t))
}

/// The caret position in characters (-1 when the object has no caret).
pub(crate) async fn caret_offset(c: &Caller, o: &Obj) -> Result<i32, LinuxError> {
    let v: OwnedValue = c
        .call(&o.bus, &o.path, PROPERTIES, "Get", &(IFACE, "CaretOffset"))
        .await?;
    i32::try_from(v).map_err(|e| LinuxError::Dbus(e.into()))
}

/// The first selected range `(start, end)` in characters, `None` when nothing is selected.
pub(crate) async fn selection(c: &Caller, o: &Obj) -> Result<Option<(i32, i32)>, LinuxError> {
    let n: i32 = c
        .call(&o.bus, &o.path, IFACE, "GetNSelections", &())
        .await?;
    if n <= 0 {
        return Ok(None);
    }
    let (start, end): (i32, i32) = c
        .call(&o.bus, &o.path, IFACE, "GetSelection", &(0i32,))
        .await?;
    Ok((start != end).then_some((start.min(end), start.max(end))))
}

/// The attribute run around `offset`: its non-default attributes (`weight`, `style`,
/// `underline`, ...) and its range `start..end` in characters.
pub(crate) async fn attribute_run(
    c: &Caller,
    o: &Obj,
    offset: i32,
) -> Result<(std::collections::HashMap<String, String>, i32, i32), LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GetAttributeRun", &(offset, false))
        .await
}

/// Moves the caret; whether the toolkit accepted.
pub(crate) async fn set_caret_offset(c: &Caller, o: &Obj, offset: i32) -> Result<bool, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "SetCaretOffset", &(offset,))
        .await
}

/// Selects `start..end` (characters) as the first selection: `SetSelection(0, …)` when there
/// is one, `AddSelection` otherwise; whether the toolkit accepted.
pub(crate) async fn select_range(
    c: &Caller,
    o: &Obj,
    start: i32,
    end: i32,
) -> Result<bool, LinuxError> {
    let n: i32 = c
        .call(&o.bus, &o.path, IFACE, "GetNSelections", &())
        .await?;
    if n > 0 {
        c.call(&o.bus, &o.path, IFACE, "SetSelection", &(0i32, start, end))
            .await
    } else {
        c.call(&o.bus, &o.path, IFACE, "AddSelection", &(start, end))
            .await
    }
}

/// The object embedded at `offset` of `o`'s text (the U+FFFC mark Gecko and Chromium put where
/// a child element sits): `Hypertext.GetLinkIndex`, `GetLink`, then `Hyperlink.GetObject(0)`.
/// `None` when the toolkit does not say.
pub(crate) async fn embedded_at(c: &Caller, o: &Obj, offset: i32) -> Option<Obj> {
    const HYPERTEXT: &str = "org.a11y.atspi.Hypertext";
    const HYPERLINK: &str = "org.a11y.atspi.Hyperlink";
    let link: i32 = c
        .call(&o.bus, &o.path, HYPERTEXT, "GetLinkIndex", &(offset,))
        .await
        .ok()?;
    if link < 0 {
        return None;
    }
    let h: super::WireRef = c
        .call(&o.bus, &o.path, HYPERTEXT, "GetLink", &(link,))
        .await
        .ok()?;
    let h = Obj::from(h);
    if h.is_null() {
        return None;
    }
    let obj: super::WireRef = c
        .call(&h.bus, &h.path, HYPERLINK, "GetObject", &(0i32,))
        .await
        .ok()?;
    let obj = Obj::from(obj);
    (!obj.is_null()).then_some(obj)
}

/// Takes at most `max` characters of `s` (UTF-8 safe).
pub(crate) fn take_chars(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn take_chars_never_splits_a_character() {
        assert_eq!(super::take_chars("héllo", 2), "hé");
        assert_eq!(super::take_chars("日本語", 5), "日本語");
        assert_eq!(super::take_chars("", 3), "");
    }
}
