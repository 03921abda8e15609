//! Keys into a region with no accessible content (a spreadsheet grid, a terminal screen, a
//! canvas: core's [`pixels_only`]) are checked by its pixels: the region is captured before the
//! step, and when the step's own evidence (text read back, the app's events) says nothing, it is
//! captured again and both images are read with OCR. Typed text that shows in the region after
//! and did not before, or keys after which the region's text changed, is evidence tied to the
//! target; anything less stays `unknown`, saying what the pixels showed.

use std::time::Duration;

use uidriver_core::outline::quote;
use uidriver_core::pixels_only::pixels_only;
use uidriver_core::{
    Backend, Bounds, Delivery, OcrText, RawImage, Step, StepReport, VerificationMethod,
};
use uidriver_vision::{changed_areas, crop, ocr, stack, OcrOptions};

use super::verify;
use super::Ctx;
use crate::atspi::{state as st, Obj};

/// The longest a capture of the region may take.
const CAPTURE_WAIT: Duration = Duration::from_secs(2);
/// The longest one OCR of the region may take.
const OCR_WAIT: Duration = Duration::from_secs(5);
/// How long after a first reading that misses the typed text the region is read again (a
/// terminal echoes a command's output a moment after its line).
const SECOND_LOOK: Duration = Duration::from_millis(500);
/// Regions checked for the focus when a keyboard step names no element.
const MAX_REGIONS: usize = 4;

/// A region a step types into, captured before the step.
pub(crate) struct Before {
    /// How the evidence names it: the ref, or "the focused region".
    name: String,
    bounds: Bounds,
    image: RawImage,
}

/// The region `step` sends keys into, captured now; `None` for any other step, a target with
/// accessible content, or a region that cannot be captured.
pub(crate) async fn before(ctx: &Ctx<'_>, step: &Step) -> Option<Before> {
    let target = match step {
        Step::TypeText(t, _) | Step::Keypress(t, _) if !ctx.headless => *t,
        _ => return None,
    };
    let nodes = &ctx.state.snapshot.nodes;
    let (name, obj) = match target {
        Some(e) => {
            let i = ctx
                .state
                .resolve(e)
                .ok()
                .filter(|&i| pixels_only(nodes, i))?;
            (e.to_string(), Obj::from_handle(&nodes[i].handle)?)
        }
        None => focused_region(ctx).await?,
    };
    // On screen (window-relative extents placed by the window's origin).
    let bounds = super::deliver::live_bounds(ctx, &obj).await.ok()??;
    let image = capture(ctx, bounds).await?;
    Some(Before {
        name,
        bounds,
        image,
    })
}

/// Of the state's pixels-only regions, the one that has the keyboard focus now (an earlier step
/// of the batch may have clicked it).
async fn focused_region(ctx: &Ctx<'_>) -> Option<(String, Obj)> {
    let nodes = &ctx.state.snapshot.nodes;
    let regions = (0..nodes.len())
        .filter(|&i| pixels_only(nodes, i))
        .take(MAX_REGIONS);
    for i in regions {
        let Some(obj) = Obj::from_handle(&nodes[i].handle) else {
            continue;
        };
        if let Ok(Some(now)) = verify::read(&ctx.caller, &obj).await {
            if now.states.has(st::FOCUSED) {
                let r = ctx.state.ref_of(i);
                return Some((format!("the focused region {r}"), obj));
            }
        }
    }
    None
}

async fn capture(ctx: &Ctx<'_>, bounds: Bounds) -> Option<RawImage> {
    let deadline = ctx.deadline.cap(CAPTURE_WAIT);
    let whole = ctx.backend.capture(&ctx.target.info, deadline).await.ok()?;
    crop(&whole, bounds)
}

