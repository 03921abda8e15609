//! Pointer steps: `click` (a ref's live centre or an image point; double, triple, right),
//! `moveMouse`, `hover`, `drag`, and the wheel. Each goes through `deliver.rs`; a click is
//! judged like a press (the element, then the app's reaction), motion by where the pointer is.

use std::time::{Duration, Instant};
use uidriver_core::{GroundingMethod, VerificationMethod};

use uidriver_core::action::{Button, Point};
use uidriver_core::{ElementRef, ErrorCode, StepReport, Target};

use super::deliver::{self, Aim, Send};
use super::landing::{self, Landing, Scope};
use super::press::Reached;
use super::verify::{self, SETTLE};
use super::{needs_foreground, refuse, Ctx, Element, RefAim};
use crate::atspi::Obj;
use crate::x11::window::Activation;
use deliver::{events_only, failed, record, screen_point, watch_app};

/// How long `hover` lets hover effects (tooltips: GTK waits 500 ms) appear.
const HOVER: Duration = Duration::from_millis(700);

/// Records where a refused pointer step would have gone (nothing is read or sent).
fn note_target(ctx: &Ctx<'_>, r: &mut StepReport, target: &Target) {
    match target {
        Target::Ref(e) => {
            r.grounding.method = GroundingMethod::Ref;
            r.grounding.r#ref = Some(*e);
        }
        Target::Point(p) => {
            r.grounding.method = GroundingMethod::Point;
            r.grounding.point = screen_point(ctx, p);
        }
    }
}

/// `click` at a ref's live centre or an image point, verified like a press.
pub(crate) async fn click(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    target: &Target,
    button: Button,
    count: u8,
) {
    if ctx.headless {
        note_target(ctx, r, target);
        return needs_foreground(r, "click is pointer input");
    }
    match target {
        Target::Ref(e) => match ctx.pointer_ref(r, *e) {
            Some(RefAim::Live(el)) => {
                click_element(ctx, r, &el, Send::Click(button, count), None).await
            }
            Some(RefAim::Pixels(sp)) => click_pixels(ctx, r, sp, button, count).await,
            None => {}
        },
        Target::Point(p) => {
            r.grounding.method = GroundingMethod::Point;
            let Some(sp) = screen_point(ctx, p) else {
                return refuse(r, ErrorCode::InvalidArgs, "the state has no image for x/y");
            };
            click_pixels(ctx, r, sp, button, count).await
        }
    }
}

/// Clicks a screen point taken from the state's image; only the app's events can tell what
/// it did.
pub(crate) async fn click_pixels(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    sp: (i32, i32),
    button: Button,
    count: u8,
) {
    r.grounding.point = Some(sp);
    let windows = super::windows_now(ctx).await;
    let mut w = watch_app(ctx).await;
    let send = Send::Click(button, count);
    match deliver::deliver(ctx, Aim::Points(vec![sp]), send.clone()).await {
        Ok(sent) => record(ctx, r, &send, &sent),
        Err(e) => return failed(ctx, r, e),
    }
    let budget = super::verify::SETTLE;
    deliver::events_only_within(ctx, r, w.as_mut(), false, budget, windows.as_deref()).await;
}

/// Before a click on a menu item: waits until the toolkit takes a click in a menu as a choice
/// ([`crate::roots::Toolkit::menu_click_grace`] after this backend's last click).
async fn menu_grace(ctx: &Ctx<'_>, el: &Element<'_>) {
    use uidriver_core::Role;
    let item = matches!(
        el.node.role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    );
    let Some(grace) = ctx.toolkit().menu_click_grace().filter(|_| item) else {
        return;
    };
    if let Some(wait) = ctx
        .backend
        .since_last_click()
        .and_then(|t| grace.checked_sub(t))
    {
        tracing::debug!(
            wait_ms = wait.as_millis() as u64,
            "waiting out the menu's click grace"
        );
        tokio::time::sleep(wait.min(ctx.deadline.remaining())).await;
    }
}

