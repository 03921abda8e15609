//! `setText` and `typeText` with a ref, through `EditableText`: replace the whole text, or
//! insert at the caret, replacing the selection when there is one, as typing would (never the
//! whole field), each read back. Passwords are read back by
//! length only. Without `EditableText`, `typeText` types on the keyboard (`keyboard.rs`). When
//! the toolkit changes nothing (refused, or answered yes and left the text: Gecko's form
//! fields), both type on the keyboard instead over what they were to replace, once, and only
//! while the field still holds what it held (`type_instead`).

use uidriver_core::{DeliveryMethod, VerificationMethod};
use uidriver_core::{ElementRef, Error, ErrorCode, StepReport};

use super::verify::{QUIET, SETTLE};
use super::{record_answer, Ctx, Element, Live};
use crate::atspi::{editable_text, state as st, text, Ifaces, Obj};
use crate::error::LinuxError;

/// Adds `more` to the verification's detail.
fn append_detail(r: &mut StepReport, more: &str) {
    let d = r.verification.detail.get_or_insert_with(String::new);
    if !d.is_empty() {
        d.push_str("; ");
    }
    d.push_str(more);
}

fn is_password(el: &Element<'_>) -> bool {
    el.node.is_secret()
}

fn editable(l: &Live) -> bool {
    l.ifaces.has(Ifaces::EDITABLE_TEXT)
        && l.ifaces.has(Ifaces::TEXT)
        && !l.reading.states.has(st::READ_ONLY)
        && (l.reading.states.has(st::EDITABLE) || l.ifaces.has(Ifaces::EDITABLE_TEXT))
}

/// A text field the keyboard can type into although it offers no `EditableText`: `Text`, the
/// `editable` state, not read-only.
fn typeable(l: &Live) -> bool {
    l.ifaces.has(Ifaces::TEXT)
        && l.reading.states.has(st::EDITABLE)
        && !l.reading.states.has(st::READ_ONLY)
}

/// Reads all of an element's text (at most `cap` characters) and its length.
async fn whole_text(
    c: &crate::atspi::connection::Caller,
    o: &Obj,
) -> Result<(i32, String), LinuxError> {
    let n = text::character_count(c, o).await?;
    let t = if n > 0 {
        text::text(c, o, 0, n).await?
    } else {
        String::new()
    };
    Ok((n, t))
}

