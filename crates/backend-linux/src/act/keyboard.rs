//! Keyboard focus and keyboard input: the `focus` step (`Component.GrabFocus`), `keypress`
//! chords and `typeText` on the keyboard, always holding the input (lock and lease), because
//! moving the focus decides where another lane's or process's keys would land. Keys without a
//! ref go to whatever has the focus in the root's window, which is activated first.

use std::time::Duration;
use uidriver_core::{DeliveryMethod, GroundingMethod, VerificationMethod};

use tracing::debug;
use uidriver_core::action::KeyChord;
use uidriver_core::{Delivery, ElementRef, Error, ErrorCode, Role, StateFlag, StepReport};

use super::deliver::{self, Aim, Send};
use super::text_mark;
use super::verify::{self, QUIET, SETTLE};
use super::{needs_foreground, nothing_to_send, refuse, Ctx, Element};
use crate::atspi::{component, state as st, text, Obj};
use crate::x11::window::Activation;
use deliver::{deliver_held, events_only_within, exclusive, failed, record, watch_app};

/// Editable elements scanned for the focus when the state names none.
const FOCUS_SCAN: usize = 32;

/// `focus`: `Component.GrabFocus`, verified by the element's focused state. Refused under the
/// headless policy: GTK 3 raises and activates the window when a widget grabs focus.
pub(crate) async fn focus(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef) {
    if ctx.headless {
        r.grounding.method = GroundingMethod::Ref;
        r.grounding.r#ref = Some(e);
        return needs_foreground(
            r,
            "giving keyboard focus raises and activates the window (GTK 3 presents it)",
        );
    }
    let Some((el, l)) = ctx.live_element(r, e).await else {
        return;
    };
    r.verification.method = VerificationMethod::Focus;
    let c = &ctx.caller;
    let active = window_active(ctx).await;
    if l.reading.states.has(st::FOCUSED) && active != Some(false) {
        return nothing_to_send(r, format!("{e} already had the focus"));
    }
    if !l.reading.states.has(st::FOCUSABLE) {
        return refuse(
            r,
            ErrorCode::NotSupported,
            format!("{e} cannot take keyboard focus"),
        );
    }
    // GrabFocus changes which window has the keyboard: it is done holding the input, so it
    // cannot steal the focus from another lane's (or process's) typing.
    let held = match deliver::exclusive(ctx).await {
        Ok(h) => h,
        Err(err) => return r.error = Some(err),
    };
    let mut w = ctx.watch(&el.obj.bus).await;
    r.delivery.method = DeliveryMethod::Focus;
    r.delivery.detail = Some("GrabFocus".into());
    let granted = match component::grab_focus(c, &el.obj).await {
        Ok(g) => g,
        Err(err) if err.is_gone() => {
            return refuse(r, ErrorCode::StaleRef, format!("{e} no longer exists"))
        }
        Err(err) if err.is_unresponsive() => {
            r.delivery.delivered = Delivery::Maybe;
            r.error = Some(Error::from(err).delivered(Delivery::Maybe));
            return;
        }
        // GTK 4.8 fails the call: nothing changed.
        Err(_) => false,
    };
    if !granted {
        drop(w);
        drop(held);
        r.delivery.delivered = Delivery::NotDelivered;
        let text_field = matches!(
            el.node.role,
            Role::Text | Role::PasswordText | Role::Terminal
        );
        if text_field {
            // A text field takes focus from a click without other effects.
            r.delivery.detail = None;
            r.delivery.method = DeliveryMethod::None;
            return super::pointer::click_element(
                ctx,
                r,
                &el,
                Send::Click(uidriver_core::action::Button::Left, 1),
                Some("the toolkit does not grant focus semantically"),
            )
            .await;
        }
        return refuse(r, ErrorCode::NotSupported, format!("the toolkit does not let {e} be focused through accessibility; click it or use Tab"));
    }
    r.delivery.delivered = Delivery::Delivered;
    // Granted: awaited as long as `focus_for_keys` awaits it (a focus moved through another
    // process is reported late).
    let got = w
        .until(SETTLE + LATE_FOCUS, || async {
            match verify::read(c, &el.obj).await {
                Ok(Some(now)) if now.states.has(st::FOCUSED) => Some(()),
                _ => None,
            }
        })
        .await;
    w.quiet(QUIET).await;
    match got {
        Some(()) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!("{e} reports the keyboard focus"));
        }
        None => {
            r.verification.detail = Some(format!(
                "{e} does not report focus after {} ms (its window may not be active)",
                (SETTLE + LATE_FOCUS).as_millis()
            ))
        }
    }
}

