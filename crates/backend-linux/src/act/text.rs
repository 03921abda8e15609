//! `setText` and `typeText` with a ref, through `EditableText`: replace the whole text, or
//! insert at the caret, replacing the selection when there is one, as typing would (never the
//! whole field), each read back. Passwords are read back by
//! length only. Without `EditableText`, `typeText` types on the keyboard (`keyboard.rs`).

use uidriver_core::{DeliveryMethod, VerificationMethod};
use uidriver_core::{ElementRef, Error, ErrorCode, Role, StepReport};

use super::verify::{QUIET, SETTLE};
use super::{record_answer, Ctx, Element, Live};
use crate::atspi::{editable_text, state as st, text, Ifaces, Obj};
use crate::error::LinuxError;

fn is_password(el: &Element<'_>) -> bool {
    el.node.role == Role::PasswordText || el.node.has_state(uidriver_core::StateFlag::Password)
}

fn editable(l: &Live) -> bool {
    l.ifaces.has(Ifaces::EDITABLE_TEXT)
        && l.ifaces.has(Ifaces::TEXT)
        && !l.reading.states.has(st::READ_ONLY)
        && (l.reading.states.has(st::EDITABLE) || l.ifaces.has(Ifaces::EDITABLE_TEXT))
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
    let mut w = ctx.watch(&el.obj.bus).await;
    r.delivery.method = DeliveryMethod::EditableText;
    r.delivery.detail = Some("SetTextContents".into());
    if !record_answer(
        r,
        editable_text::set_text_contents(c, &el.obj, value).await,
        || format!("the toolkit refused to set the text of {e}"),
    ) {
        return;
    }
    let want_len = value.chars().count() as i32;
    let password = is_password(&el);
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
        }
    }
    w.quiet(QUIET).await;
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
    let (count, caret, selected) = match tokio::try_join!(
        text::character_count(c, &el.obj),
        text::caret_offset(c, &el.obj),
        async { Ok(text::selection(c, &el.obj).await.ok().flatten()) }
    ) {
        Ok(v) => v,
        Err(err) => return r.error = Some(err.into()),
    };
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
            return type_instead(ctx, r, &el, value, count).await;
        }
    }
    let count = count - selected.map_or(0, |(s, e_)| e_ - s);
    if !record_answer(
        r,
        editable_text::insert_text(c, &el.obj, at, value).await,
        || format!("the toolkit refused to insert text into {e}"),
    ) {
        return type_instead(ctx, r, &el, value, count).await;
    }
    let password = is_password(&el);
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
            if now == Some(count) {
                r.verification.passed = Some(false);
                r.verification.detail = Some(format!(
                    "{e} still has {count} characters: nothing was inserted"
                ));
                w.quiet(QUIET).await;
                return type_instead(ctx, r, &el, value, count).await;
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

/// After an `InsertText` that inserted nothing (refused, failed, or answered yes and left the
/// text as it was: Gecko's fields in Thunderbird), focuses the element and types on the keyboard
/// as a person would, saying so in the report. Only when the element still holds the `count`
/// characters it had (so nothing can be typed twice), and never under headless: there the
/// refusal stands, with a hint.
async fn type_instead(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: &Element<'_>,
    value: &str,
    count: i32,
) {
    let e = el.r;
    let untouched = text::character_count(&ctx.caller, &el.obj).await.ok() == Some(count);
    if !untouched {
        return;
    }
    if ctx.headless {
        let mut err = r.error.take().unwrap_or_else(|| {
            Error::new(
                ErrorCode::NotSupported,
                format!("InsertText left {e} unchanged"),
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
        (None, None) => format!("InsertText left {e} unchanged"),
    };
    r.delivery = Default::default();
    r.verification = Default::default();
    r.error = None;
    super::keyboard::type_text(ctx, r, Some(el), value).await;
    let typed = r.delivery.detail.take().unwrap_or_default();
    r.delivery.detail = Some(format!(
        "{typed} (InsertText inserted nothing: {why}; typed on the keyboard instead)"
    ));
}

#[cfg(test)]
mod tests {
    #[test]
    fn first_difference_counts_characters() {
        assert_eq!(super::first_difference("Grüße", "Grüsse"), 3);
        assert_eq!(super::first_difference("abc", "abc"), 3);
        assert_eq!(super::first_difference("", "x"), 0);
    }
}
