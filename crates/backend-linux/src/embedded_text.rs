//! `read_text` of an element whose text holds U+FFFC marks where its children sit (Gecko's and
//! Chromium's paragraphs in a body, links in a paragraph): each mark replaced by the text of
//! the child it stands for.

use uidriver_core::{Error, ErrorCode};

use crate::atspi::{self, connection::Caller, text, Obj};
use crate::error::LinuxError;
use crate::mapping;

/// `t`, characters from `s` of `o`'s text, with its marks expanded (at most [`CAP`] characters
/// added, [`DEPTH`] levels); also where each character of `t` went (one more entry: the end).
pub(crate) async fn expand(
    c: &Caller,
    o: &Obj,
    t: String,
    s: u32,
) -> Result<(String, Vec<u32>), Error> {
    let mut budget = CAP;
    expand_embeds(c, o, t, s, DEPTH, &mut budget)
        .await
        .map_err(embedded_unreadable)
}

/// The character Gecko and Chromium put in a text where a child element sits (a paragraph in a
/// body, a link in a paragraph).
pub(crate) const MARK: char = '\u{fffc}';
/// Most characters the embedded children of one `read_text` add.
const CAP: usize = 20_000;
/// How deep marks inside embedded children are expanded.
const DEPTH: usize = 4;

/// `t` (characters from `s` of `o`'s text) with each U+FFFC mark replaced by the text of the
/// child it stands for, that child's own marks expanded in turn (`depth` levels, at most
/// `budget` characters added): `Hypertext` says which child a mark is, else the children in
/// order (the k-th mark of the text is the k-th child). A block child (a paragraph, a heading,
/// a list) is put on a line of its own; a child without text gives its name. Also where each
/// character of `t` went (one more entry: the end). A child whose reads fail is looked up and
/// read once more (the page may have replaced it); failing again, the read fails: a text with
/// a paragraph silently left out would read as the whole text.
fn expand_embeds<'a>(
    c: &'a Caller,
    o: &'a Obj,
    t: String,
    s: u32,
    depth: usize,
    budget: &'a mut usize,
) -> futures_util::future::BoxFuture<'a, Result<(String, Vec<u32>), LinuxError>> {
    use futures_util::FutureExt;
    async move {
        let mut out = String::new();
        let mut n_out: u32 = 0;
        let mut at = Vec::with_capacity(t.chars().count() + 1);
        let mut pending_break = false;
        // The children-in-order fallback: the children, and the marks before `s`.
        let mut by_order: Option<(Vec<Obj>, usize)> = None;
        let mut marks_seen = 0usize;
        let push = |out: &mut String, n_out: &mut u32, ch: char| {
            out.push(ch);
            *n_out += 1;
        };
        for (i, ch) in t.chars().enumerate() {
            if ch != MARK || *budget == 0 {
                if pending_break && ch != '\n' {
                    push(&mut out, &mut n_out, '\n');
                }
                pending_break = false;
                at.push(n_out);
                push(&mut out, &mut n_out, ch);
                continue;
            }
            let offset = s as i32 + i as i32;
            let mut read = None;
            for attempt in 0..2 {
                if attempt > 0 {
                    by_order = None;
                }
                let mark = (offset, s, marks_seen);
                let Some(child) = mark_child(c, o, mark, &mut by_order).await else {
                    break;
                };
                let got = child_text(c, &child, depth, budget).await;
                let done = got.is_ok();
                read = Some(got);
                if done {
                    break;
                }
            }
            marks_seen += 1;
            let (block, inner) = match read {
                Some(got) => got?,
                None => {
                    at.push(n_out);
                    push(&mut out, &mut n_out, ch);
                    continue;
                }
            };
            if block && !out.is_empty() && !out.ends_with('\n') {
                push(&mut out, &mut n_out, '\n');
            }
            at.push(n_out);
            for x in inner.chars().filter(|x| *x != MARK) {
                push(&mut out, &mut n_out, x);
            }
            pending_break = block;
        }
        at.push(n_out);
        Ok((out, at))
    }
    .boxed()
}

