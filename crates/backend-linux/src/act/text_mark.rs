//! Evidence for keys from the element they went to: the focused text element's length, caret,
//! selection and first characters, read before the keys and again after. `ctrl+a` shows as a
//! selection, `End` as a caret move, `BackSpace` as a shorter text; each is tied to the element
//! that had the focus, where events elsewhere in the app prove nothing about the keys.

use super::verify::{self, Watch};
use super::{Ctx, Element};
use crate::atspi::{state as st, text, Obj};
use std::time::{Duration, Instant};

/// Characters of the text compared (a change further on still moves the length or the caret).
const HEAD: i32 = 256;
/// Poll period while waiting for a change (text changes do not always send an event).
const TICK: Duration = Duration::from_millis(20);

/// What keys can change in one text element.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TextMark {
    len: i32,
    caret: i32,
    selection: Option<(i32, i32)>,
    head: String,
}

impl TextMark {
    /// Reads `o`'s mark; `None` when it has no text to read (no `Text` interface: nothing is
    /// asked of it).
    pub(crate) async fn read(ctx: &Ctx<'_>, o: &Obj) -> Option<TextMark> {
        let c = &ctx.caller;
        if !ctx.att.memo.has_text(c, o).await {
            return None;
        }
        let (head, caret, selection) = tokio::join!(
            text::head(c, o, HEAD),
            text::caret_offset(c, o),
            text::selection(c, o)
        );
        let (len, head) = head.ok()?;
        Some(TextMark {
            len,
            caret: caret.unwrap_or(-1),
            selection: selection.ok().flatten(),
            head,
        })
    }

    /// What changed from `before` to `self`, in words (no text content: it may be a secret).
    pub(crate) fn change_from(&self, before: &TextMark) -> Option<String> {
        let mut parts = Vec::new();
        if self.len != before.len {
            parts.push(format!("{} → {} characters", before.len, self.len));
        } else if self.head != before.head {
            parts.push("its text changed".to_string());
        }
        if self.selection != before.selection {
            let show = |s: Option<(i32, i32)>| match s {
                Some((a, b)) => format!("{a}–{b}"),
                None => "none".into(),
            };
            parts.push(format!(
                "selection {} → {}",
                show(before.selection),
                show(self.selection)
            ));
        }
        if self.caret != before.caret && self.caret >= 0 {
            parts.push(format!("caret {} → {}", before.caret, self.caret));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// The text element that has the keyboard focus now, among `candidates` (in order), with its
/// mark.
pub(crate) async fn focused_text(ctx: &Ctx<'_>, candidates: &[Obj]) -> Option<(Obj, TextMark)> {
    for o in candidates {
        let Ok(Some(now)) = verify::read(&ctx.caller, o).await else {
            continue;
        };
        if now.states.has(st::FOCUSED) {
            return TextMark::read(ctx, o).await.map(|m| (o.clone(), m));
        }
    }
    None
}

/// Waits up to `budget` for `o`'s mark to differ from `before`, or for the app to react in `w`
/// (then the caller judges the events). The change in words, when there was one.
pub(crate) async fn changed_within(
    ctx: &Ctx<'_>,
    o: &Obj,
    before: &TextMark,
    w: Option<&mut Watch<'_>>,
    budget: Duration,
) -> Option<String> {
    let end = Instant::now() + budget;
    let mut w = w;
    loop {
        if let Some(now) = TextMark::read(ctx, o).await {
            if let Some(change) = now.change_from(before) {
                return Some(change);
            }
        }
        let now = Instant::now();
        if now >= end || w.as_ref().is_some_and(|w| w.reacted()) {
            return None;
        }
        match w.as_mut() {
            Some(w) => {
                w.next(end.min(now + TICK)).await;
            }
            None => tokio::time::sleep(TICK.min(end - now)).await,
        }
    }
}

/// The ref of `o` in the state, or "the focused element".
pub(crate) fn name_of(ctx: &Ctx<'_>, o: &Obj, el: Option<&Element<'_>>) -> String {
    if let Some(el) = el.filter(|el| el.obj == *o) {
        return el.r.to_string();
    }
    super::verify::index_of(ctx.state, o)
        .map(|i| ctx.state.ref_of(i).to_string())
        .unwrap_or_else(|| "the focused element".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(len: i32, caret: i32, selection: Option<(i32, i32)>, head: &str) -> TextMark {
        TextMark {
            len,
            caret,
            selection,
            head: head.into(),
        }
    }

    #[test]
    fn changes_are_named_without_the_text() {
        let a = mark(5, 5, None, "hello");
        assert_eq!(a.change_from(&a), None);
        assert_eq!(
            mark(5, 5, Some((0, 5)), "hello").change_from(&a).as_deref(),
            Some("selection none → 0–5")
        );
        assert_eq!(
            mark(5, 0, None, "hello").change_from(&a).as_deref(),
            Some("caret 5 → 0")
        );
        assert_eq!(
            mark(4, 4, None, "hell").change_from(&a).as_deref(),
            Some("5 → 4 characters, caret 5 → 4")
        );
        assert_eq!(
            mark(5, 5, None, "HELLO").change_from(&a).as_deref(),
            Some("its text changed")
        );
    }
}