/// Where two texts first differ, in characters.
fn first_difference(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// `setText`: `EditableText.SetTextContents`, read back whole (length only for passwords); the
/// caret is then put at the end, where typing the text would have left it, so a following
/// `typeText` appends.
pub(crate) async fn set_text(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef, value: &str) {
    let Some((el, l)) = ctx.live_element(r, e).await else {
        return;
    };
    if !editable(&l) && typeable(&l) {
        // An editable text field without `EditableText` (Chromium's inputs): typed over.
        let password = is_password(&el);
        let before = match Before::read(&ctx.caller, &el.obj, password).await {
            Ok(b) => b,
            Err(err) => return r.error = Some(err.into()),
        };
        let whole = (0, before.count);
        r.error = Some(Error::new(
            ErrorCode::NotSupported,
            format!("{e} offers no EditableText interface"),
        ));
        r.delivery.delivered = uidriver_core::Delivery::NotDelivered;
        return type_instead(ctx, r, &el, value, &before, whole, Some(value.to_string())).await;
    }
    if !editable(&l) {
        let mut err = Error::new(
            ErrorCode::NotSupported,
            format!("{e} offers no editable text"),
        );
        err = err.with_hint(
            "Click it and use keypress ctrl+a then typeText, or pick the text field itself.",
        );
        r.error = Some(err);
        return;
    }
    let c = &ctx.caller;
    let password = is_password(&el);
    let before = Before::read(c, &el.obj, password).await.ok();
    let mut w = ctx.watch(&el.obj.bus).await;
    r.delivery.method = DeliveryMethod::EditableText;
    r.delivery.detail = Some("SetTextContents".into());
    if !record_answer(
        r,
        editable_text::set_text_contents(c, &el.obj, value).await,
        || format!("the toolkit refused to set the text of {e}"),
    ) {
        if let Some(b) = &before {
            let whole = (0, b.count);
            return type_instead(ctx, r, &el, value, b, whole, Some(value.to_string())).await;
        }
        return;
    }
    let want_len = value.chars().count() as i32;
    let got = w
        .until(SETTLE, || async {
            let (n, t) = whole_text(c, &el.obj).await.ok()?;
            let ok = if password { n == want_len } else { t == value };
            ok.then_some(n)
        })
        .await;
    r.verification.method = VerificationMethod::ReadBack;
    match got {
        Some(n) => {
            let _ = text::set_caret_offset(c, &el.obj, n).await;
            r.verification.passed = Some(true);
            r.verification.detail = Some(if password {
                format!("{e} holds {n} characters (a password: only its length is read)")
            } else {
                format!(
                    "{e} reads back the {n} characters set{}; caret at the end",
                    w.after()
                )
            });
            if !password && l.ifaces.has(Ifaces::VALUE) {
                // A spin button: the text is not its value until the toolkit takes it.
                match super::value::commit_typed_number(c, &el.obj, value).await {
                    Ok(None) => {}
                    Ok(Some(said)) => append_detail(r, &said),
                    Err(why) => {
                        r.verification.passed = Some(false);
                        append_detail(r, &why);
                    }
                }
            }
        }
        None if !password && l.ifaces.has(Ifaces::VALUE) && value.trim().parse::<f64>().is_ok() => {
            // A spin box formats its text (Qt adds its suffix: "701 px"): its value is what
            // the number set must show.
            let shown = whole_text(c, &el.obj)
                .await
                .map(|(_, t)| t)
                .unwrap_or_default();
            let said = super::value::commit_typed_number(c, &el.obj, value).await;
            r.verification.passed = Some(said.is_ok());
            r.verification.detail = Some(format!(
                "{e} reads back {shown:?}, its own formatting of the number; {}",
                match said {
                    Ok(s) => s.unwrap_or_default(),
                    Err(why) => why,
                }
            ));
        }
        None => {
            r.verification.passed = Some(false);
            r.verification.detail = Some(match whole_text(c, &el.obj).await {
                Ok((n, _)) if password => format!("{e} holds {n} characters, not {want_len}"),
                Ok((n, t)) => format!(
                    "{e} reads back {n} characters, not the {want_len} set (first difference at character {})",
                    first_difference(&t, value)
                ),
                Err(err) => format!("{e} could not be read back: {err}"),
            });
            w.quiet(QUIET).await;
            // The toolkit answered yes and set nothing (Gecko's form fields): the text is
            // typed instead, over the whole of it, when the field still holds what it held.
            if let Some(b) = &before {
                let whole = (0, b.count);
                return type_instead(ctx, r, &el, value, b, whole, Some(value.to_string())).await;
            }
            return;
        }
    }
    w.settle(true).await;
}

/// `typeText` with a ref: `EditableText.InsertText` at the caret (the end when it has none),
/// or over the selection (deleted first: typed keys replace what is selected, and an agent that
/// selected all with ctrl+a means to replace it), read back at that offset; without
/// EditableText, or with newlines (typed as Return), on the keyboard (`keyboard.rs`).
pub(crate) async fn type_text(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef, value: &str) {
    let Some((el, l)) = ctx.live_element(r, e).await else {
        return;
    };
    // A newline is the Return key, as a person types it: inserted as a character it is a line
    // break inside one paragraph (LibreOffice Writer), or a stray character where Return would
    // submit. Outside headless, text with newlines goes to the keyboard; under headless it can
    // only be inserted, and is.
    if !editable(&l) || (value.contains('\n') && !ctx.headless) {
        return super::keyboard::type_text(ctx, r, Some(&el), value).await;
    }
    let c = &ctx.caller;
    let password = is_password(&el);
    let (before, caret, selected) = match tokio::try_join!(
        Before::read(c, &el.obj, password),
        text::caret_offset(c, &el.obj),
        async { Ok(text::selection(c, &el.obj).await.ok().flatten()) }
    ) {
        Ok(v) => v,
        Err(err) => return r.error = Some(err.into()),
    };
    let count = before.count;
    let selected = selected.filter(|&(s, e)| 0 <= s && s < e && e <= count);
    let at = match selected {
        Some((s, _)) => s,
        None if (0..=count).contains(&caret) => caret,
        None => count,
    };
    let n = value.chars().count() as i32;
    let mut w = ctx.watch(&el.obj.bus).await;
    r.delivery.method = DeliveryMethod::EditableText;
    r.delivery.detail = Some(format!("InsertText at {at}"));
    if let Some((s, e_)) = selected {
        r.delivery.detail = Some(format!(
            "DeleteText {s}–{e_} (the selection), InsertText at {s}"
        ));
        let deleted = editable_text::delete_text(c, &el.obj, s, e_).await;
        if !record_answer(r, deleted, || {
            format!("the toolkit refused to delete the selection of {e}")
        }) {
            // Typing on the keyboard replaces a selection by itself.
            let want = before.spliced(s, e_, value);
            return type_instead(ctx, r, &el, value, &before, (s, e_), want).await;
        }
    }
    // What the field holds once the selection is gone (what the insert starts from).
    let cut = match selected {
        Some((s, e_)) => before.without(s, e_),
        None => before.clone(),
    };
    let count = cut.count;
    if !record_answer(
        r,
        editable_text::insert_text(c, &el.obj, at, value).await,
        || format!("the toolkit refused to insert text into {e}"),
    ) {
        // Nothing deleted either (the toolkit ignored both): the selection is typed over.
        if let Some((s, e_)) = selected.filter(|_| before.count != cut.count) {
            if before.holds(c, &el.obj).await {
                let want = before.spliced(s, e_, value);
                return type_instead(ctx, r, &el, value, &before, (s, e_), want).await;
            }
        }
        let want = cut.spliced(at, at, value);
        return type_instead(ctx, r, &el, value, &cut, (at, at), want).await;
    }
    let got = w
        .until(SETTLE, || async {
            let now = text::character_count(c, &el.obj).await.ok()?;
            if now != count + n {
                return None;
            }
            if password {
                return Some(());
            }
            let t = text::text(c, &el.obj, at, at + n).await.ok()?;
            (t == value).then_some(())
        })
        .await;
    r.verification.method = VerificationMethod::ReadBack;
    match got {
        Some(()) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!(
                "{e} has the {n} characters at {at}; {} characters now",
                count + n
            ));
        }
        None => {
            let now = text::character_count(c, &el.obj).await.ok();
            // A toolkit that answers yes and changes nothing (Gecko's form fields) leaves the
            // field as it was: with its selection, when one was to be replaced.
            if let Some((s, e_)) = selected.filter(|_| now == Some(before.count)) {
                if before.holds(c, &el.obj).await {
                    r.verification.passed = Some(false);
                    r.verification.detail = Some(format!(
                        "{e} still holds its {} characters: nothing was deleted or inserted",
                        before.count
                    ));
                    w.quiet(QUIET).await;
                    let want = before.spliced(s, e_, value);
                    return type_instead(ctx, r, &el, value, &before, (s, e_), want).await;
                }
            }
            if now == Some(count) {
                r.verification.passed = Some(false);
                r.verification.detail = Some(format!(
                    "{e} still has {count} characters: nothing was inserted"
                ));
                w.quiet(QUIET).await;
                let want = cut.spliced(at, at, value);
                return type_instead(ctx, r, &el, value, &cut, (at, at), want).await;
            } else {
                r.verification.detail = Some(format!(
                    "{e} has {} characters (expected {}), or the text at {at} differs",
                    now.map_or("?".into(), |v| v.to_string()),
                    count + n
                ));
            }
        }
    }
    w.quiet(QUIET).await;
}

