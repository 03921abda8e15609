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

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;
use uidriver_core::action::{Button, Target};
use uidriver_core::{
    ActRequest, CapSet, Capability, Deadline, Delivery, ElementRef, Error, ErrorCode, Evidence,
    Node, Outcome, Result, Role, RootInfo, RootKind, Snapshot, State, StateFlag, StateSet, Step,
    StepReport,
};

use crate::act::verify;
use crate::client::Client;
use crate::error::{CdpError, CdpResult};
use crate::page::Page;
use crate::protocol::{DialogClosed, DialogOpening, Event, HandleJavaScriptDialog};

/// Commands that a page with an open dialog still answers: answering the dialog.
const PASSES: &[&str] = &["Page.handleJavaScriptDialog"];

/// How long an answered dialog may take to report that it closed (measured: ~1 ms).
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// Dialog numbers, unique in the process: each dialog is a root (and refs) of its own.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// Handles of dialog nodes start with this (page elements' start with `cdp:`).
const HANDLE: &str = "cdp-dialog:";

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
        let mut events = client.events();
        let weak: Weak<Dialogs> = Arc::downgrade(&d);
        let session = session.to_string();
        tokio::spawn(async move {
            loop {
                let ev = match events.recv().await {
                    Ok(ev) => ev,
                    Err(RecvError::Lagged(n)) => {
                        tracing::debug!(n, "dialog listener lagged");
                        continue;
                    }
                    Err(RecvError::Closed) => break,
                };
                let Some(d) = weak.upgrade() else { break };
                if ev.session_id.as_deref() == Some(session.as_str()) && !d.on_event(&ev) {
                    break;
                }
            }
        });
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
        "event",
        true,
        &format!(
            "{} dialog opened ({:?}): answer it on its dialog root, or observe the page",
            d.kind.a(),
            d.title().chars().take(80).collect::<String>()
        ),
        "",
    );
}

// ---- roots ----

/// The root of an open dialog, beside its page's root (same lane, same browser process).
pub(crate) fn root_info(page: &RootInfo, d: &OpenDialog) -> RootInfo {
    RootInfo {
        key: format!("{}:dialog:{}", page.key, d.seq),
        kind: RootKind::Dialog,
        title: d.title(),
        modal: true,
        bounds: None,
        stacking: None,
        window_id: None,
        url: Some(d.url.clone()),
        same_as: None,
        ..page.clone()
    }
}

// ---- snapshots ----

/// What a dialog node stands for (the last part of its handle).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Part {
    Dialog,
    Message,
    Field,
    Accept,
    Dismiss,
}

