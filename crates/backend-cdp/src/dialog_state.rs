//! The JavaScript dialog state of each page: [`Dialogs`], kept from the
//! `Page.javascriptDialogOpening` / `…Closed` events by one listener task per page session, and
//! the bound every command of the page passes ([`Dialogs::bound`]: refused at once while a
//! dialog is open, ended when one opens while it waits). [`Peers`] tells every page of a
//! browser which dialogs are open, for a popup whose dialog blocks its opener too.
//!
//! Below `page.rs`, which holds a page's [`Dialogs`]; showing and answering a dialog is
//! `dialog.rs`'s.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::value::RawValue;
use tokio::sync::watch;
use uidriver_core::Deadline;

use crate::client::Client;
use crate::dialog_kind::{Blocked, Kind, PEER_GRACE};
use crate::error::{CdpError, CdpResult};
use crate::protocol::{DialogClosed, DialogOpening, Event};

/// Commands that a page with an open dialog still answers: answering the dialog.
const PASSES: &[&str] = &["Page.handleJavaScriptDialog"];

/// Dialog numbers, unique in the process: each dialog is a root (and refs) of its own.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The dialog open on a page.
#[derive(Clone, Debug)]
pub struct OpenDialog {
    /// Its number (part of its root key and its nodes' handles).
    pub seq: u64,
    /// Which kind.
    pub kind: Kind,
    /// Its message (Chromium sends none for beforeunload).
    pub message: String,
    /// A prompt's default text.
    pub default_prompt: String,
    /// The URL of the frame that opened it.
    pub url: String,
    /// What OK sends for a prompt: the default text until a step replaces it.
    pub(crate) text: String,
}

impl OpenDialog {
    /// The dialog's name: its message, or what Chromium shows for beforeunload.
    pub fn title(&self) -> String {
        match (self.kind, self.message.is_empty()) {
            (Kind::BeforeUnload, true) => "Leave site? Changes you made may not be saved.".into(),
            _ => self.message.clone(),
        }
    }

    /// What a refused or cut-short command reports.
    pub(crate) fn blocked(&self, during: bool) -> Blocked {
        Blocked {
            kind: self.kind,
            message: self.title().chars().take(80).collect(),
            during,
            elsewhere: false,
        }
    }
}

/// How a dialog closed.
#[derive(Clone, Debug)]
pub(crate) struct Closed {
    /// The dialog's number.
    pub(crate) seq: u64,
    /// OK (true) or Cancel.
    pub(crate) accepted: bool,
    /// What a prompt returned.
    pub(crate) user_input: String,
}

#[derive(Clone, Debug, Default)]
struct DialogState {
    open: Option<OpenDialog>,
    closed: Option<Closed>,
}

/// The dialogs open in a browser, by page session: a popup of a same-site page shares the
/// opener's renderer, so its dialog blocks the opener too, and only the popup's session hears
/// of it.
#[derive(Default)]
pub struct Peers {
    tx: watch::Sender<Vec<(String, OpenDialog)>>,
}

/// The dialog state of one page session, kept by a task that reads the page's events. Frame
/// pages share their top page's: a dialog is modal to the whole tab.
pub struct Dialogs {
    // A watch: readers see the latest state at once, and waiters wake on every change.
    tx: watch::Sender<DialogState>,
    session: String,
    peers: Arc<Peers>,
}

impl Dialogs {
    /// State for a session and its listener; call before `Page.enable`, so no event is missed.
    /// The listener ends when the page is dropped, detached, or the connection closes.
    pub(crate) fn start(client: &Client, session: &str, peers: &Arc<Peers>) -> Arc<Dialogs> {
        let d = Arc::new(Dialogs {
            tx: watch::Sender::new(DialogState::default()),
            session: session.to_string(),
            peers: peers.clone(),
        });
        client.listen(Some(session), &d, "dialog", Dialogs::on_event);
        d
    }

    /// Applies one event of the page; false when the session is gone.
    fn on_event(&self, ev: &Event) -> bool {
        let params = ev.params.as_deref().map(RawValue::get).unwrap_or("{}");
        match ev.method.as_str() {
            "Page.javascriptDialogOpening" => {
                let Ok(p) = serde_json::from_str::<DialogOpening>(params) else {
                    tracing::debug!("undecodable dialog opening");
                    return true;
                };
                let default_prompt = p.default_prompt.unwrap_or_default();
                let d = OpenDialog {
                    seq: NEXT.fetch_add(1, Ordering::Relaxed),
                    kind: Kind::parse(&p.kind),
                    message: p.message,
                    text: default_prompt.clone(),
                    default_prompt,
                    url: p.url,
                };
                tracing::debug!(seq = d.seq, kind = d.kind.as_str(), "dialog opened");
                self.peers.tx.send_modify(|p| {
                    p.retain(|(s, _)| *s != self.session);
                    p.push((self.session.clone(), d.clone()));
                });
                self.tx.send_modify(|s| s.open = Some(d));
            }
            "Page.javascriptDialogClosed" => {
                self.forget_peer();
                let p = serde_json::from_str::<DialogClosed>(params).ok();
                self.tx.send_modify(|s| {
                    if let Some(o) = s.open.take() {
                        s.closed = Some(Closed {
                            seq: o.seq,
                            accepted: p.as_ref().is_some_and(|p| p.result),
                            user_input: p.map(|p| p.user_input).unwrap_or_default(),
                        });
                    }
                });
            }
            "Inspector.detached" | "Inspector.targetCrashed" => {
                self.forget_peer();
                self.tx.send_modify(|s| s.open = None);
                return ev.method != "Inspector.detached";
            }
            _ => {}
        }
        true
    }

