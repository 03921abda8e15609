//! The one path all physical input takes:
//!
//! 1. policy: `headless: true` refuses here, before anything else (`foreground_required`);
//! 2. the process input lock (`InputLock`), then the machine-wide interaction lease (a lock
//!    file per display, `lease.rs`), so neither another lane nor another uidriver process can
//!    interleave input; the lease covers delivery only;
//! 3. grounding again under the lease: an element's centre comes from its *live* extents (it
//!    may have moved since the state was observed); image points must still match the image's
//!    window geometry (the frame lease, `gui_frame_stale` otherwise);
//! 4. on the input X11 thread, in one job: activate the root's window and wait until it is
//!    active and focused; hit-test the first point (the top-most window there must be the
//!    target or a surface of its own, else `gui_frame_stale`); then send the input.
//!
//! Failures before the input is sent are `not_delivered`; a failure while sending is `maybe`.
//! Nothing here is ever retried. The steps themselves are `pointer.rs` and `keyboard.rs`.

use std::time::{Duration, Instant};
use uidriver_core::VerificationMethod;

use uidriver_core::action::{Button, KeyChord, Point};
use uidriver_core::{Bounds, Delivery, Error, ErrorCode, Role, StepReport};

use super::verify::{Watch, SETTLE};
use super::{Ctx, Element};
use crate::atspi::{component, Obj};
use crate::error::LinuxError;
use crate::lease;
use crate::roots::Toolkit;
use crate::x11::window::{Activation, Hit, HitTarget};

/// How long the window manager may take to activate a window (openbox on Xvfb: 10–60 ms
/// usually; up to ~0.8 s seen while two GTK apps and a build shared the two cores).
const ACTIVATE_TIMEOUT: Duration = Duration::from_secs(2);
/// Pause after an activation before keys, so the toolkit has handled its FocusIn.
const FOCUS_SETTLE: Duration = Duration::from_millis(30);

/// Where input goes.
pub(crate) enum Aim<'a> {
    /// Keys to whatever has the focus in the root's window.
    Keyboard,
    /// The centre of an element (extents read again under the lease), then more points.
    Element(&'a Element<'a>, Vec<(i32, i32)>),
    /// Screen points mapped from the state's image.
    Points(Vec<(i32, i32)>),
}

/// The input itself.
#[derive(Clone, Debug)]
pub(crate) enum Send {
    Click(Button, u8),
    Move,
    Scroll(i32, i32),
    Drag(Button),
    Keys(Vec<KeyChord>),
    Type(String),
}

impl Send {
    fn describe(&self) -> String {
        match self {
            Send::Click(b, n) => {
                let b = match b {
                    Button::Left => "left",
                    Button::Middle => "middle",
                    Button::Right => "right",
                };
                match n {
                    1 => format!("{b} click"),
                    2 => format!("{b} double click"),
                    _ => format!("{b} triple click"),
                }
            }
            Send::Move => "pointer motion".into(),
            Send::Scroll(dx, dy) => format!("wheel {dx},{dy}"),
            Send::Drag(_) => "drag".into(),
            Send::Keys(k) if k.len() == 1 => "1 key chord".to_string(),
            Send::Keys(k) => format!("{} key chords", k.len()),
            Send::Type(t) => format!("{} characters typed", t.chars().count()),
        }
    }
}

/// What delivery did.
pub(crate) struct Sent {
    /// Screen points used.
    pub points: Vec<(i32, i32)>,
    /// What activation had to do (None: no window to activate).
    pub activation: Option<Activation>,
}

enum JobEnd {
    Sent(Option<Activation>),
    Refused(ErrorCode, String),
    Failed(LinuxError),
}

/// Exclusive use of the desktop's input: this process's input lock and the machine-wide lease.
/// Anything that may change which window has the keyboard (XTEST, and `GrabFocus`, which GTK 3
/// answers by raising the window) happens while one is held.
pub(crate) struct Exclusive<'a> {
    _input: tokio::sync::MutexGuard<'a, ()>,
    _lease: lease::Lease,
}