/// Whether the root's window is the active one (None when unknown).
async fn window_active(ctx: &Ctx<'_>) -> Option<bool> {
    let w = ctx.window()?;
    let x = ctx.backend.inner.desk.as_ref()?;
    x.run(
        ctx.deadline.cap(std::time::Duration::from_millis(500)),
        move |c| c.is_active(w),
    )
    .await
    .ok()
}

/// `keypress`: to a ref (focused first) or to the focused element of the root's window.
pub(crate) async fn keypress(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    e: Option<ElementRef>,
    keys: &[KeyChord],
) {
    if ctx.headless {
        r.grounding.method = if e.is_some() {
            GroundingMethod::Ref
        } else {
            GroundingMethod::Focus
        };
        r.grounding.r#ref = e;
        return needs_foreground(r, "key chords are keyboard input");
    }
    let el = match e {
        Some(e) => match ctx.element(r, e) {
            Some(el) => Some(el),
            None => return,
        },
        None => {
            r.grounding.method = GroundingMethod::Focus;
            None
        }
    };
    let held = match exclusive(ctx).await {
        Ok(h) => h,
        Err(err) => return failed(ctx, r, err),
    };
    if let Some(el) = &el {
        if let Err(err) = focus_for_keys(ctx, el).await {
            r.error = Some(err);
            return;
        }
    }
    let focused = text_mark::focused_text(ctx, &focus_candidates(ctx, el.as_ref(), &[])).await;
    let windows = super::windows_now(ctx).await;
    let mut w = watch_app(ctx).await;
    let send = Send::Keys(keys.to_vec());
    let sent = match deliver_held(ctx, &held, Aim::Keyboard, send.clone()).await {
        Ok(s) => s,
        Err(e) => return failed(ctx, r, e),
    };
    drop(held);
    record(ctx, r, &send, &sent);
    let activated = !matches!(sent.activation, Some(Activation::Already) | None);
    // First the element the keys went to: its text, caret or selection.
    let budget = ctx.unconfirmed_wait();
    if let Some((o, before)) = &focused {
        let change = text_mark::changed_within(ctx, o, before, w.as_mut(), budget).await;
        if let Some(change) = change {
            if let Some(w) = w.as_mut() {
                w.quiet(QUIET).await;
            }
            r.verification.method = VerificationMethod::ReadBack;
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!(
                "{} had the focus: {change}",
                text_mark::name_of(ctx, o, el.as_ref())
            ));
            return;
        }
    }
    // Then the app's events: weaker evidence, described with the element that changed.
    let w = w.as_mut();
    // A dialog may close a while after Return or Escape, and silently (LibreOffice's Save
    // dialog hides ~600 ms later): its window is watched a little longer.
    let dialog = ctx.target.info.kind == uidriver_core::RootKind::Dialog && windows.is_some();
    let budget = match (focused.is_some(), dialog && !ctx.expect_follows) {
        (_, true) => SETTLE,
        (true, false) => Duration::ZERO,
        (false, false) => budget,
    };
    // Focus events after an activation are the activation's, not the keys'.
    events_only_within(ctx, r, w, !activated, budget, windows.as_deref()).await
}

/// How much longer a granted focus is awaited once [`SETTLE`] passed without it.
const LATE_FOCUS: Duration = Duration::from_millis(1500);

