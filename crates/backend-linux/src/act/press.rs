//! Steps done through the element's `Action` interface: `press`, `check`/`uncheck`,
//! `expand`/`collapse`. The action is picked by name in a fixed priority, never by platform
//! order; when the element offers none, nothing was sent and the step may click its centre
//! instead (unless headless). The effect is judged on the element itself first, then by the
//! application's reaction (`verify.rs`).

use std::time::Instant;
use uidriver_core::{DeliveryMethod, VerificationMethod};

use uidriver_core::{Delivery, ElementRef, Error, ErrorCode, Role, StepReport};

use super::deliver::Send;
use super::landing::{Landing, Scope};
use super::verify::{self, Reading, Watch, QUIET, SETTLE};
use super::{
    live, needs_foreground, nothing_to_send, pick_action, refuse, Ctx, Element, Live, RefAim,
};
use crate::atspi::{accessible, action, state as st, Obj};
use crate::error::LinuxError;
use uidriver_core::action::Button;

/// Action names that activate an element, in priority order (GTK 3 buttons `click`, entries
/// `activate`, combo boxes `press`, switches `toggle`; GTK 4 buttons `click`).
const PRESS: &[&str] = &[
    "activate", "click", "press", "toggle", "open", "jump", "invoke", "select",
];
/// Actions that flip a checkable element.
const TOGGLE: &[&str] = &["toggle", "click", "press", "activate"];
const EXPAND: &[&str] = &[
    "expand",
    "expand or contract",
    "open",
    "toggle",
    "press",
    "click",
    "activate",
];
const COLLAPSE: &[&str] = &[
    "collapse",
    "expand or contract",
    "close",
    "toggle",
    "press",
    "click",
    "activate",
];

/// Records a `DoAction`: `true` is delivered; an unsupported method sent nothing; anything else
/// may have reached the app. Returns whether verification should follow.
fn record_action(r: &mut StepReport, name: &str, result: Result<bool, LinuxError>) -> bool {
    r.delivery.method = DeliveryMethod::SemanticAction;
    r.delivery.detail = Some(format!("{name:?}"));
    match result {
        Ok(true) => {
            r.delivery.delivered = Delivery::Delivered;
            true
        }
        Ok(false) => {
            // The toolkit said no; at-spi2-atk answers before acting, so this is rare and
            // nothing proves the action did not start: check, but never claim delivery.
            r.delivery.delivered = Delivery::Maybe;
            true
        }
        Err(e) if matches!(e, LinuxError::Unsupported { .. }) => {
            r.delivery.delivered = Delivery::NotDelivered;
            r.error = Some(Error::from(e));
            false
        }
        Err(e) if e.is_gone() => {
            // The app may have acted and exited (a dialog's OK) before answering.
            r.delivery.delivered = Delivery::Maybe;
            true
        }
        Err(e) => {
            r.delivery.delivered = Delivery::Maybe;
            r.error = Some(Error::from(e).delivered(Delivery::Maybe));
            false
        }
    }
}

fn disabled(l: &Live) -> bool {
    !l.reading.states.has(st::SENSITIVE) && !l.reading.states.has(st::ENABLED)
}

/// Whether a disabled element becomes enabled within [`SETTLE`] (a dialog enables its Save
/// button a moment after its name field was filled). Updates `l.reading` when it does.
async fn enabled_soon(ctx: &Ctx<'_>, el: &Element<'_>, l: &mut Live) -> bool {
    if !disabled(l) {
        return true;
    }
    let c = &ctx.caller;
    let mut w = Watch::start(&ctx.att.events, &el.obj.bus, None, None, None).await;
    let now = w
        .until(SETTLE, || async {
            match verify::read(c, &el.obj).await {
                Ok(Some(r)) if r.states.has(st::SENSITIVE) || r.states.has(st::ENABLED) => Some(r),
                _ => None,
            }
        })
        .await;
    match now {
        Some(r) => {
            l.reading = r;
            true
        }
        None => false,
    }
}