/// Takes the input lock, then the lease (waiting for other processes at most until the
/// deadline). Refused under the headless policy.
pub(crate) async fn exclusive<'a>(ctx: &'a Ctx<'_>) -> Result<Exclusive<'a>, Error> {
    if ctx.headless {
        return Err(Error::new(
            ErrorCode::ForegroundRequired,
            "physical input is forbidden by headless: true; nothing was sent",
        ));
    }
    let display = ctx.backend.seat_name();
    let input = ctx.input.hold().await;
    let lease = lease::acquire(&display, ctx.deadline).await?;
    Ok(Exclusive {
        _input: input,
        _lease: lease,
    })
}

/// Delivers `send` at `aim`: lock, lease, live grounding, activation, hit test, input. On error
/// the returned error carries the delivery disposition.
pub(crate) async fn deliver(ctx: &Ctx<'_>, aim: Aim<'_>, send: Send) -> Result<Sent, Error> {
    let held = exclusive(ctx).await?;
    deliver_held(ctx, &held, aim, send).await
}

/// [`deliver`] when the caller already holds the input (it moved the focus first).
pub(crate) async fn deliver_held(
    ctx: &Ctx<'_>,
    _held: &Exclusive<'_>,
    aim: Aim<'_>,
    send: Send,
) -> Result<Sent, Error> {
    let x = ctx
        .backend
        .inner
        .desk_input
        .as_ref()
        .ok_or_else(|| ctx.backend.no_desk("physical input"))?;
    // Grounding again under the lease: whatever was resolved before could have moved.
    // Image points hold only while the window is where the image showed it (the frame lease).
    let image_frame = || {
        ctx.state.image.as_ref().and_then(|img| {
            img.window_id
                .and_then(|w| u32::try_from(w).ok())
                .map(|w| (w, img.screen))
        })
    };
    let (points, frame) = match aim {
        Aim::Keyboard => (Vec::new(), None),
        Aim::Element(el, rest) => {
            let (cx, cy) = element_centre(ctx, el).await?;
            let frame = (!rest.is_empty()).then(image_frame).flatten();
            let mut p = vec![(cx, cy)];
            p.extend(rest);
            (p, frame)
        }
        Aim::Points(p) => (p, image_frame()),
    };
    let hit = points.first().map(|p| {
        (
            *p,
            HitTarget {
                window: ctx.window(),
                pid: ctx.target.info.pid,
            },
        )
    });
    let activate = ctx.window();
    let keyboard = matches!(send, Send::Keys(_) | Send::Type(_));
    let stop = Instant::now() + ctx.deadline.remaining();
    let job_points = points.clone();
    let job_send = send.clone();
    let end = x
        .run(ctx.deadline, move |c| {
            if let Some((w, then)) = frame {
                let now = c.visible_rect(w)?;
                if now != then {
                    return Ok(JobEnd::Refused(
                        ErrorCode::GuiFrameStale,
                        format!("the window is at {now} now, the image showed it at {then}"),
                    ));
                }
            }
            let mut activation = None;
            if let Some(w) = activate {
                let a = c.activate(w, ACTIVATE_TIMEOUT)?;
                if let Activation::Refused { active } = a {
                    let instead = match active {
                        Some(a) => format!("{a:#x} {:?} keeps the focus", title_of(c, a)),
                        None => "no window is active".into(),
                    };
                    return Ok(JobEnd::Refused(
                        ErrorCode::ForegroundRequired,
                        format!("the window manager did not activate window {w:#x} ({instead})"),
                    ));
                }
                if keyboard && a != Activation::Already {
                    std::thread::sleep(FOCUS_SETTLE);
                }
                activation = Some(a);
            }
            if let Some(((px, py), t)) = &hit {
                let h = c.hit_test(*px, *py, t)?;
                if !h.reaches_target() {
                    return Ok(JobEnd::Refused(
                        ErrorCode::GuiFrameStale,
                        covered(&h, *px, *py),
                    ));
                }
            }
            let sent = match &job_send {
                Send::Click(b, n) => {
                    let (px, py) = job_points[0];
                    c.click(px, py, *b, *n)
                }
                Send::Move => {
                    let (px, py) = job_points[0];
                    c.move_to(px, py)
                }
                Send::Scroll(dx, dy) => {
                    let (px, py) = job_points[0];
                    c.scroll(px, py, *dx, *dy)
                }
                Send::Drag(b) => c.drag(&job_points, *b),
                Send::Keys(k) => c.press_chords(k),
                Send::Type(t) => c.type_text_until(t, Some(stop)),
            };
            Ok(match sent {
                Ok(()) => JobEnd::Sent(activation),
                Err(e) => JobEnd::Failed(e),
            })
        })
        .await;
    if matches!(send, Send::Click(..)) {
        ctx.backend.clicked_now();
    }
    match end {
        Ok(JobEnd::Sent(activation)) => Ok(Sent { points, activation }),
        Ok(JobEnd::Refused(code, msg)) => Err(Error::new(code, format!("{msg}; nothing was sent"))),
        Ok(JobEnd::Failed(e)) => Err(Error::from(e).delivered(Delivery::Maybe)),
        // The job may still be running on the X thread.
        Err(LinuxError::Deadline(what)) => Err(Error::new(
            ErrorCode::Timeout,
            format!("the display server did not finish in time ({what})"),
        )
        .delivered(Delivery::Maybe)),
        Err(e) => Err(Error::from(e)),
    }
}