/// What a field held before a step: its length, and its text when it may be compared (not a
/// password's, and at most [`COMPARE_CAP`] characters).
#[derive(Clone, Debug)]
struct Before {
    count: i32,
    text: Option<String>,
}

/// The longest text compared whole before and after a fallback.
const COMPARE_CAP: i32 = 100_000;

impl Before {
    async fn read(
        c: &crate::atspi::connection::Caller,
        o: &Obj,
        password: bool,
    ) -> Result<Before, LinuxError> {
        let count = text::character_count(c, o).await?;
        let text = match (password, count) {
            (true, _) => None,
            (false, 0) => Some(String::new()),
            (false, n) if n <= COMPARE_CAP => Some(text::text(c, o, 0, n).await?),
            _ => None,
        };
        Ok(Before { count, text })
    }

    /// Whether the field still holds what it held (its length when its text is not kept).
    async fn holds(&self, c: &crate::atspi::connection::Caller, o: &Obj) -> bool {
        if text::character_count(c, o).await.ok() != Some(self.count) {
            return false;
        }
        match &self.text {
            None => true,
            Some(t) if t.is_empty() => true,
            Some(t) => text::text(c, o, 0, self.count).await.ok().as_ref() == Some(t),
        }
    }

    /// The text with `start..end` (characters) replaced by `with`, when the text is kept.
    fn spliced(&self, start: i32, end: i32, with: &str) -> Option<String> {
        let t = self.text.as_ref()?;
        Some(splice(t, start, end, with))
    }

    /// What is left once `start..end` is deleted.
    fn without(&self, start: i32, end: i32) -> Before {
        Before {
            count: self.count - (end - start),
            text: self.spliced(start, end, ""),
        }
    }
}

/// `text` with the characters `start..end` replaced by `with`.
fn splice(text: &str, start: i32, end: i32, with: &str) -> String {
    let (s, e) = (start.max(0) as usize, end.max(start).max(0) as usize);
    let head: String = text.chars().take(s).collect();
    let tail: String = text.chars().skip(e).collect();
    format!("{head}{with}{tail}")
}