/// `press`: the element's activating action, verified on the element and by the app's events.
pub(crate) async fn press(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef) {
    let el = match ctx.pointer_ref(r, e) {
        Some(RefAim::Live(el)) => el,
        Some(RefAim::Pixels(p)) => {
            // Known only from pixels (OCR): there is nothing semantic to press.
            if ctx.headless {
                return needs_foreground(
                    r,
                    "this element is known only from the image, so pressing it is a click",
                );
            }
            return super::pointer::click_pixels(ctx, r, p, Button::Left, 1).await;
        }
        None => return,
    };
    if ctx.headless && opens_a_dialog_inside_action(ctx, &el) {
        r.delivery.delivered = Delivery::NotDelivered;
        r.error = Some(
            Error::new(
                ErrorCode::ForegroundRequired,
                format!("{} opens a dialog (its name ends with an ellipsis), and GTK 3 runs a menu item's dialog inside its action call, which would block the app's accessibility until the dialog closed; nothing was sent", el.r),
            )
            .with_hint("Press it with headless: false: the item is then clicked, as a person would, and the dialog opens without blocking the app."),
        );
        return;
    }
    let Ok(opened) = super::menu::open_menus_above(ctx, r, &el).await else {
        return;
    };
    press_live(ctx, r, &el, &opened).await;
    opened.close_left_open(ctx).await;
}

/// `press` on a live element, whose menus (if any) are open.
async fn press_live(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: &Element<'_>,
    opened: &super::menu::Opened,
) {
    let e = el.r;
    let mut l = match live(&ctx.caller, el).await {
        Ok(l) => l,
        Err(err) => return r.error = Some(err),
    };
    if !enabled_soon(ctx, el, &mut l).await {
        return refuse(r, ErrorCode::NotSupported, format!("{e} is disabled"));
    }
    if runs_dialogs_inside_action(ctx, el, &l) {
        // GTK 3 runs a button's or menu item's handler inside its action call, and a dialog it
        // runs would block the app's accessibility until it closed.
        let why = "a GTK 3 action would run its dialogs inside the call";
        super::pointer::click_element(ctx, r, el, Send::Click(Button::Left, 1), Some(why)).await;
        note_opened(r, opened);
        return;
    }
    let acted = do_named_action(ctx, r, el, &l, PRESS, "press").await;
    note_opened(r, opened);
    match acted {
        Acted::Watch(mut w) => {
            observe_effect(ctx, r, el, &l.reading, &mut w, Reached::Action).await;
        }
        Acted::Nested(n) if n.recovered && !ctx.headless && l.reading.states.has(st::SHOWING) => {
            // The dialog was closed again and the app answers: open it as a person would.
            let why = format!(
                "its action ran the modal window \"{}\" inside the call (closed again, the app answering)",
                n.title
            );
            r.error = None;
            super::pointer::click_element(ctx, r, el, Send::Click(Button::Left, 1), Some(&why))
                .await;
        }
        Acted::Nested(_) | Acted::Settled => {}
    }
}

fn note_opened(r: &mut StepReport, opened: &super::menu::Opened) {
    if let Some(note) = opened.note() {
        let how = r.delivery.detail.take().unwrap_or_default();
        r.delivery.detail = Some(format!("{how} {note}"));
    }
}

/// Whether pressing `el` through its action could hang its app, and a click can be sent
/// instead: a GTK 3 button (tool bar and header bar buttons are buttons) or menu item on
/// screen, with input allowed. GTK 3 runs the control's handler inside the `DoAction` call,
/// whatever its name, so a handler that runs a modal dialog (mousepad's tool bar Save, Thunar's
/// "Create Folder…") runs the dialog's loop inside it: the app answers no accessibility call
/// until the dialog closes, and a key pressed meanwhile freezes it for good (`nested.rs`). A
/// click opens the dialog as a person's would. Where the action is sent (headless, or another
/// control), a dialog run inside the call is closed again (`nested.rs`), and under headless an
/// item named with an ellipsis is refused before (`opens_a_dialog_inside_action`).
fn runs_dialogs_inside_action(ctx: &Ctx<'_>, el: &Element<'_>, l: &Live) -> bool {
    ctx.toolkit() == crate::roots::Toolkit::Gtk3
        && !ctx.headless
        && (super::menu::is_menu_item(el.node.role) || el.node.role == Role::Button)
        && l.reading.states.has(st::SHOWING)
}