/// A window's title as the window manager lists it (empty when unknown).
fn title_of(c: &mut dyn crate::desk::Desk, w: u32) -> String {
    c.desktop()
        .ok()
        .and_then(|d| d.windows.into_iter().find(|x| x.id == w).map(|x| x.title))
        .unwrap_or_default()
}

fn covered(h: &Hit, px: i32, py: i32) -> String {
    match h {
        Hit::Frame => format!("({px},{py}) is on the window's frame, not its content"),
        Hit::Covered { window, title } if title.is_empty() => {
            format!("window {window:#x} covers ({px},{py})")
        }
        Hit::Covered { window, title } => {
            format!("window {window:#x} {title:?} covers ({px},{py})")
        }
        Hit::Nothing => format!("no window is at ({px},{py})"),
        _ => String::new(),
    }
}

/// Activates the target's window so an element in it can take the keyboard focus (toolkits
/// such as LibreOffice give no element the focus while its window is in the background);
/// whether the window is active now. Never under `headless`: activating steals the focus.
pub(crate) async fn activate_for_keys(ctx: &Ctx<'_>) -> bool {
    let (Some(x), Some(w)) = (ctx.backend.inner.desk_input.as_ref(), ctx.window()) else {
        return false;
    };
    if ctx.headless {
        return false;
    }
    let a = x
        .run(ctx.deadline, move |c| c.activate(w, ACTIVATE_TIMEOUT))
        .await;
    matches!(a, Ok(Activation::Activated(_)))
}

/// The centre of an element's live extents, in screen pixels.
pub(crate) async fn element_centre(ctx: &Ctx<'_>, el: &Element<'_>) -> Result<(i32, i32), Error> {
    element_aim(ctx, el).await.map(|(p, _)| p)
}

/// [`element_centre`], and whether it was corrected off the toolkit's own geometry (a root
/// pane's frame, a GTK 4 popover's surface).
pub(crate) async fn element_aim(
    ctx: &Ctx<'_>,
    el: &Element<'_>,
) -> Result<((i32, i32), bool), Error> {
    let (b, shift, popover) = tokio::join!(
        live_bounds(ctx, &el.obj),
        frame_offset(ctx, el.index),
        gtk4_popover_shift(ctx, el.index)
    );
    let shift = popover.or(shift);
    let corrected = shift.is_some();
    let b = b.map(|b| {
        b.map(|b| match shift {
            Some((dx, dy)) => Bounds::new(b.x + dx, b.y + dy, b.width, b.height),
            None => b,
        })
    });
    let b = b.map_err(|e| {
        if e.is_gone() {
            Error::new(
                ErrorCode::StaleRef,
                format!("{} no longer exists; nothing was sent", el.r),
            )
        } else {
            Error::from(e)
        }
    })?;
    match b {
        Some(b) if b.is_visible() => Ok((b.center(), corrected)),
        _ => Err(Error::new(
            ErrorCode::NotSupported,
            format!(
                "{} has no box on screen to point at; nothing was sent",
                el.r
            ),
        )),
    }
}