impl Part {
    const ALL: [(Part, &'static str); 5] = [
        (Part::Dialog, "dialog"),
        (Part::Message, "message"),
        (Part::Field, "field"),
        (Part::Accept, "ok"),
        (Part::Dismiss, "cancel"),
    ];
}

fn handle(seq: u64, part: Part) -> String {
    let name = Part::ALL
        .iter()
        .find(|(p, _)| *p == part)
        .map_or("dialog", |(_, n)| n);
    format!("{HANDLE}{seq}:{name}")
}

/// Whether a node handle is a dialog's.
pub(crate) fn is_handle(h: &str) -> bool {
    h.starts_with(HANDLE)
}

fn parse_handle(h: &str) -> Option<(u64, Part)> {
    let (seq, name) = h.strip_prefix(HANDLE)?.split_once(':')?;
    let part = Part::ALL.iter().find(|(_, n)| *n == name)?.0;
    Some((seq.parse().ok()?, part))
}

fn node(role: Role, native: &str, name: &str, handle: String, states: &[StateFlag]) -> Node {
    Node {
        role,
        native_role: native.into(),
        name: Evidence::from_text(name),
        states: Evidence::Known(states.iter().copied().collect::<StateSet>()),
        handle,
        ..Node::default()
    }
}

/// The dialog's nodes, appended under `parent`.
fn append(nodes: &mut Vec<Node>, parent: Option<usize>, d: &OpenDialog) {
    let caps = |c: &[Capability]| c.iter().copied().collect::<CapSet>();
    let mut add = |mut n: Node, under: Option<usize>| {
        let i = nodes.len();
        n.parent = under;
        if let Some(p) = under {
            nodes[p].children.push(i);
        }
        nodes.push(n);
        i
    };
    let title = d.title();
    let native = format!("javascript-dialog:{}", d.kind.as_str());
    let me = add(
        node(
            Role::Dialog,
            &native,
            &title,
            handle(d.seq, Part::Dialog),
            &[StateFlag::Modal, StateFlag::Active],
        ),
        parent,
    );
    let mut msg = node(
        Role::Label,
        "message",
        &title,
        handle(d.seq, Part::Message),
        &[],
    );
    msg.text_len = Some(title.chars().count() as u32);
    msg.caps = caps(&[Capability::ReadText]);
    add(msg, Some(me));
    let (ok, cancel) = d.kind.buttons();
    if d.kind == Kind::Prompt {
        // A prompt's field is labelled by the message, as Chromium's own dialog shows it.
        let mut f = node(
            Role::Text,
            "prompt-field",
            &title,
            handle(d.seq, Part::Field),
            &[StateFlag::Editable, StateFlag::Focused],
        );
        f.value = Evidence::Known(d.text.clone());
        if !d.default_prompt.is_empty() {
            f.description = Evidence::Known(format!("default text: {}", d.default_prompt));
        }
        f.text_len = Some(d.text.chars().count() as u32);
        f.caps = caps(&[
            Capability::SetText,
            Capability::TypeText,
            Capability::ReadText,
        ]);
        add(f, Some(me));
    }
    let focus_ok: &[StateFlag] = if d.kind == Kind::Prompt {
        &[StateFlag::Default]
    } else {
        &[StateFlag::Default, StateFlag::Focused]
    };
    let mut b = node(
        Role::Button,
        "dialog-button",
        ok,
        handle(d.seq, Part::Accept),
        focus_ok,
    );
    b.caps = caps(&[Capability::Press]);
    add(b, Some(me));
    if let Some(cancel) = cancel {
        let mut b = node(
            Role::Button,
            "dialog-button",
            cancel,
            handle(d.seq, Part::Dismiss),
            &[],
        );
        b.caps = caps(&[Capability::Press]);
        add(b, Some(me));
    }
}

/// The snapshot of a dialog root.
pub(crate) fn snapshot(d: &OpenDialog) -> Snapshot {
    let mut nodes = Vec::new();
    append(&mut nodes, None, d);
    Snapshot {
        nodes,
        complete: true,
        ..Snapshot::default()
    }
}

/// The snapshot of a page while a dialog blocks it: the page's document node (its content
/// cannot be read until the dialog closes) holding the dialog.
pub(crate) fn page_snapshot(title: &str, d: &OpenDialog) -> Snapshot {
    let mut nodes = vec![node(
        Role::Document,
        "document",
        title,
        "cdp-dialog-page".into(),
        &[StateFlag::Busy],
    )];
    append(&mut nodes, Some(0), d);
    Snapshot {
        nodes,
        complete: false,
        notes: vec![format!(
            "{} dialog blocks this page: its content cannot be read until the dialog is answered (press its buttons here or on its dialog root)",
            d.kind.a()
        )],
        ..Snapshot::default()
    }
}

/// The live text of a dialog node (the message, or the prompt's answer so far).
pub(crate) fn text_of(page: &Page, node: &Node) -> Result<String> {
    let (seq, part) = parse_handle(&node.handle).unwrap_or((0, Part::Dialog));
    let d = page
        .dialog()
        .filter(|d| d.seq == seq)
        .ok_or_else(|| gone_ref("the dialog of this element"))?;
    Ok(match part {
        Part::Field => d.text,
        _ => d.title(),
    })
}

fn gone_ref(what: &str) -> Error {
    Error::new(ErrorCode::StaleRef, format!("{what} closed"))
}

// ---- acting ----

/// Whether an act call must go to the dialog: the root is a dialog, a dialog is open on the
/// page, or a step names a dialog node.
pub(crate) fn wants(page: &Page, req: &ActRequest<'_>) -> bool {
    crate::roots::dialog_seq(&req.root.key).is_some()
        || page.dialog().is_some()
        || req.steps.iter().any(|s| {
            s.refs()
                .into_iter()
                .any(|r| req.state.node(r).is_ok_and(|n| is_handle(&n.handle)))
        })
}

/// Runs steps on the page's dialog, stopping at the first that did not work.
pub(crate) async fn act(
    page: &Page,
    req: &ActRequest<'_>,
    deadline: Deadline,
) -> Result<Vec<StepReport>> {
    if let Some(seq) = crate::roots::dialog_seq(&req.root.key) {
        if page.dialog().map(|d| d.seq) != Some(seq) {
            return Err(Error::new(ErrorCode::TargetClosed, "the dialog closed"));
        }
    }
    let mut reports = Vec::new();
    for (i, step) in req.steps.iter().enumerate() {
        let mut r = StepReport::new(i, step.name());
        if let Err(mut e) = run_step(page, req.state, &mut r, step, deadline).await {
            if e.delivery == Delivery::NotDelivered {
                e.delivery = r.delivery.delivered;
            }
            r.error = Some(e);
        }
        let r = r.conclude();
        let stop = r.outcome != Outcome::Worked;
        reports.push(r);
        if stop {
            break;
        }
    }
    Ok(reports)
}

async fn run_step(
    page: &Page,
    state: &State,
    r: &mut StepReport,
    step: &Step,
    deadline: Deadline,
) -> Result<()> {
    match step {
        Step::Press(t)
        | Step::Click {
            target: Target::Ref(t),
            button: Button::Left,
            ..
        } => {
            let (d, part) = resolve(page, state, r, *t)?;
            match part {
                Part::Accept => answer(page, &d, true, r, deadline).await,
                Part::Dismiss => answer(page, &d, false, r, deadline).await,
                _ => Err(Error::unsupported(format!(
                    "{t} is not a button of the dialog; nothing was sent"
                ))),
            }
        }
        Step::SetText(t, text) => {
            let (d, _) = field(page, state, r, Some(*t))?;
            store(page, &d, r, text.clone())
        }
        Step::TypeText(t, text) => {
            let (d, _) = field(page, state, r, *t)?;
            // The caret of Chromium's prompt field starts at the end of the default text.
            let all = format!("{}{text}", d.text);
            store(page, &d, r, all)
        }
        Step::Keypress(_, keys) if keys.len() == 1 && plain(&keys[0]) => {
            r.grounding.method = "focus".into();
            let d = page.dialog().ok_or_else(|| gone_ref("the dialog"))?;
            match keys[0].key.as_str() {
                "Return" => answer(page, &d, true, r, deadline).await,
                "Escape" => answer(page, &d, false, r, deadline).await,
                _ => Err(unsupported_step()),
            }
        }
        Step::Wait(ms) => {
            tokio::time::sleep(Duration::from_millis(*ms).min(deadline.remaining())).await;
            Ok(())
        }
        _ => Err(unsupported_step()),
    }
}

/// A chord without modifiers.
fn plain(k: &uidriver_core::KeyChord) -> bool {
    !(k.ctrl || k.shift || k.alt || k.super_)
}

fn unsupported_step() -> Error {
    Error::unsupported(
        "a JavaScript dialog takes only press (or click) on its buttons, setText/typeText on a prompt's field, and the keys Return (OK) and Escape (Cancel); nothing was sent",
    )
    .with_hint("Press OK or Cancel on the dialog; the page can be acted on again once it closed.")
}

/// The open dialog and the part a ref names; `stale_ref` when that dialog closed.
fn resolve(
    page: &Page,
    state: &State,
    r: &mut StepReport,
    t: ElementRef,
) -> Result<(OpenDialog, Part)> {
    r.grounding.method = "ref".into();
    r.grounding.r#ref = Some(t);
    let node = state.node(t)?;
    let Some((seq, part)) = parse_handle(&node.handle) else {
        let why = match page.dialog() {
            Some(d) => d.blocked(false).to_string(),
            None => "the page changed".into(),
        };
        return Err(
            Error::new(ErrorCode::NotSupported, format!("{why}; nothing was sent")).with_hint(
                "Answer the dialog first (press OK or Cancel on it), then observe the page again.",
            ),
        );
    };
    let d = page
        .dialog()
        .filter(|d| d.seq == seq)
        .ok_or_else(|| gone_ref(&format!("the dialog of {t}")))?;
    Ok((d, part))
}

/// The prompt whose field `t` names (or, without a ref, the open prompt: its field has the
/// focus).
fn field(
    page: &Page,
    state: &State,
    r: &mut StepReport,
    t: Option<ElementRef>,
) -> Result<(OpenDialog, Part)> {
    let (d, part) = match t {
        Some(t) => resolve(page, state, r, t)?,
        None => {
            r.grounding.method = "focus".into();
            let d = page.dialog().ok_or_else(|| gone_ref("the dialog"))?;
            (d, Part::Field)
        }
    };
    if part != Part::Field || d.kind != Kind::Prompt {
        return Err(Error::unsupported(
            "only a prompt dialog has a text field; nothing was sent",
        ));
    }
    Ok((d, part))
}

/// Stores the prompt's answer and reads it back.
fn store(page: &Page, d: &OpenDialog, r: &mut StepReport, text: String) -> Result<()> {
    r.delivery.method = "value".into();
    if !page.dialogs().set_text(d.seq, text.clone()) {
        return Err(gone_ref("the dialog"));
    }
    r.delivery.delivered = Delivery::Delivered;
    r.delivery.detail = Some("kept as the text OK sends (Page.handleJavaScriptDialog)".into());
    let now = page.dialog().filter(|o| o.seq == d.seq).map(|o| o.text);
    verify(
        r,
        "read-back",
        now.as_deref() == Some(text.as_str()),
        "the field holds exactly the text",
        "the field holds other text",
    );
    Ok(())
}

/// Accepts or dismisses the dialog; verified by its closing event carrying that answer.
async fn answer(
    page: &Page,
    d: &OpenDialog,
    accept: bool,
    r: &mut StepReport,
    deadline: Deadline,
) -> Result<()> {
    if !accept && d.kind == Kind::Alert {
        return Err(Error::unsupported("an alert has only OK; nothing was sent"));
    }
    let prompt_text = (accept && d.kind == Kind::Prompt).then_some(d.text.as_str());
    r.delivery.method = "semantic-action".into();
    r.delivery.delivered = Delivery::Maybe;
    let cmd = HandleJavaScriptDialog {
        accept,
        prompt_text,
    };
    if let Err(e) = page.send(&cmd, deadline).await {
        // "No dialog is showing": it closed before the answer (nothing was applied).
        if let CdpError::Protocol { .. } = e {
            r.delivery.delivered = Delivery::NotDelivered;
            return Err(gone_ref("the dialog"));
        }
        return Err(e.into());
    }
    r.delivery.delivered = Delivery::Delivered;
    let (yes, no) = d.kind.buttons();
    r.delivery.detail = Some(format!(
        "Page.handleJavaScriptDialog: {}",
        if accept { yes } else { no.unwrap_or("Cancel") }
    ));
    let Some(c) = page
        .dialogs()
        .wait_closed(d.seq, deadline.cap(CLOSE_WAIT))
        .await
    else {
        r.verification.method = "event".into();
        r.verification.detail = Some("the dialog did not report that it closed".into());
        return Ok(());
    };
    let same_text = prompt_text.is_none_or(|t| t == c.user_input);
    let got = match (d.kind, accept) {
        (Kind::Alert, _) => "alert() returned".to_string(),
        (Kind::Confirm, a) => format!("confirm() returned {a}"),
        (Kind::Prompt, true) => format!(
            "prompt() returned the field's text ({} chars)",
            c.user_input.chars().count()
        ),
        (Kind::Prompt, false) => "prompt() returned null".to_string(),
        (Kind::BeforeUnload, true) => "the page is being left".to_string(),
        (Kind::BeforeUnload, false) => "the page stays".to_string(),
    };
    verify(
        r,
        "event",
        c.accepted == accept && same_text,
        &format!("the dialog closed: {got}"),
        "the dialog closed with another answer than the one sent",
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialog(kind: Kind) -> OpenDialog {
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
    fn handles_round_trip_and_are_not_page_handles() {
        for (p, _) in Part::ALL {
            let h = handle(7, p);
            assert!(is_handle(&h));
            assert_eq!(parse_handle(&h), Some((7, p)));
            assert_eq!(crate::extract::parse_handle(&h), None);
        }
        assert_eq!(parse_handle("cdp-dialog:x:ok"), None);
        assert_eq!(parse_handle("cdp-dialog:7:nope"), None);
    }

    #[test]
    fn snapshots_show_buttons_by_kind_and_the_prompt_field() {
        let alert = snapshot(&dialog(Kind::Alert));
        alert.check().unwrap();
        let names: Vec<_> = alert.nodes.iter().map(|n| n.role).collect();
        assert_eq!(names, [Role::Dialog, Role::Label, Role::Button]);
        let prompt = snapshot(&dialog(Kind::Prompt));
        prompt.check().unwrap();
        assert_eq!(prompt.nodes.len(), 5);
        assert_eq!(prompt.nodes[2].role, Role::Text);
        assert_eq!(
            prompt.nodes[2].value.known().map(String::as_str),
            Some("Ada")
        );
        assert_eq!(prompt.nodes[4].name.text(), Some("Cancel"));
        let page = page_snapshot("Page", &dialog(Kind::Confirm));
        page.check().unwrap();
        assert_eq!(page.nodes[1].role, Role::Dialog);
        assert_eq!(page.nodes.len(), 5);
    }

    #[test]
    fn a_beforeunload_dialog_has_a_name_and_leave() {
        let mut d = dialog(Kind::BeforeUnload);
        d.message.clear();
        assert!(d.title().starts_with("Leave site?"));
        assert_eq!(Kind::parse("beforeunload").buttons().0, "Leave");
    }
}