    fn forget_peer(&self) {
        self.peers.tx.send_if_modified(|p| {
            let n = p.len();
            p.retain(|(s, _)| *s != self.session);
            p.len() != n
        });
    }

    /// Resolves with a dialog of another page once one has been open for [`PEER_GRACE`]
    /// (never, while none is).
    async fn peer_blocks(&self) -> OpenDialog {
        let mut rx = self.peers.tx.subscribe();
        loop {
            let other = rx
                .borrow_and_update()
                .iter()
                .find(|(s, _)| *s != self.session)
                .map(|(_, d)| d.clone());
            if let Some(d) = other {
                tokio::time::sleep(PEER_GRACE).await;
                return d;
            }
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// The open dialog, if any.
    pub fn open(&self) -> Option<OpenDialog> {
        self.tx.borrow().open.clone()
    }

    /// Runs a command of the page unless a dialog blocks it: refused at once while one is
    /// open, and ended when one opens before its reply (the reply would come only after the
    /// dialog closed). Both are [`CdpError::Dialog`].
    pub(crate) async fn bound<T>(
        &self,
        method: &str,
        command: impl Future<Output = CdpResult<T>>,
    ) -> CdpResult<T> {
        if PASSES.contains(&method) {
            return command.await;
        }
        let mut rx = self.tx.subscribe();
        if let Some(d) = rx.borrow_and_update().open.clone() {
            return Err(CdpError::Dialog(d.blocked(false)));
        }
        // The command is sent when first polled, after the check: a dialog opening after it
        // is seen by `wait_for`, which looks at the current state first.
        tokio::select! {
            biased;
            r = command => r,
            d = rx.wait_for(|s| s.open.is_some()) => match d.ok().and_then(|s| s.open.clone()) {
                Some(d) => Err(CdpError::Dialog(d.blocked(true))),
                None => Err(CdpError::Closed),
            },
            d = self.peer_blocks() => {
                let mut b = d.blocked(true);
                b.elsewhere = true;
                Err(CdpError::Dialog(b))
            }
        }
    }

    /// Waits until the dialog `seq` is no longer open; how it closed, when it reported that
    /// (None at the deadline, or when it went without a closing event).
    pub(crate) async fn wait_closed(&self, seq: u64, deadline: Deadline) -> Option<Closed> {
        let mut rx = self.tx.subscribe();
        let gone = rx.wait_for(|s| s.open.as_ref().map(|o| o.seq) != Some(seq));
        let s = tokio::time::timeout(deadline.remaining(), gone)
            .await
            .ok()?
            .ok()?;
        s.closed.clone().filter(|c| c.seq == seq)
    }

    /// Resolves at the next dialog change (opened, closed) or at the deadline.
    pub(crate) async fn wait_change(&self, deadline: Deadline) {
        let mut rx = self.tx.subscribe();
        rx.borrow_and_update();
        let _ = tokio::time::timeout(deadline.remaining(), rx.changed()).await;
    }

    /// Stores what OK will send for the open prompt `seq`; false when it is not open.
    pub(crate) fn set_text(&self, seq: u64, text: String) -> bool {
        self.tx.send_if_modified(|s| match &mut s.open {
            Some(o) if o.seq == seq && o.kind == Kind::Prompt => {
                o.text = text;
                true
            }
            _ => false,
        })
    }
}

/// The dialog that cut a command short, when `e` says one did.
pub(crate) fn blocked_by(e: &CdpError) -> Option<&Blocked> {
    match e {
        CdpError::Dialog(b) if b.during && !b.elsewhere => Some(b),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn dialog(kind: Kind) -> OpenDialog {
        OpenDialog {
            seq: 7,
            kind,
            message: "Name?".into(),
            default_prompt: "Ada".into(),
            url: "http://x/".into(),
            text: "Ada".into(),
        }
    }

    #[test]
    fn a_beforeunload_dialog_has_a_name_and_leave() {
        let mut d = dialog(Kind::BeforeUnload);
        d.message.clear();
        assert!(d.title().starts_with("Leave site?"));
        assert_eq!(Kind::parse("beforeunload").buttons().0, "Leave");
    }
}