/// Reads the region again after `step` and, when the step's own evidence said nothing, records
/// what its pixels show.
pub(crate) async fn verify(ctx: &Ctx<'_>, r: &mut StepReport, step: &Step, before: Before) {
    let unconfirmed = r.error.is_none()
        && r.verification.passed.is_none()
        && r.delivery.delivered != Delivery::NotDelivered;
    if !unconfirmed {
        return;
    }
    let typed = match step {
        Step::TypeText(_, t) => Some(typed_lines(t)),
        _ => None,
    };
    let mut after = None;
    for attempt in 0..2 {
        if attempt > 0 {
            tokio::time::sleep(SECOND_LOOK.min(ctx.deadline.remaining())).await;
        }
        let Some(image) = capture(ctx, before.bounds).await else {
            return;
        };
        let areas = changed_areas(&before.image, &image);
        let judged = if areas.is_empty() {
            judge(typed.as_deref(), &[], &[], true)
        } else {
            let (was, now) =
                tokio::join!(read(ctx, &before.image, &areas), read(ctx, &image, &areas));
            let (Some(was), Some(now)) = (was, now) else {
                return;
            };
            tracing::debug!(
                ?areas,
                ?was,
                ?now,
                "a pixels-only region read before and after"
            );
            judge(typed.as_deref(), &was, &now, false)
        };
        let done = judged.passed.is_some();
        after = Some(judged);
        if done {
            break;
        }
    }
    let Some(j) = after else { return };
    r.verification.method = VerificationMethod::Pixels;
    r.verification.passed = j.passed;
    r.verification.detail = Some(format!(
        "{} shows no accessible content; OCR of its pixels before and after: {}",
        before.name, j.detail
    ));
}

/// The words shown in `areas` of `image`, in reading order: the areas are stacked into one
/// image and read as lines (tesseract misses lone digits in a grid read whole).
async fn read(ctx: &Ctx<'_>, image: &RawImage, areas: &[Bounds]) -> Option<Vec<String>> {
    let stacked = stack(image, areas)?;
    let opts = OcrOptions {
        timeout: OCR_WAIT.min(ctx.deadline.remaining()),
        psm: 6,
        ..OcrOptions::default()
    };
    let found = ocr(&stacked, &opts).await.ok()?;
    Some(
        found
            .words
            .iter()
            .map(word)
            .filter(|w| !w.is_empty())
            .collect(),
    )
}

fn word(w: &OcrText) -> String {
    normal(&w.text)
}

/// A word as compared: lower case, dashes as `-`, without quotes, bars or brackets around it
/// (a grid's lines read as `|`) or a full stop, comma or colon after it (OCR reads those least
/// reliably).
fn normal(w: &str) -> String {
    let w: String = w
        .chars()
        .map(|c| match c {
            '‐' | '‑' | '–' | '—' => '-',
            c => c,
        })
        .flat_map(char::to_lowercase)
        .collect();
    w.trim_matches(|c| {
        matches!(
            c,
            '"' | '\'' | '“' | '”' | '‘' | '’' | '`' | '|' | '[' | ']' | '(' | ')'
        )
    })
    .trim_end_matches(['.', ',', ':', ';'])
    .to_string()
}

/// One line of typed text (Return and Tab end a line), and its words as compared.
struct Line {
    typed: String,
    words: Vec<String>,
}

fn typed_lines(text: &str) -> Vec<Line> {
    text.split(['\n', '\r', '\t'])
        .map(|l| Line {
            typed: l.trim().to_string(),
            words: l
                .split_whitespace()
                .map(normal)
                .filter(|w| !w.is_empty())
                .collect(),
        })
        .filter(|l| !l.words.is_empty())
        .collect()
}

/// What the two readings say about a step.
struct Judged {
    passed: Option<bool>,
    detail: String,
}

