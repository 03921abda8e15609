//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) of a page.
//!
//! While one is open the page's renderer waits inside the dialog: `Runtime.evaluate`,
//! `Input.dispatch*Event` and the other renderer commands get no reply until it closes (the
//! click that opened it too: its `mouseReleased` is answered only after the dialog is gone).
//! So each page keeps its dialog state from the `Page.javascriptDialogOpening` / `…Closed`
//! events ([`Dialogs`], one listener task per page session), every command on the page's
//! session passes [`Dialogs::bound`] (refused at once while a dialog is open, ended when one
//! opens while it waits), and the open dialog is shown and answered as elements of its own:
//!
//! - a root of kind `dialog` beside its page (key `<page key>:dialog:<seq>`, a new root per
//!   dialog), named by its message, in the page's lane;
//! - a snapshot: the dialog, its message, a text field for a prompt (holding the text OK will
//!   send, the default prompt at first) and its buttons (OK and Cancel; alert: OK only;
//!   beforeunload: Leave and Cancel); observing the page itself while it is open gives that
//!   snapshot under the page's document node, so the agent sees why the page cannot be read;
//! - steps: press OK/Cancel → `Page.handleJavaScriptDialog`, verified by the closing event
//!   (its answer is the one sent); setText/typeText on the field store the prompt's answer.
//!
//! Pointer steps that open a dialog end on its opening event (`act.rs` asks [`blocked_by`]).
//! A popup of a same-site page shares the opener's renderer, so its dialog blocks the opener
//! too, which hears nothing of it: [`Peers`] tells every page of the browser which dialogs are
//! open, and a command left unanswered meanwhile ends after a grace period, naming the dialog.
//!
//! This file keeps the state and bounds the commands; `dialog/view.rs` shows the dialog (root,
//! snapshots, handles), `dialog/steps.rs` answers it.

mod steps;
mod view;

pub(crate) use steps::{act, wants};
pub(crate) use view::{is_handle, page_snapshot, root_info, snapshot, text_of};

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::watch;
use uidriver_core::{Deadline, Delivery, StepReport, VerificationMethod};

use crate::act::verify;
use crate::client::Client;
use crate::error::{CdpError, CdpResult};
use crate::protocol::{DialogClosed, DialogOpening, Event};

/// Commands that a page with an open dialog still answers: answering the dialog.
const PASSES: &[&str] = &["Page.handleJavaScriptDialog"];

/// Dialog numbers, unique in the process: each dialog is a root (and refs) of its own.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The four kinds of JavaScript dialog.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `alert()`: OK only.
    Alert,
    /// `confirm()`: OK → true, Cancel → false.
    Confirm,
    /// `prompt()`: OK → the field's text, Cancel → null.
    Prompt,
    /// Leaving a page whose `beforeunload` handler asked to stay.
    BeforeUnload,
}

impl Kind {
    fn parse(s: &str) -> Kind {
        match s {
            "alert" => Kind::Alert,
            "prompt" => Kind::Prompt,
            "beforeunload" => Kind::BeforeUnload,
            _ => Kind::Confirm,
        }
    }

    /// "an alert", "a confirm", … (for messages).
    fn a(self) -> &'static str {
        match self {
            Kind::Alert => "an alert",
            Kind::Confirm => "a confirm",
            Kind::Prompt => "a prompt",
            Kind::BeforeUnload => "a beforeunload",
        }
    }

    /// The name the page's script uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Alert => "alert",
            Kind::Confirm => "confirm",
            Kind::Prompt => "prompt",
            Kind::BeforeUnload => "beforeunload",
        }
    }

    /// The labels of accept and dismiss (None: the dialog has no dismiss button).
    fn buttons(self) -> (&'static str, Option<&'static str>) {
        match self {
            Kind::Alert => ("OK", None),
            Kind::BeforeUnload => ("Leave", Some("Cancel")),
            Kind::Confirm | Kind::Prompt => ("OK", Some("Cancel")),
        }
    }
}

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
    text: String,
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
    fn blocked(&self, during: bool) -> Blocked {
        Blocked {
            kind: self.kind,
            message: self.title().chars().take(80).collect(),
            during,
            elsewhere: false,
        }
    }
}

/// A command refused (or ended) because a dialog is open on its page.
#[derive(Clone, Debug)]
pub struct Blocked {
    /// The dialog's kind.
    pub kind: Kind,
    /// The start of its message.
    pub message: String,
    /// The dialog opened while the command ran (the command was delivered; it may be what
    /// opened it), rather than before it was sent.
    pub during: bool,
    /// The dialog is another page's (a popup sharing this page's renderer, presumably: the
    /// command waited [`PEER_GRACE`] unanswered while it was open).
    pub elsewhere: bool,
}

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (k, m) = (self.kind.a(), &self.message);
        if self.elsewhere {
            write!(
                f,
                "{k} dialog of another page ({m:?}) seems to block this page too (it shares its renderer): no answer for {} s",
                PEER_GRACE.as_secs()
            )
        } else if self.during {
            write!(f, "{k} dialog opened ({m:?}) and blocks the page")
        } else {
            write!(f, "{k} dialog ({m:?}) blocks this page")
        }
    }
}

/// How a dialog closed.
#[derive(Clone, Debug)]
struct Closed {
    seq: u64,
    accepted: bool,
    user_input: String,
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

/// How long a command may wait unanswered while a dialog is open in another page of the
/// browser before it is taken as blocked by it (the largest page's walk takes ~2 s).
const PEER_GRACE: Duration = Duration::from_secs(5);

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
    async fn wait_closed(&self, seq: u64, deadline: Deadline) -> Option<Closed> {
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
    fn set_text(&self, seq: u64, text: String) -> bool {
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

/// Marks a pointer or key step whose input opened a dialog: delivered, and the dialog's
/// opening is the page's reaction (the reply to the input would come only once it closed).
pub(crate) fn opened_by_step(r: &mut StepReport, d: &OpenDialog) {
    r.delivery.delivered = Delivery::Delivered;
    r.delivery.detail = Some(format!(
        "the input opened {} dialog (its reply waits for the dialog; later events were not sent)",
        d.kind.a()
    ));
    verify(
        r,
        VerificationMethod::Event,
        true,
        &format!(
            "{} dialog opened ({:?}): answer it on its dialog root, or observe the page",
            d.kind.a(),
            d.title().chars().take(80).collect::<String>()
        ),
        "",
    );
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