/// Whether `el` is a GTK 3 menu item that says it opens a dialog: its name ends with an
/// ellipsis, as GNOME's and Xfce's do ("Create Folder…", "Save Contents…").
fn opens_a_dialog_inside_action(ctx: &Ctx<'_>, el: &Element<'_>) -> bool {
    let name = el.node.name.text().unwrap_or_default().trim_end();
    ctx.toolkit() == crate::roots::Toolkit::Gtk3
        && super::menu::is_menu_item(el.node.role)
        && (name.ends_with('…') || name.ends_with("..."))
}

/// Does the first action of `names` that the element offers, watching its app. When it offers
/// none, nothing was sent, so clicking its centre is a safe first attempt (`what` names the
/// missing action in the report). The watch comes back when an action was delivered and its
/// effect is to be verified; a modal window the app ran inside the call is closed again and
/// recorded as the step's failure (`nested.rs`).
async fn do_named_action<'c>(
    ctx: &'c Ctx<'_>,
    r: &mut StepReport,
    el: &Element<'_>,
    l: &Live,
    names: &[&str],
    what: &str,
) -> Acted<'c> {
    let Some((index, name)) = pick_action(&l.actions, names) else {
        let why = format!("it offers no {what} action");
        super::pointer::click_element(ctx, r, el, Send::Click(Button::Left, 1), Some(&why)).await;
        return Acted::Settled;
    };
    let before = super::windows_now(ctx).await.unwrap_or_default();
    let w = ctx.watch(&el.obj.bus).await;
    let result = action::do_action(&ctx.caller, &el.obj, index).await;
    let unanswered = matches!(&result, Err(e) if e.is_unresponsive());
    if !record_action(r, &name, result) {
        if unanswered {
            if let Some(title) = super::nested::waits_on_window(ctx, &el.obj.bus, &before).await {
                // Qt runs the dialog's loop inside the action call and serves the bus
                // meanwhile: the call answers when the dialog closes. The action ran.
                r.error = None;
                r.delivery.delivered = Delivery::Delivered;
                r.delivery.detail = Some(format!(
                    "{name:?} (its answer waits for the window \"{title}\" it opened, whose loop runs inside the call; the app answers meanwhile)"
                ));
                return Acted::Watch(w);
            }
        }
        return Acted::Settled;
    }
    match super::nested::end_nested_loop(ctx, &el.obj.bus, &before).await {
        None => Acted::Watch(w),
        Some(n) => {
            record_nested(ctx, r, el, &n);
            Acted::Nested(n)
        }
    }
}

/// What an action call came to: its effect to verify, a modal window it ran inside the call
/// (closed again, `nested.rs`), or a step already settled (clicked instead, or failed).
enum Acted<'c> {
    Watch(Watch<'c>),
    Nested(super::nested::Nested),
    Settled,
}

/// The step's failure after its action ran a modal window inside the call: delivered (the
/// handler ran, and its dialog was cancelled), with what to do instead.
fn record_nested(ctx: &Ctx<'_>, r: &mut StepReport, el: &Element<'_>, n: &super::nested::Nested) {
    let ran = format!(
        "{}'s action ran the modal window \"{}\" inside the action call (the toolkit runs the control's handler inside it): the app answers no accessibility call while that window is open, and a key pressed into it freezes the app for good",
        el.r, n.title
    );
    let e = if n.recovered {
        let code = if ctx.headless {
            ErrorCode::ForegroundRequired
        } else {
            ErrorCode::NotSupported
        };
        Error::new(code, format!("{ran}; so it was closed again (as its Cancel would), and the app answers"))
            .with_hint("Press it with headless: false: it is then clicked, as a person would, and its dialog opens without blocking the app.")
    } else {
        Error::new(
            ErrorCode::AppUnresponsive,
            format!("{ran}; it was asked to close, and the app has not answered since"),
        )
        .with_hint("Send no keys to the app; close the window with close_root, then look again.")
    };
    r.error = Some(e.delivered(Delivery::Delivered));
}

