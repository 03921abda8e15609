//! Whether an act's steps started a navigation of the page, and waiting for it to load, so
//! the act's successor shows the page the steps led to rather than the one they left (a form
//! submitted by a button, or by the script that runs once a `confirm()` is answered).

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use tokio::sync::broadcast::{self, error::RecvError};
use uidriver_core::Deadline;

use super::Page;
use crate::protocol::Event;

/// How long after input steps a navigation may still begin: a click's or a key's navigation is
/// requested while the renderer handles the event, before the input command answers.
pub(crate) const AFTER_INPUT: Duration = Duration::from_millis(10);
/// How long after an answered dialog: the page's script goes on once the dialog closed, a few
/// milliseconds after the answer's reply.
pub(crate) const AFTER_DIALOG: Duration = Duration::from_millis(60);
/// Most time spent waiting for the new document (a slow server is the next look's concern).
const LOAD_CAP: Duration = Duration::from_secs(3);

/// The page's events from before the steps.
pub(crate) struct NavigationWatch {
    events: broadcast::Receiver<Arc<Event>>,
    session: String,
    frame: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameParams {
    #[serde(default)]
    frame_id: String,
}

enum Seen {
    /// The main frame asked for or began a navigation.
    Started,
    /// The wait is over: the new document is read, or no new document is coming.
    Loaded,
    Other,
}

impl Page {
    /// Starts watching for a navigation of this page's main frame (before the steps run).
    pub(crate) fn watch_navigation(&self) -> NavigationWatch {
        NavigationWatch {
            events: self.client.events(),
            session: self.session.clone(),
            frame: self.target_id.clone(),
        }
    }
}

impl NavigationWatch {
    /// After the steps: when one of them started a navigation of the main frame (by now, or
    /// within `grace`), waits until the new document fired its DOMContentLoaded or the
    /// frame stopped loading, at most [`LOAD_CAP`].
    pub(crate) async fn settle(mut self, grace: Duration, deadline: Deadline) {
        let started = tokio::time::timeout(deadline.cap(grace).remaining(), async {
            loop {
                match self.next().await {
                    Some(Seen::Started) => return true,
                    Some(_) => {}
                    None => return false,
                }
            }
        })
        .await
        .unwrap_or(false);
        if !started {
            return;
        }
        let _ = tokio::time::timeout(deadline.cap(LOAD_CAP).remaining(), async {
            while let Some(seen) = self.next().await {
                if matches!(seen, Seen::Loaded) {
                    return;
                }
            }
        })
        .await;
    }

    /// The next event of the page, classified; None when the connection closed.
    async fn next(&mut self) -> Option<Seen> {
        loop {
            let ev = match self.events.recv().await {
                Ok(ev) => ev,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            };
            if ev.session_id.as_deref() != Some(self.session.as_str()) {
                continue;
            }
            let main_frame = || {
                ev.params
                    .as_ref()
                    .and_then(|p| serde_json::from_str::<FrameParams>(p.get()).ok())
                    .is_some_and(|p| p.frame_id == self.frame)
            };
            return Some(match ev.method.as_str() {
                "Page.frameRequestedNavigation" | "Page.frameStartedLoading" if main_frame() => {
                    Seen::Started
                }
                "Page.domContentEventFired" | "Page.loadEventFired" => Seen::Loaded,
                "Page.frameStoppedLoading" | "Page.navigatedWithinDocument" if main_frame() => {
                    Seen::Loaded
                }
                // The navigation became a download, was called off, or waits for a dialog's
                // answer (beforeunload): nothing to wait for here.
                "Page.downloadWillBegin"
                | "Page.frameClearedScheduledNavigation"
                | "Page.javascriptDialogOpening" => Seen::Loaded,
                _ => Seen::Other,
            });
        }
    }
}
