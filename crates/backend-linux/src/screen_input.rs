//! Raw input of `desktop_input`, in screen pixels, under the process input lock and the
//! machine-wide interaction lease. The frame check (`screen.rs`) has already passed; raw input
//! carries no window identity, so nothing is raised or focused here, and nothing can be verified
//! beyond delivery: each event's outcome is `unknown` unless it failed before sending.

use uidriver_core::{Deadline, Delivery, Error, InputLock, Result, ScreenInput, StepReport};
use uidriver_core::{DeliveryMethod, GroundingMethod, VerificationMethod};

use crate::x11::input;
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
    let x =
        backend.inner.x11.as_ref().ok_or_else(|| {
            Error::new(uidriver_core::ErrorCode::BackendUnavailable, "no X display")
        })?;
    let display = backend.inner.config.display.clone().unwrap_or_default();
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
            .run(deadline, move |c| {
                let (conn, root) = (&c.conn, c.root());
                match &job {
                    ScreenInput::Move(px, py) => input::move_to(conn, root, *px, *py),
                    ScreenInput::Click {
                        x,
                        y,
                        button,
                        count,
                    } => input::click(conn, root, *x, *y, *button, *count),
                    ScreenInput::Scroll { x, y, dx, dy } => {
                        input::scroll(conn, root, *x, *y, *dx, *dy)
                    }
                    ScreenInput::Drag(path, b) => input::drag(conn, root, path, *b),
                    ScreenInput::Type(t) => input::type_text(conn, root, t),
                    ScreenInput::Keys(k) => input::press_chords(conn, root, k),
                    ScreenInput::KeyDown(k) => input::key_event(conn, root, k, true),
                    ScreenInput::KeyUp(k) => input::key_event(conn, root, k, false),
                }
            })
            .await;
        r.delivery.method = DeliveryMethod::Xtest;
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