/// How a step reached its element: an action called on it, whose every reaction is its
/// effect, or a click at its centre, whose reactions count only where they are the element's
/// (`landing.rs`).
pub(crate) enum Reached<'s> {
    Action,
    /// `focus_counts`: a focus move into the element is evidence (it did not have the focus,
    /// and its window needed no activation, which restores a focus by itself).
    /// `on_focused`: the element held the focus, and the click point is inside its box with
    /// no other element's over it.
    Click {
        landing: Landing,
        scope: &'s Scope,
        focus_counts: bool,
        on_focused: bool,
    },
}

impl Reached<'_> {
    /// Whether the app's reactions so far are evidence for the element.
    fn evidence(&self, w: &Watch<'_>) -> bool {
        match self {
            Reached::Action => w.reacted(),
            Reached::Click {
                landing,
                scope,
                focus_counts,
                ..
            } => {
                w.reacted_in(scope)
                    || (w.reacted()
                        && (matches!(landing, Landing::On(_))
                            || (*focus_counts && w.focused_in(scope))))
            }
        }
    }
}

/// Waits for a step's effect on `el` or in its app (see `verify.rs` for what counts) and
/// records the verification.
pub(crate) async fn observe_effect(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: &Element<'_>,
    before: &Reading,
    w: &mut Watch<'_>,
    mut how: Reached<'_>,
) {
    enum Seen {
        Gone,
        Changed(String),
    }
    let c = &ctx.caller;
    let push_button = el.node.role == Role::Button;
    let check = || async {
        match verify::read(c, &el.obj).await {
            Ok(None) => Some(Seen::Gone),
            Ok(Some(now)) => {
                verify::lasting_difference(before, &now, push_button).map(Seen::Changed)
            }
            Err(_) => None,
        }
    };
    let end = Instant::now() + SETTLE;
    let mut seen = check().await;
    let mut at = w.started.elapsed();
    while seen.is_none() && !how.evidence(w) {
        if Instant::now() >= end {
            break;
        }
        let tick = (Instant::now() + std::time::Duration::from_millis(50)).min(end);
        w.next(tick).await;
        seen = check().await;
        at = w.started.elapsed();
    }
    if seen.is_none() && w.reacted() {
        // The app reacted: let the burst finish, then look at the element once more (a check
        // box flips a moment after its state-change event reaches us).
        w.quiet(SETTLE).await;
        seen = check().await;
        at = w.started.elapsed();
    } else if seen.is_some() {
        // A click's landing is rechecked by the events that follow: its step waits them out.
        let click = matches!(how, Reached::Click { .. });
        w.aftermath(QUIET * 3, !click).await;
    } else {
        w.quiet(QUIET * 3).await;
    }
    if let Reached::Click { landing, scope, .. } = &mut how {
        super::landing::recheck(ctx, el, landing, w, scope).await;
    }
    r.verification.method = VerificationMethod::State;
    match seen {
        Some(Seen::Gone) => {
            r.verification.passed = Some(true);
            let app_gone =
                accessible::role(c, &Obj::new(el.obj.bus.clone(), crate::atspi::ROOT_PATH))
                    .await
                    .is_err_and(|e| e.is_app_gone());
            r.verification.detail = Some(if app_gone {
                format!("{} and its application are gone (the app exited)", el.r)
            } else {
                format!("{} is gone (its window or panel closed)", el.r)
            });
        }
        Some(Seen::Changed(d)) => {
            r.verification.passed = Some(true);
            r.verification.detail =
                Some(format!("{}: {d} (after {} ms)", el.r, verify::millis(at)));
        }
        None if w.reacted() => {
            w.await_window_if_building().await;
            r.verification.method = VerificationMethod::Event;
            r.verification.detail = Some(reaction_detail(ctx, el, w, &how));
            if how.evidence(w) {
                r.verification.passed = Some(true);
            } else if landed_on_focused(&how, before) {
                // The reactions are elsewhere (a spreadsheet's name box follows the cell), but
                // the click reached the element that holds the focus: all a click can do.
                r.verification.method = VerificationMethod::State;
                r.verification.passed = Some(true);
                r.verification.detail = Some(format!(
                    "the click landed on {}, which holds the focus; {}",
                    el.r,
                    r.verification.detail.take().unwrap_or_default()
                ));
            }
        }
        None if root_closed(ctx).await => {
            r.verification.method = VerificationMethod::RootChange;
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!(
                "the root's window closed (the app sent no events, and {} still answers)",
                el.r
            ));
        }
        None if landed_on_focused(&how, before) => {
            // All a click can do to an element that holds the focus is put the caret or the
            // selection where it already is.
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!(
                "the click landed on {}, which already had the focus: nothing more for a click on it to change",
                el.r
            ));
        }
        None => {
            let mut d = format!(
                "nothing observable changed within {} ms: {} shows no change and the app sent no events (a press whose effect is elsewhere needs expect to be confirmed)",
                SETTLE.as_millis(),
                el.r
            );
            if let Some(n) = w.busy_note() {
                d = format!("{d}; {n}");
            }
            r.verification.detail = Some(d);
        }
    }
}

