//! Raw input of `desktop_input`, in screen pixels, under the process input lock and the
//! machine-wide interaction lease. The frame check (`screen.rs`) has already passed; raw input
//! carries no window identity, so nothing is raised or focused here, and nothing can be verified
//! beyond delivery: each event's outcome is `unknown` unless it failed before sending.

use uidriver_core::{Deadline, Delivery, Error, InputLock, Result, ScreenInput, StepReport};
use uidriver_core::{GroundingMethod, VerificationMethod};

use crate::{lease, LinuxBackend};

fn point(e: &ScreenInput) -> Option<(i32, i32)> {
    match e {
        ScreenInput::Move(x, y) => Some((*x, *y)),
        ScreenInput::Click { x, y, .. } | ScreenInput::Scroll { x, y, .. } => Some((*x, *y)),
        ScreenInput::Drag(p, _) => p.first().copied(),
        _ => None,
    }
}

/// Sends the events in order; stops at the first that fails.
pub(crate) async fn send(
    backend: &LinuxBackend,
    events: &[ScreenInput],
    lock: &InputLock,
    deadline: Deadline,
) -> Result<Vec<StepReport>> {
    let x = backend
        .inner
        .desk_input
        .as_ref()
        .ok_or_else(|| backend.no_desk("raw input"))?;
    let display = backend.seat_name();
    let _held = lock.hold().await;
    let _lease = lease::acquire(&display, deadline).await?;
    let mut reports = Vec::new();
    for (i, ev) in events.iter().enumerate() {
        let mut r = StepReport::new(i, ev.event().as_str());
        r.grounding.method = if point(ev).is_some() {
            GroundingMethod::Point
        } else {
            GroundingMethod::Focus
        };
        r.grounding.point = point(ev);
        let job = ev.clone();
        let sent = x
            .run(deadline, move |c| match &job {
                ScreenInput::Move(px, py) => c.move_to(*px, *py),
                ScreenInput::Click {
                    x,
                    y,
                    button,
                    count,
                } => c.click(*x, *y, *button, *count),
                ScreenInput::Scroll { x, y, dx, dy } => c.scroll(*x, *y, *dx, *dy),
                ScreenInput::Drag(path, b) => c.drag(path, *b),
                ScreenInput::Type(t) => c.type_text_until(t, None),
                ScreenInput::Keys(k) => c.press_chords(k),
                ScreenInput::KeyDown(k) => c.key_event(k, true),
                ScreenInput::KeyUp(k) => c.key_event(k, false),
            })
            .await;
        r.delivery.method = backend.delivery_method();
        match sent {
            Ok(()) => {
                r.delivery.delivered = Delivery::Delivered;
                r.verification.method = VerificationMethod::None;
                r.verification.detail =
                    Some("raw input: only the caller's next screenshot can show its effect".into());
                reports.push(r.conclude());
            }
            Err(e) => {
                // A failure part-way through a chord or text may have sent some of it.
                let d = if matches!(e, crate::LinuxError::InvalidArgs(_)) {
                    Delivery::NotDelivered
                } else {
                    Delivery::Maybe
                };
                r.delivery.delivered = d;
                r.error = Some(Error::from(e).delivered(d));
                reports.push(r.conclude());
                break;
            }
        }
    }
    Ok(reports)
}