/// After an `EditableText` call that changed nothing (refused, failed, or answered yes and left
/// the text as it was: Gecko's form fields in Firefox and Thunderbird), for `setText` and
/// `typeText` alike: focuses the element, selects `replace` (the whole text for `setText`, the
/// selection `typeText` was to replace; an empty range puts the caret there) and types on the
/// keyboard as a person would, saying so in the report, then reads the whole text back against
/// `want`. Only when the element still holds what it held (`before`: so nothing is typed twice),
/// and never under headless: there the refusal stands, with a hint.
async fn type_instead(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: &Element<'_>,
    value: &str,
    before: &Before,
    replace: (i32, i32),
    want: Option<String>,
) {
    let e = el.r;
    let c = &ctx.caller;
    if !before.holds(c, &el.obj).await {
        return;
    }
    if ctx.headless {
        let mut err = r.error.take().unwrap_or_else(|| {
            Error::new(
                ErrorCode::NotSupported,
                format!("the toolkit left {e} unchanged"),
            )
        });
        err.message = format!(
            "{}; without headless the text would be typed on the keyboard",
            err.message
        );
        r.error = Some(err);
        return;
    }
    let why = match (&r.error, &r.verification.detail) {
        (Some(err), _) => err.message.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => format!("the toolkit left {e} unchanged"),
    };
    r.delivery = Default::default();
    r.verification = Default::default();
    r.error = None;
    if let Err(err) = super::keyboard::focus_for_keys(ctx, el).await {
        r.error = Some(err);
        return;
    }
    let (s, e_) = replace;
    let placed = if s < e_ {
        let _ = text::select_range(c, &el.obj, s, e_).await;
        let mut w = ctx.watch(&el.obj.bus).await;
        w.until(SETTLE, || async {
            (text::selection(c, &el.obj).await.ok().flatten() == Some((s, e_))).then_some(())
        })
        .await
        .is_some()
    } else {
        let _ = text::set_caret_offset(c, &el.obj, s).await;
        text::caret_offset(c, &el.obj).await.ok() == Some(s)
    };
    if !placed && s < e_ {
        r.error = Some(
            Error::new(
                ErrorCode::NotSupported,
                format!(
                    "{why}; typing instead needs characters {s}–{e_} of {e} selected, and the toolkit did not select them: nothing was typed"
                ),
            )
            .with_hint("Select the text with keys (keypress ctrl+a), then typeText without a ref."),
        );
        return;
    }
    super::keyboard::type_text(ctx, r, Some(el), value).await;
    let typed = r.delivery.detail.take().unwrap_or_default();
    let what = if s < e_ {
        format!("characters {s}–{e_} selected and ")
    } else {
        String::new()
    };
    r.delivery.detail = Some(format!(
        "{typed} (not set through accessibility: {why}; {what}typed on the keyboard instead)"
    ));
    if r.error.is_some() {
        return;
    }
    let Some(want) = want else {
        return;
    };
    let n = want.chars().count() as i32;
    let mut w = ctx.watch(&el.obj.bus).await;
    let got = w
        .until(SETTLE, || async {
            let (now, t) = whole_text(c, &el.obj).await.ok()?;
            let same = if is_password(el) { now == n } else { t == want };
            same.then_some(())
        })
        .await;
    r.verification.method = VerificationMethod::ReadBack;
    match got {
        Some(()) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!(
                "{e} reads back whole as wanted ({n} characters) after the typing"
            ));
        }
        None => {
            r.verification.passed = Some(false);
            r.verification.detail = Some(match whole_text(c, &el.obj).await {
                Ok((now, t)) if !is_password(el) => format!(
                    "{e} reads back {now} characters after the typing, not the {n} wanted (first difference at character {})",
                    first_difference(&t, &want)
                ),
                Ok((now, _)) => format!("{e} holds {now} characters after the typing, not {n}"),
                Err(err) => format!("{e} could not be read back after the typing: {err}"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn first_difference_counts_characters() {
        assert_eq!(super::first_difference("Grüße", "Grüsse"), 3);
        assert_eq!(super::first_difference("abc", "abc"), 3);
        assert_eq!(super::first_difference("", "x"), 0);
    }

    #[test]
    fn splice_replaces_characters_not_bytes() {
        assert_eq!(super::splice("Old Name", 0, 8, "Ada"), "Ada");
        assert_eq!(super::splice("Grüße", 2, 3, "u"), "Gruße");
        assert_eq!(super::splice("ab", 1, 1, "X"), "aXb");
        assert_eq!(super::splice("", 0, 0, "new"), "new");
    }
}