/// Whether a click landed on an element that already held the focus (a
/// spreadsheet's current cell, a focused editor): by the toolkit's hit test, or, where its hit
/// test stops above the element (GTK 3 does not drill into a notebook's page), at a point
/// inside the element's box that no other element covers.
fn landed_on_focused(how: &Reached<'_>, before: &Reading) -> bool {
    match how {
        Reached::Click {
            landing,
            on_focused,
            ..
        } => {
            before.states.has(st::FOCUSED)
                && match landing {
                    Landing::On(_) => true,
                    Landing::Unknown => *on_focused,
                    Landing::Elsewhere(_) => false,
                }
        }
        Reached::Action => false,
    }
}

/// Whether the root's window closed silently; a dialog's is given one more settle to close.
async fn root_closed(ctx: &Ctx<'_>) -> bool {
    // A window hidden before the step (minimized) was not closed by it.
    if ctx.target.info.hidden {
        return false;
    }
    let end = Instant::now() + SETTLE;
    loop {
        if super::root_window_closed(ctx).await {
            return true;
        }
        let dialog = ctx.target.info.kind == uidriver_core::RootKind::Dialog;
        if !dialog || Instant::now() >= end {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The app's reaction in words; for a click, whether it is the element's, and if not, why it
/// proves nothing.
fn reaction_detail(ctx: &Ctx<'_>, el: &Element<'_>, w: &Watch<'_>, how: &Reached<'_>) -> String {
    let Reached::Click {
        landing,
        scope,
        focus_counts,
        ..
    } = how
    else {
        return w.describe(ctx.state);
    };
    let events = w.describe_first(ctx.state, Some(scope));
    if how.evidence(w) {
        let landed = match landing.note(el) {
            Some(n) if matches!(landing, Landing::On(_)) => Some(n),
            _ if *focus_counts && w.focused_in(scope) => {
                Some(format!("the focus moved to {}", el.r))
            }
            _ => None,
        };
        return match landed {
            Some(l) => format!("{l}; {events}"),
            None => events,
        };
    }
    let mut d = format!(
        "{events}, but none of it is on {} or what it holds, so it does not show the click reached it",
        el.r
    );
    if let Some(n) = landing.note(el) {
        d.push_str(&format!("; {n}"));
    }
    d.push_str(" (expect confirms an effect elsewhere)");
    if let Some(n) = w.busy_note() {
        d = format!("{d}; {n}");
    }
    d
}

fn checkable(el: &Element<'_>, l: &Live) -> bool {
    matches!(
        el.node.role,
        Role::CheckBox
            | Role::CheckMenuItem
            | Role::RadioButton
            | Role::RadioMenuItem
            | Role::ToggleButton
            | Role::Switch
    ) || l.reading.states.has(st::CHECKABLE)
        || l.reading.states.has(st::CHECKED)
}

/// `check` / `uncheck`: sends nothing when the state already matches; otherwise toggles and
/// waits until the checked state reads back as wanted.
pub(crate) async fn set_checked(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef, want: bool) {
    let Some((el, mut l)) = ctx.live_element(r, e).await else {
        return;
    };
    if !checkable(&el, &l) {
        return refuse(
            r,
            ErrorCode::NotSupported,
            format!("{e} is not a check box, switch, radio or toggle button"),
        );
    }
    let word = if want { "checked" } else { "unchecked" };
    let now = l.reading.states.has(st::CHECKED);
    r.verification.method = VerificationMethod::State;
    if now == want {
        return nothing_to_send(r, format!("{e} was already {word}"));
    }
    if !want && matches!(el.node.role, Role::RadioButton | Role::RadioMenuItem) {
        return refuse(
            r,
            ErrorCode::NotSupported,
            format!("{e} is a radio button: it is unchecked by choosing another option"),
        );
    }
    if !enabled_soon(ctx, &el, &mut l).await {
        return refuse(r, ErrorCode::NotSupported, format!("{e} is disabled"));
    }
    let Acted::Watch(mut w) = do_named_action(ctx, r, &el, &l, TOGGLE, "toggle").await else {
        return;
    };
    let c = &ctx.caller;
    let got = w
        .until(SETTLE, || async {
            match verify::read(c, &el.obj).await {
                Ok(Some(now)) if now.states.has(st::CHECKED) == want => Some(()),
                _ => None,
            }
        })
        .await;
    w.settle(got.is_some()).await;
    match got {
        Some(()) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!("{e} reads back {word}{}", w.after()));
        }
        None => {
            r.verification.detail = Some(format!(
                "{e} still reads {} after {} ms",
                if want { "unchecked" } else { "checked" },
                SETTLE.as_millis()
            ));
        }
    }
}

/// Whether an element is expanded: its `expanded` state, or (GTK 3 combo boxes, which never
/// set it) whether its popup menu child is showing.
async fn expanded(ctx: &Ctx<'_>, el: &Element<'_>, reading: &Reading) -> Option<bool> {
    if reading.states.has(st::EXPANDED) {
        return Some(true);
    }
    if el.node.role == Role::ComboBox {
        let c = &ctx.caller;
        if let Ok(Some(menu)) = accessible::child_at(c, &el.obj, 0).await {
            if let Ok(s) = accessible::states(c, &menu).await {
                return Some(s.has(st::SHOWING));
            }
        }
        return None;
    }
    Some(false)
}

/// `expand` / `collapse`: nothing sent when already in that state.
pub(crate) async fn set_expanded(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef, want: bool) {
    let Some((el, l)) = ctx.live_element(r, e).await else {
        return;
    };
    let s = l.reading.states;
    let expandable = s.has(st::EXPANDABLE)
        || s.has(st::EXPANDED)
        || s.has(st::COLLAPSED)
        || el.node.role == Role::ComboBox
        || pick_action(&l.actions, &["expand or contract", "expand", "collapse"]).is_some();
    if !expandable {
        return refuse(r, ErrorCode::NotSupported, format!("{e} does not expand"));
    }
    let word = if want { "expanded" } else { "collapsed" };
    r.verification.method = VerificationMethod::State;
    if expanded(ctx, &el, &l.reading).await == Some(want) {
        return nothing_to_send(r, format!("{e} was already {word}"));
    }
    let names = if want { EXPAND } else { COLLAPSE };
    let Acted::Watch(mut w) = do_named_action(ctx, r, &el, &l, names, "expand").await else {
        return;
    };
    let c = &ctx.caller;
    let el_ref = &el;
    let got = w
        .until(SETTLE, || async move {
            let now = verify::read(c, &el_ref.obj).await.ok().flatten()?;
            (expanded(ctx, el_ref, &now).await == Some(want)).then_some(())
        })
        .await;
    w.settle(got.is_some()).await;
    match got {
        Some(()) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!("{e} reads back {word}{}", w.after()));
        }
        None => {
            r.verification.detail = Some(format!(
                "{e} does not read {word} after {} ms",
                SETTLE.as_millis()
            ))
        }
    }
}