/// Moves keyboard focus to an element before keys are sent to it: `GrabFocus` (GTK 3 also
/// activates the window), then waits until the element reports focus. Never clicks: a click
/// could press a button.
pub(crate) async fn focus_for_keys(ctx: &Ctx<'_>, el: &Element<'_>) -> Result<(), Error> {
    let c = &ctx.caller;
    if let Ok(Some(now)) = verify::read(c, &el.obj).await {
        if now.states.has(st::FOCUSED) {
            return Ok(());
        }
    }
    let granted = component::grab_focus(c, &el.obj).await.unwrap_or(false);
    let mut w = ctx.watch(&el.obj.bus).await;
    let focused = w
        .until(SETTLE, || async {
            match verify::read(c, &el.obj).await {
                Ok(Some(now)) if now.states.has(st::FOCUSED) => Some(()),
                _ => None,
            }
        })
        .await;
    // An element in a background window may refuse the focus until its window is active.
    let focused = match focused {
        None if granted && deliver::activate_for_keys(ctx).await => {
            let _ = component::grab_focus(c, &el.obj).await;
            w.until(SETTLE, || async {
                match verify::read(c, &el.obj).await {
                    Ok(Some(now)) if now.states.has(st::FOCUSED) => Some(()),
                    _ => None,
                }
            })
            .await
        }
        // Granted in an active window and not yet reported: a toolkit that moves the focus
        // through another process (Firefox's web content lives in a content process) reports
        // it later; the first focus into a page took 0.5–1 s.
        None if granted => {
            w.until(LATE_FOCUS, || async {
                match verify::read(c, &el.obj).await {
                    Ok(Some(now)) if now.states.has(st::FOCUSED) => Some(()),
                    _ => None,
                }
            })
            .await
        }
        f => f,
    };
    match (granted, focused) {
        (_, Some(())) => Ok(()),
        (false, None) => Err(Error::new(
            ErrorCode::NotSupported,
            format!(
                "{} cannot be given keyboard focus through accessibility (the toolkit refused); nothing was sent",
                el.r
            ),
        )
        .with_hint("Click the element first (a separate step), or send keys without a ref to the focused element.")),
        (true, None) => Err(Error::new(
            ErrorCode::ForegroundRequired,
            format!("{} did not take the keyboard focus within {} ms; nothing was sent", el.r, SETTLE.as_millis()),
        )),
    }
}

/// `typeText` through the keyboard: into `el` (focused first) or into the focused element.
/// Verified by reading the text before the caret of the focused editable element afterwards.
pub(crate) async fn type_text(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: Option<&Element<'_>>,
    text_in: &str,
) {
    if el.is_none() {
        r.grounding.method = GroundingMethod::Focus;
    }
    if ctx.headless {
        return needs_foreground(
            r,
            if el.is_some() {
                "the element offers no EditableText interface, so the text would have to be typed"
            } else {
                "typeText without a ref types on the keyboard"
            },
        );
    }
    if el.is_none() {
        r.grounding.method = GroundingMethod::Focus;
    }
    let held = match exclusive(ctx).await {
        Ok(h) => h,
        Err(err) => return failed(ctx, r, err),
    };
    if let Some(el) = el {
        if let Err(err) = focus_for_keys(ctx, el).await {
            r.error = Some(err);
            return;
        }
    }
    let mut w = watch_app(ctx).await;
    let send = Send::Type(text_in.to_string());
    match deliver_held(ctx, &held, Aim::Keyboard, send.clone()).await {
        Ok(sent) => record(ctx, r, &send, &sent),
        Err(e) => return failed(ctx, r, e),
    }
    drop(held);
    // Let the app process the last keys before reading back.
    if let Some(w) = w.as_mut() {
        w.quiet(Duration::from_millis(200)).await;
    }
    let typed: String = text_in.chars().filter(|c| *c != '\r').collect();
    let n = typed.chars().count() as i32;
    let mut candidates = focus_candidates(ctx, el, &went_to(w.as_ref()));
    let mut found = typed_before_caret(ctx, &candidates, &typed).await;
    // Lines typed with Return are read back where they went (below), not before one caret.
    // Nothing read back yet: the app may not have reacted within the first quiet (Calc's
    // first key makes the cell editor, which is slow on a busy machine), so it gets one more
    // settle whether or not events came yet.
    let retry = match found {
        Some((_, read, _)) => !read,
        None => !typed.contains('\n') && w.is_some(),
    };
    if let Some(w) = w.as_mut().filter(|_| retry) {
        // The toolkit may still be inserting (GTK 4 batches), or still making the element the
        // keys go to (Calc's cell editor takes the focus after its first burst of events): one
        // more settle, and look again where the events now say.
        w.quiet(SETTLE).await;
        candidates = focus_candidates(ctx, el, &went_to(Some(&*w)));
        found = typed_before_caret(ctx, &candidates, &typed).await;
    }
    debug!(
        candidates = candidates.len(),
        ?found,
        "typed text read back"
    );
    r.verification.method = VerificationMethod::ReadBack;
    if typed.contains('\n') && !matches!(found, Some((_, true, _))) {
        // Lines typed with Return may each land in an element of their own (a paragraph, the
        // next cell): read them back where they went.
        let sources = w.as_ref().map(text_sources).unwrap_or_default();
        let typed_into = typed_into(ctx, el);
        if let Some(detail) = read_back_lines(ctx, &typed_into, &candidates, &sources, &typed).await
        {
            r.verification.passed = Some(true);
            r.verification.detail = Some(detail);
            return;
        }
    }
    match found {
        Some((o, true, caret)) => {
            r.verification.passed = Some(true);
            let at = ctx
                .state
                .snapshot
                .nodes
                .iter()
                .position(|nd| nd.handle == o.to_string())
                .map(|i| format!(" of {}", ctx.state.ref_of(i)))
                .unwrap_or_default();
            r.verification.detail = Some(format!(
                "the {n} characters before the caret{at} (now at {caret}) are the typed text"
            ));
        }
        Some((_, false, caret)) => {
            r.verification.detail = Some(format!(
                "the text before the caret (at {caret}) of the focused element differs from what was typed (auto-indent, completion, or input that went elsewhere)"
            ));
        }
        None => {
            let d = match w.as_ref().filter(|w| w.reacted()) {
                Some(w) => format!(
                    "no focused text element to read back; {}",
                    w.describe(ctx.state)
                ),
                None => "no focused text element to read back, and no reaction from the app".into(),
            };
            r.verification.method = VerificationMethod::Event;
            r.verification.detail = Some(d);
        }
    }
}