/// How far the frame of the root pane enclosing node `index` is off its container, read live
/// (`frames.rs`); `None` when no root pane encloses it or it agrees.
async fn frame_offset(ctx: &Ctx<'_>, index: usize) -> Option<(i32, i32)> {
    let nodes = &ctx.state.snapshot.nodes;
    let (pane, container) = crate::frames::enclosing_root_pane(nodes, index)?;
    let pane = Obj::from_handle(&nodes[pane].handle)?;
    let container = Obj::from_handle(&nodes[container].handle)?;
    let (p, c) = tokio::join!(live_bounds(ctx, &pane), live_bounds(ctx, &container));
    crate::frames::offset(c.ok().flatten(), p.ok().flatten())
}

/// How far GTK 4.8 places what is in a popover from where it is drawn: it reports a popover,
/// and all in it, at its parent widget's place in the window (the Menu button's), while the
/// popover is its own X11 surface elsewhere (a click on gnome-text-editor's "Find/Replace…"
/// landed 90 px beside the menu, and closed it). The popover is the nearest enclosing menu;
/// its surface is the one popup window of its size. `None` outside a popover, or when the
/// surface is not found (the window-relative rule then stands).
async fn gtk4_popover_shift(ctx: &Ctx<'_>, index: usize) -> Option<(i32, i32)> {
    if ctx.toolkit() != Toolkit::Gtk4 {
        return None;
    }
    let nodes = &ctx.state.snapshot.nodes;
    let mut at = nodes[index].parent;
    let popover = loop {
        let i = at?;
        if nodes[i].role == Role::Menu {
            break i;
        }
        at = nodes[i].parent;
    };
    let obj = Obj::from_handle(&nodes[popover].handle)?;
    let (px, py, pw, ph) = component::extents(&ctx.caller, &obj, component::COORD_SCREEN)
        .await
        .ok()?;
    let (sx, sy) = ctx.backend.gtk4_popup_origin(pw, ph, ctx.deadline).await?;
    let (ox, oy) = ctx
        .backend
        .window_origin(&ctx.att, &ctx.target, ctx.deadline)
        .await?;
    // live_bounds adds the window's origin; the popover's surface is the right one.
    Some((sx - px - ox, sy - py - oy))
}

pub(crate) async fn live_bounds(ctx: &Ctx<'_>, o: &Obj) -> Result<Option<Bounds>, LinuxError> {
    let (x, y, w, h) = component::extents(&ctx.caller, o, component::COORD_SCREEN).await?;
    if ctx.backend.window_relative(&ctx.target) {
        // GTK 4, and every toolkit on Wayland, answers window-relative extents even for
        // screen coordinates.
        let origin = ctx
            .backend
            .window_origin(&ctx.att, &ctx.target, ctx.deadline)
            .await;
        return Ok(origin.map(|(ox, oy)| Bounds::new(x + ox, y + oy, w, h)));
    }
    Ok(Some(Bounds::new(x, y, w, h)))
}

/// Maps a point of the state's image to the screen.
pub(crate) fn screen_point(ctx: &Ctx<'_>, p: &Point) -> Option<(i32, i32)> {
    ctx.state.image.as_ref().map(|img| img.to_screen(p.x, p.y))
}

pub(crate) fn record(ctx: &Ctx<'_>, r: &mut StepReport, send: &Send, sent: &Sent) {
    r.delivery.method = ctx.backend.delivery_method();
    r.delivery.delivered = Delivery::Delivered;
    let mut d = send.describe();
    match sent.activation {
        Some(Activation::Activated(t)) => {
            d.push_str(&format!("; window activated first ({} ms)", t.as_millis()))
        }
        Some(Activation::Already) | None => {}
        Some(Activation::Refused { .. }) => {}
    }
    r.delivery.detail = Some(d);
    if let Some(p) = sent.points.first() {
        r.grounding.point = Some(*p);
    }
}

