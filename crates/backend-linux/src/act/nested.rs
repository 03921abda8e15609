//! An action call inside which the app runs a nested main loop (a modal dialog its handler
//! runs with `gtk_dialog_run`), found after the call and ended.
//!
//! The ATK bridge answers `DoAction` and then runs the action inside the D-Bus dispatch of
//! that call; GTK 3 runs a button's or a menu item's handler right there (`gtk_button_clicked`),
//! whatever the control is named. A handler that runs a modal dialog keeps that dispatch open
//! until the dialog closes: the app answers no accessibility call meanwhile (they queue), and
//! the first key it gets freezes it for good: the bridge's key listener dispatches the
//! registry's answer from a private loop, and libdbus waits forever for the dispatch the
//! action holds (`gtk_dialog_run` → `gtk_main_do_event` → atk-bridge → `dbus_connection_dispatch`
//! → `pthread_cond_wait`), a key of uidriver's or of the person at the desk. The app is never
//! left so: the dialog is closed again through the window manager (`_NET_CLOSE_WINDOW`, the
//! dialog's own Cancel), which ends the call, and the app answers again.

use std::time::{Duration, Instant};

use super::Ctx;
use crate::atspi::{accessible, Obj, ROOT_PATH};

/// How long an app may take to answer once its action call answered before its windows are
/// looked at: an app that answered the action answers a call in a few milliseconds.
const ANSWER: Duration = Duration::from_millis(300);
/// How long an app that opened a modal window during the call may stay silent before it is
/// judged to run that window's loop inside the call (a busy handler finishes by then).
const SILENT: Duration = Duration::from_millis(1500);
/// How long the app may take to answer after its dialog was asked to close.
const RECOVER: Duration = Duration::from_secs(3);

/// A modal window an action call ran inside itself, closed again.
pub(crate) struct Nested {
    /// The window's title.
    pub title: String,
    /// Whether the app answered again after the close request (else it is still in the loop).
    pub recovered: bool,
}

/// After an action call on an object of `bus` answered: `None` when the app answers calls
/// (the usual case: one call); otherwise, when a new modal window of the app is shown while it
/// stays silent, that window is asked to close and the app awaited. `before`: the managed
/// windows before the call.
pub(crate) async fn end_nested_loop(ctx: &Ctx<'_>, bus: &str, before: &[u32]) -> Option<Nested> {
    if answers(ctx, bus, ANSWER).await {
        return None;
    }
    let start = Instant::now();
    let mut window = None;
    while start.elapsed() < SILENT && !ctx.deadline.expired() {
        if window.is_none() {
            window = new_modal_window(ctx, before).await;
        }
        if answers(ctx, bus, ANSWER).await {
            // Busy, not nested: it answers once the handler returned.
            return None;
        }
    }
    let (id, title) = window.or(new_modal_window(ctx, before).await)?;
    tracing::info!(
        window = id,
        "the action runs a modal window inside its call; asking it to close"
    );
    let x = ctx.backend.inner.desk.as_ref()?;
    let _ = x
        .run(ctx.deadline.cap(Duration::from_millis(500)), move |c| {
            c.request_close(id)
        })
        .await;
    let until = Instant::now() + RECOVER;
    let mut recovered = false;
    while Instant::now() < until && !ctx.deadline.expired() {
        if answers(ctx, bus, ANSWER).await {
            recovered = true;
            break;
        }
    }
    Some(Nested { title, recovered })
}

/// After an action call on an object of `bus` that was not answered in time: the title of a
/// new modal window of the app, when the app answers other calls meanwhile. Qt runs a
/// dialog's loop inside the action call (`QDialog::exec`) and keeps serving the bus, so the
/// call answers only when the dialog closes: the action ran, and the dialog can be read.
pub(crate) async fn waits_on_window(ctx: &Ctx<'_>, bus: &str, before: &[u32]) -> Option<String> {
    if !answers(ctx, bus, ANSWER).await {
        return None;
    }
    new_modal_window(ctx, before).await.map(|(_, title)| title)
}

/// Whether the app on `bus` answers one call within `within` (its root's role). A call left
/// unanswered only queues in the app: it is not input, and nothing is harmed by it.
async fn answers(ctx: &Ctx<'_>, bus: &str, within: Duration) -> bool {
    let c = ctx.att.bus.caller(ctx.deadline.cap(within), within, 1);
    let t0 = Instant::now();
    // An app that is gone is not waited for: the step reports that as before.
    let ok = match accessible::role(&c, &Obj::new(bus.to_string(), ROOT_PATH)).await {
        Ok(_) => true,
        Err(e) => e.is_gone(),
    };
    if !ok {
        // A refusal comes at once; keep the rhythm of the wait.
        if let Some(rest) = within.checked_sub(t0.elapsed()) {
            tokio::time::sleep(rest.min(Duration::from_millis(100))).await;
        }
    }
    ok
}

/// A shown modal (or dialog) window of the target's app that was not listed before the call.
async fn new_modal_window(ctx: &Ctx<'_>, before: &[u32]) -> Option<(u32, String)> {
    let x = ctx.backend.inner.desk.as_ref()?;
    let pid = ctx.target.info.pid?;
    let before = before.to_vec();
    x.run(ctx.deadline.cap(Duration::from_millis(500)), move |c| {
        c.desktop().map(|d| {
            d.windows
                .iter()
                .rev()
                .find(|w| {
                    w.pid == Some(pid)
                        && !w.hidden
                        && (w.modal || w.dialog)
                        && !before.contains(&w.id)
                })
                .map(|w| (w.id, w.title.clone()))
        })
    })
    .await
    .ok()
    .flatten()
}