/// Where the step's events say keys went: objects whose text changed, then those that took
/// the focus (Calc's cell editor is made as the first key lands: no state has it yet).
fn went_to(w: Option<&verify::Watch<'_>>) -> Vec<Obj> {
    let Some(w) = w else {
        return Vec::new();
    };
    let mut out = text_sources(w);
    for o in &w.focus_objects {
        if !out.contains(o) {
            out.push(o.clone());
        }
    }
    out
}

/// The first focused candidate with a caret and text before it: the element, whether the
/// text before its caret is `typed`, and the caret. `None` when no candidate has the focus
/// and a caret (a focused element without them, Calc's active cell while its editor takes the
/// keys, is not where they went).
async fn typed_before_caret(
    ctx: &Ctx<'_>,
    candidates: &[Obj],
    typed: &str,
) -> Option<(Obj, bool, i32)> {
    let c = &ctx.caller;
    let n = typed.chars().count() as i32;
    for o in candidates {
        let Ok(Some(now)) = verify::read(c, o).await else {
            continue;
        };
        if !now.states.has(st::FOCUSED) || !ctx.att.memo.has_text(c, o).await {
            continue;
        }
        let Some(caret) = text::caret_offset(c, o).await.ok().filter(|&k| k >= 0) else {
            continue;
        };
        let Ok(got) = text::text(c, o, (caret - n).max(0), caret).await else {
            continue;
        };
        return Some((o.clone(), got == typed, caret));
    }
    None
}

/// Objects whose text changed during the step (where typed lines may have gone), first seen
/// first.
fn text_sources(w: &verify::Watch<'_>) -> Vec<Obj> {
    let mut out: Vec<Obj> = Vec::new();
    for ev in w.seen.iter().filter(|e| &*e.member == "TextChanged") {
        let o = Obj::new(&*ev.sender, &*ev.path);
        if !out.contains(&o) {
            out.push(o);
        }
        if out.len() >= FOCUS_SCAN {
            break;
        }
    }
    out
}