/// Clicks an element's centre (also the fallback of `press`/`check` when the element offers
/// no action, which proves nothing was sent before) and checks the element and the app.
pub(crate) async fn click_element(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: &Element<'_>,
    send: Send,
    why: Option<&str>,
) {
    if ctx.headless {
        return needs_foreground(r, why.unwrap_or("this step needs a pointer click"));
    }
    let (before, aim) = tokio::join!(
        verify::read(&ctx.caller, &el.obj),
        deliver::element_aim(ctx, el)
    );
    let (landing, alone) = match aim {
        Ok((point, corrected)) => (
            landing::probe(ctx, el, point, corrected).await,
            !corrected && landing::alone_at(ctx.state, el.index, point),
        ),
        Err(_) => (Landing::Unknown, false),
    };
    let before = match before {
        Ok(Some(b)) => b,
        Ok(None) => return refuse(r, ErrorCode::StaleRef, format!("{} no longer exists", el.r)),
        Err(e) => {
            r.error = Some(e.into());
            return;
        }
    };
    menu_grace(ctx, el).await;
    let mut w = ctx.watch(&el.obj.bus).await;
    let activated = match deliver::deliver(ctx, Aim::Element(el, Vec::new()), send.clone()).await {
        Ok(sent) => {
            record(ctx, r, &send, &sent);
            matches!(sent.activation, Some(Activation::Activated(_)))
        }
        Err(e) => return failed(ctx, r, e),
    };
    if let Some(why) = why {
        let d = r.delivery.detail.take().unwrap_or_default();
        r.delivery.detail = Some(format!("{d} ({why})"));
    }
    let scope = Scope::of(ctx.state, el);
    let how = Reached::Click {
        landing,
        scope: &scope,
        focus_counts: !activated && !before.states.has(crate::atspi::state::FOCUSED),
        on_focused: alone && before.states.has(crate::atspi::state::FOCUSED),
    };
    super::press::observe_effect(ctx, r, el, &before, &mut w, how).await;
}

/// `moveMouse` and `hover`: the pointer position is the checkable effect.
pub(crate) async fn move_mouse(ctx: &Ctx<'_>, r: &mut StepReport, target: &Target, hover: bool) {
    if ctx.headless {
        note_target(ctx, r, target);
        return needs_foreground(r, "moving the pointer is physical input");
    }
    let grounded;
    let aim = match target {
        Target::Ref(e) => {
            let Some(found) = ctx.pointer_ref(r, *e) else {
                return;
            };
            grounded = found;
            match &grounded {
                RefAim::Live(el) => Aim::Element(el, Vec::new()),
                RefAim::Pixels(p) => Aim::Points(vec![*p]),
            }
        }
        Target::Point(p) => {
            r.grounding.method = GroundingMethod::Point;
            let Some(sp) = screen_point(ctx, p) else {
                return refuse(r, ErrorCode::InvalidArgs, "the state has no image for x/y");
            };
            Aim::Points(vec![sp])
        }
    };
    let mut w = watch_app(ctx).await;
    let sent = match deliver::deliver(ctx, aim, Send::Move).await {
        Ok(s) => s,
        Err(e) => return failed(ctx, r, e),
    };
    record(ctx, r, &Send::Move, &sent);
    let want = sent.points[0];
    if hover {
        if let Some(w) = w.as_mut() {
            let end = Instant::now() + HOVER;
            while w.next(end).await {}
        } else {
            tokio::time::sleep(HOVER).await;
        }
    }
    r.verification.method = VerificationMethod::Pointer;
    let at = match ctx.backend.inner.desk_input.as_ref() {
        Some(x) => x.run(ctx.deadline, |c| c.pointer()).await.ok(),
        None => None,
    };
    match at {
        Some(p) if p == want => {
            r.verification.passed = Some(true);
            let mut d = format!("the pointer is at ({},{})", p.0, p.1);
            if let Some(w) = w.as_ref().filter(|w| w.reacted()) {
                d.push_str(&format!("; {}", w.describe(ctx.state)));
            }
            r.verification.detail = Some(d);
        }
        Some(p) => {
            r.verification.passed = Some(false);
            r.verification.detail = Some(format!(
                "the pointer is at ({},{}), not ({},{})",
                p.0, p.1, want.0, want.1
            ));
        }
        None => r.verification.detail = Some("the pointer position could not be read".into()),
    }
}