fn judge(typed: Option<&[Line]>, before: &[String], after: &[String], same_pixels: bool) -> Judged {
    if same_pixels {
        return Judged {
            passed: None,
            detail: "the region's pixels did not change".into(),
        };
    }
    let Some(lines) = typed else {
        // Keys: the region's text changed, or only its pixels (a cursor, a highlight) did.
        return if before == after {
            Judged {
                passed: None,
                detail: format!(
                    "its pixels changed but its text did not ({})",
                    text_of(after)
                ),
            }
        } else {
            Judged {
                passed: Some(true),
                detail: format!("its text changed: {}", change(before, after)),
            }
        };
    };
    let (read, unread): (Vec<_>, Vec<_>) =
        lines.iter().partition(|l| shows(&l.words, before, after));
    let said = |ls: &[&Line]| {
        ls.iter()
            .map(|l| quote(&l.typed, 40))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if read.is_empty() {
        return Judged {
            passed: None,
            detail: format!(
                "its pixels changed ({}), but the typed text does not show there",
                change(before, after)
            ),
        };
    }
    let mut detail = format!(
        "{} {} there now and did not before",
        said(&read),
        if read.len() == 1 { "shows" } else { "show" }
    );
    if !unread.is_empty() {
        detail.push_str(&format!("; not read there: {}", said(&unread)));
    }
    Judged {
        passed: Some(true),
        detail,
    }
}

/// The words of a typed line that must show for it to count as read: those of three characters
/// or more (OCR drops or misreads `|`, `>` and other short marks), or all of a line of short ones
/// (a spreadsheet's `5`).
fn key_words(line: &[String]) -> impl Iterator<Item = &String> {
    let long = line.iter().any(|w| w.chars().count() >= 3);
    line.iter().filter(move |w| !long || w.chars().count() >= 3)
}

/// Whether a typed line shows after and did not before: two thirds of its key words (all of one
/// or two) are read more often after than before; OCR misreads a word of a long line now and then
/// (`| tee` as `t lee`).
fn shows(line: &[String], before: &[String], after: &[String]) -> bool {
    let keys: Vec<&String> = key_words(line).collect();
    let new = keys
        .iter()
        .filter(|w| count(after, w) > count(before, w))
        .count();
    !keys.is_empty() && new * 3 >= keys.len() * 2
}

fn count(words: &[String], w: &str) -> usize {
    words.iter().filter(|x| *x == w).count()
}

/// The words `after` has beyond `before` (or a note that some went), quoted as data.
fn change(before: &[String], after: &[String]) -> String {
    let mut left: Vec<&String> = before.iter().collect();
    let mut added = Vec::new();
    for w in after {
        match left.iter().position(|b| *b == w) {
            Some(p) => {
                left.remove(p);
            }
            None => added.push(w.as_str()),
        }
    }
    match (added.is_empty(), left.is_empty()) {
        (false, _) => format!("new text {}", quote(&added.join(" "), 60)),
        (true, false) => format!("{} word(s) went", left.len()),
        (true, true) => "the same words in another order".into(),
    }
}

fn text_of(words: &[String]) -> String {
    if words.is_empty() {
        "no text".into()
    } else {
        quote(&words.join(" "), 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(normal).collect()
    }

    #[test]
    fn typed_text_that_shows_after_and_not_before_is_evidence() {
        let before = words("root@box:~# 1 2 3 4 5");
        let after = words("root@box:~# echo hi—there hi-there root@box:~# 1 2 3 4 5");
        let lines = typed_lines("echo hi-there\n");
        let j = judge(Some(&lines), &before, &after, false);
        assert_eq!(j.passed, Some(true), "{}", j.detail);
        assert!(j.detail.contains("\"echo hi-there\" shows"), "{}", j.detail);
    }

    #[test]
    fn a_digit_already_on_screen_counts_only_when_it_shows_once_more() {
        let before = words("A B C 1 2 3 4 5 6 7");
        let lines = typed_lines("5\n7\n=A1*A2+1\n");
        let j = judge(
            Some(&lines),
            &before,
            &words("A B C 1 5 2 7 3 36 4 5 6 7"),
            false,
        );
        assert_eq!(j.passed, Some(true), "{}", j.detail);
        assert!(
            j.detail.contains("not read there: \"=A1*A2+1\""),
            "{}",
            j.detail
        );
        let j = judge(
            Some(&lines),
            &before,
            &words("A B C 1 2 3 4 5 6 7 x"),
            false,
        );
        assert_eq!(j.passed, None, "{}", j.detail);
    }

    #[test]
    fn one_misread_word_of_a_long_line_is_forgiven_two_are_not() {
        let lines = typed_lines("echo pixel-check | tee pixel.txt");
        let read = words("echo pixel-check t lee pixel.txt pixel-check");
        assert_eq!(judge(Some(&lines), &[], &read, false).passed, Some(true));
        let misread = words("echo pixe1-check t lee pixel.txt");
        assert_eq!(judge(Some(&lines), &[], &misread, false).passed, None);
    }

    #[test]
    fn unchanged_pixels_or_text_prove_nothing() {
        let w = words("a b");
        let lines = typed_lines("a");
        assert_eq!(judge(Some(&lines), &w, &w, true).passed, None);
        assert_eq!(judge(None, &w, &w, false).passed, None);
        assert_eq!(judge(None, &w, &words("a b c"), false).passed, Some(true));
    }
}