/// Reads back text typed with line breaks: the first line must end the text of the element
/// typed into (`typed_into`, or a text source), and a non-empty last line must stand before
/// the caret of the element that has the focus now (a source or a candidate). A detail naming
/// what was read, or `None` when either is not found.
async fn read_back_lines(
    ctx: &Ctx<'_>,
    typed_into: &[Obj],
    candidates: &[Obj],
    sources: &[Obj],
    typed: &str,
) -> Option<String> {
    let c = &ctx.caller;
    let first = typed.split('\n').next().unwrap_or_default();
    let last = typed.rsplit('\n').next().unwrap_or_default();
    let first_len = first.chars().count() as i32;
    let mut first_in = None;
    for o in typed_into.iter().chain(sources) {
        if !ctx.att.memo.has_text(c, o).await {
            continue;
        }
        let Ok(count) = text::character_count(c, o).await else {
            continue;
        };
        let Ok(got) = text::text(c, o, (count - first_len).max(0), count).await else {
            continue;
        };
        if !first.is_empty() && got.trim_end_matches('\n') == first {
            first_in = Some(o.clone());
            break;
        }
    }
    let first_in = first_in?;
    let last_ok = if last.is_empty() {
        true
    } else {
        let n = last.chars().count() as i32;
        let mut ok = false;
        for o in sources.iter().chain(candidates) {
            let Ok(Some(now)) = verify::read(c, o).await else {
                continue;
            };
            if !now.states.has(st::FOCUSED) || !ctx.att.memo.has_text(c, o).await {
                continue;
            }
            let Ok(caret) = text::caret_offset(c, o).await else {
                continue;
            };
            if text::text(c, o, (caret - n).max(0), caret)
                .await
                .ok()
                .as_deref()
                == Some(last)
            {
                ok = true;
                break;
            }
        }
        ok
    };
    if !last_ok {
        return None;
    }
    let nodes = &ctx.state.snapshot.nodes;
    let at = nodes
        .iter()
        .position(|nd| nd.handle == first_in.to_string())
        .map(|i| format!(" of {}", ctx.state.ref_of(i)))
        .unwrap_or_default();
    let returns = typed.matches('\n').count();
    Some(if last.is_empty() {
        format!(
            "typed with {returns} Return(s): the first line ends the text{at}; the input moved on"
        )
    } else {
        format!(
            "typed with {returns} Return(s): the first line ends the text{at}, the last stands before the caret of the element focused now"
        )
    })
}

/// Where keys typed without a new focus went first: the given element, else the elements the
/// state says are focused (Calc's active cell, where its editor puts the first line).
fn typed_into(ctx: &Ctx<'_>, el: Option<&Element<'_>>) -> Vec<Obj> {
    if let Some(el) = el {
        return vec![el.obj.clone()];
    }
    let nodes = &ctx.state.snapshot.nodes;
    nodes
        .iter()
        .filter(|n| n.has_state(StateFlag::Focused))
        .filter_map(|n| Obj::from_handle(&n.handle))
        .take(FOCUS_SCAN)
        .collect()
}

/// Elements that may hold the focus, best first: the given one, those the step's events named
/// (`went_to`), the state's focused elements, then editable text elements of the state.
fn focus_candidates(ctx: &Ctx<'_>, el: Option<&Element<'_>>, went_to: &[Obj]) -> Vec<Obj> {
    let mut out: Vec<Obj> = Vec::new();
    if let Some(el) = el {
        out.push(el.obj.clone());
    }
    for o in went_to {
        if !out.contains(o) {
            out.push(o.clone());
        }
    }
    let nodes = &ctx.state.snapshot.nodes;
    // Every focused element of the state (a window, a pane, Calc's active cell and its
    // editor's paragraph all say focused), then editable ones.
    let focused = nodes.iter().filter(|n| n.has_state(StateFlag::Focused));
    let editable = nodes.iter().filter(|n| {
        matches!(n.role, Role::Text | Role::Terminal) || n.has_state(StateFlag::Editable)
    });
    for n in focused.chain(editable) {
        if out.len() >= FOCUS_SCAN {
            break;
        }
        if let Some(o) = Obj::from_handle(&n.handle) {
            if !out.contains(&o) {
                out.push(o);
            }
        }
    }
    out
}