/// `drag` from a ref's centre or the first point, through the path.
pub(crate) async fn drag(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    path: &[Point],
    from: Option<ElementRef>,
    button: Button,
) {
    if ctx.headless {
        return needs_foreground(r, "drag is pointer input");
    }
    let mut pts = Vec::with_capacity(path.len());
    for p in path {
        match screen_point(ctx, p) {
            Some(sp) => pts.push(sp),
            None => {
                return refuse(
                    r,
                    ErrorCode::InvalidArgs,
                    "the state has no image for the path",
                )
            }
        }
    }
    let grounded;
    let aim = match from {
        Some(e) => {
            let Some(found) = ctx.pointer_ref(r, e) else {
                return;
            };
            grounded = found;
            match &grounded {
                RefAim::Live(el) => Aim::Element(el, pts),
                RefAim::Pixels(p) => Aim::Points(std::iter::once(*p).chain(pts).collect()),
            }
        }
        None => {
            r.grounding.method = GroundingMethod::Point;
            Aim::Points(pts)
        }
    };
    let mut w = watch_app(ctx).await;
    let send = Send::Drag(button);
    match deliver::deliver(ctx, aim, send.clone()).await {
        Ok(sent) => record(ctx, r, &send, &sent),
        Err(e) => return failed(ctx, r, e),
    }
    events_only(ctx, r, w.as_mut(), false).await;
}

/// Wheel steps at an element's centre or an image point (or the window's centre).
pub(crate) async fn wheel(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: Option<&Element<'_>>,
    point: Option<(i32, i32)>,
    dx: i32,
    dy: i32,
    bar: Option<Obj>,
) {
    if ctx.headless {
        return needs_foreground(
            r,
            "nothing here scrolls through the accessibility interfaces, and the wheel is pointer input",
        );
    }
    let aim = match (el, point) {
        (Some(el), _) => Aim::Element(el, Vec::new()),
        (None, Some(p)) => Aim::Points(vec![p]),
        (None, None) => match ctx.target.info.bounds {
            Some(b) if b.is_visible() => {
                r.grounding.method = GroundingMethod::Point;
                Aim::Points(vec![b.center()])
            }
            _ => {
                return refuse(
                    r,
                    ErrorCode::NotSupported,
                    "the root has no box on screen to scroll",
                )
            }
        },
    };
    let before = match &bar {
        Some(b) => crate::atspi::value::current(&ctx.caller, b).await.ok(),
        None => None,
    };
    let mut w = watch_app(ctx).await;
    let send = Send::Scroll(dx, dy);
    match deliver::deliver(ctx, aim, send.clone()).await {
        Ok(sent) => record(ctx, r, &send, &sent),
        Err(e) => return failed(ctx, r, e),
    }
    if let (Some(b), Some(v0), Some(w)) = (&bar, before, w.as_mut()) {
        let c = &ctx.caller;
        let moved = w
            .until(SETTLE, || async move {
                crate::atspi::value::current(c, b)
                    .await
                    .ok()
                    .filter(|v| (v - v0).abs() > f64::EPSILON)
            })
            .await;
        r.verification.method = VerificationMethod::ReadBack;
        match moved {
            Some(v) => {
                r.verification.passed = Some(true);
                r.verification.detail = Some(format!("the scroll bar moved from {v0} to {v}"));
            }
            None => {
                r.verification.detail = Some(format!(
                    "the scroll bar stayed at {v0} (at its end, or the wheel went elsewhere)"
                ))
            }
        }
        return;
    }
    events_only(ctx, r, w.as_mut(), false).await;
}