/// The object the mark at `(offset, s, k)` stands for (`offset` in `o`'s text, the text read
/// from `s`, the k-th mark of that read): `Hypertext` first, else the children in order
/// (`by_order` caches them and the marks before `s`). `None` when neither says.
async fn mark_child(
    c: &Caller,
    o: &Obj,
    (offset, s, k): (i32, u32, usize),
    by_order: &mut Option<(Vec<Obj>, usize)>,
) -> Option<Obj> {
    if let Some(child) = text::embedded_at(c, o, offset).await {
        return Some(child);
    }
    if by_order.is_none() {
        let kids = atspi::accessible::children(c, o).await.unwrap_or_default();
        let before = match s {
            0 => 0,
            n if n <= 100_000 => text::text(c, o, 0, n as i32)
                .await
                .map(|p| p.chars().filter(|x| *x == MARK).count())
                .unwrap_or(usize::MAX),
            _ => usize::MAX,
        };
        *by_order = Some((kids, before));
    }
    let (kids, before) = by_order.as_ref()?;
    before.checked_add(k).and_then(|k| kids.get(k)).cloned()
}

/// What `child` gives in place of its mark, and whether it is a block (a line of its own):
/// its text with its own marks expanded (`depth` levels), or its name when it has no text.
/// Characters taken come off `budget` only when every read answered.
async fn child_text(
    c: &Caller,
    child: &Obj,
    depth: usize,
    budget: &mut usize,
) -> Result<(bool, String), LinuxError> {
    let (role, ifaces) = tokio::join!(
        atspi::accessible::role(c, child),
        atspi::accessible::interfaces(c, child)
    );
    let (role, ifaces) = (role?, ifaces?);
    let block = !matches!(
        mapping::map_role(role).1,
        uidriver_core::Role::Link
            | uidriver_core::Role::Image
            | uidriver_core::Role::Label
            | uidriver_core::Role::Text
            | uidriver_core::Role::PasswordText
            | uidriver_core::Role::Button
            | uidriver_core::Role::ToggleButton
            | uidriver_core::Role::CheckBox
            | uidriver_core::Role::RadioButton
            | uidriver_core::Role::ComboBox
    );
    let got = if ifaces.has(atspi::Ifaces::TEXT) {
        let n = text::character_count(c, child).await?.max(0);
        let n = n.min(i32::try_from(*budget).unwrap_or(i32::MAX));
        let got = if n > 0 {
            text::text(c, child, 0, n).await?
        } else {
            String::new()
        };
        text::take_chars(&got, n as usize).to_string()
    } else {
        atspi::accessible::name(c, child).await?
    };
    // A replaced element is not always an error: Gecko answers for one it let go, with no text
    // and its `defunct` state. Asked after the reads, so a child let go during them counts.
    if atspi::accessible::states(c, child)
        .await?
        .has(atspi::state::DEFUNCT)
    {
        return Err(LinuxError::Gone {
            what: "an embedded child".into(),
            reason: "defunct: the page replaced it".into(),
        });
    }
    if depth > 1 && got.contains(MARK) {
        let mut inner_budget = budget.saturating_sub(got.chars().count());
        let expanded = expand_embeds(c, child, got, 0, depth - 1, &mut inner_budget).await?;
        *budget = inner_budget;
        return Ok((block, expanded.0));
    }
    *budget = budget.saturating_sub(got.chars().count());
    Ok((block, got))
}

/// A `read_text` whose embedded child could not be read, twice: the read fails and says why.
fn embedded_unreadable(e: LinuxError) -> Error {
    let gone = matches!(e, LinuxError::Gone { .. });
    let mut err = Error::from(e);
    if gone {
        err.code = ErrorCode::StaleRef;
    }
    err.message = format!(
        "a part of the element's text (an embedded child) could not be read: {}",
        err.message
    );
    err.with_hint(
        "The element's content may be changing (a page still loading or rewriting itself): \
         call read_text again, or wait_for the change and observe_ui again.",
    )
}