pub(crate) fn failed(ctx: &Ctx<'_>, r: &mut StepReport, e: Error) {
    r.delivery.method = ctx.backend.delivery_method();
    r.delivery.delivered = e.delivery;
    r.error = Some(e);
}

/// Watches the root's application, when it is on the accessibility bus.
pub(crate) async fn watch_app<'a>(ctx: &'a Ctx<'_>) -> Option<Watch<'a>> {
    match ctx.app_bus() {
        Some(b) => Some(ctx.watch(&b).await),
        None => None,
    }
}

/// Verification for input without an element to read: the app's own events.
pub(crate) async fn events_only(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    w: Option<&mut Watch<'_>>,
    keys: bool,
) {
    events_only_within(ctx, r, w, keys, SETTLE, None).await
}

/// How often the managed windows are read while a step waits for its effect.
const WINDOW_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// [`events_only`], waiting at most `budget` for a first reaction. With the managed windows
/// listed before the input (`windows`), a window of the root that closed, or a new window of
/// its app, is the effect when the app sent no events (LibreOffice's dialogs close silently).
pub(crate) async fn events_only_within(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    w: Option<&mut Watch<'_>>,
    keys: bool,
    budget: std::time::Duration,
    windows: Option<&[u32]>,
) {
    r.verification.method = VerificationMethod::Event;
    let Some(w) = w else {
        r.verification.detail = Some(
            "the window's application is not on the accessibility bus: nothing to check".into(),
        );
        return;
    };
    let end = Instant::now() + budget;
    let mut windows_changed = None;
    loop {
        let now = Instant::now();
        if w.reacted() || now >= end {
            break;
        }
        // Windows are polled: an app may close or open one without an accessibility event.
        let tick = if windows.is_some() {
            WINDOW_POLL
        } else {
            budget
        };
        w.next(end.min(now + tick)).await;
        if let (Some(before), false) = (windows, w.reacted()) {
            windows_changed = super::window_change(ctx, before).await;
            if windows_changed.is_some() {
                break;
            }
        }
    }
    if windows_changed.is_none() && !w.reacted() {
        if let Some(before) = windows {
            windows_changed = super::window_change(ctx, before).await;
        }
    }
    if w.reacted() {
        w.quiet(SETTLE).await;
        w.await_window_if_building().await;
        r.verification.passed = Some(true);
        r.verification.detail = Some(w.describe(ctx.state));
    } else if keys && w.focus_moves > 0 && !w.busy {
        // Keys move no focus by themselves (a click does): the app moved it. Said as what it
        // is, focus evidence, weaker than a change a person would see.
        r.verification.method = VerificationMethod::Focus;
        r.verification.passed = Some(true);
        r.verification.detail = Some(
            "the keys moved the focus inside the app (nothing else changed: a shortcut that should open something did not)".into(),
        );
    } else if let Some(change) = windows_changed {
        r.verification.method = VerificationMethod::RootChange;
        r.verification.passed = Some(true);
        r.verification.detail = Some(change);
    } else {
        let waited = w.started.elapsed().as_millis();
        let mut d = if ctx.expect_follows {
            format!(
                "no reaction from the app within {waited} ms; the call's expect judges the effect"
            )
        } else {
            format!(
                "no reaction from the app within {waited} ms; the input was delivered but its effect is not confirmed (use expect to check it)"
            )
        };
        if let Some(n) = w.busy_note() {
            d = format!("{d}; {n}");
        }
        r.verification.detail = Some(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_described_without_its_content() {
        assert_eq!(
            Send::Click(Button::Right, 2).describe(),
            "right double click"
        );
        assert_eq!(Send::Type("geheim".into()).describe(), "6 characters typed");
    }
}
