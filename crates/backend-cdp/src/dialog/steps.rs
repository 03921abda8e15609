//! Answering an open dialog: press (or click) OK/Cancel, Return/Escape →
//! `Page.handleJavaScriptDialog`, verified by the closing event carrying that answer;
//! setText/typeText on a prompt's field keep the text OK sends. The batch is core's
//! `run_batch`, as on the page.

use std::time::Duration;

use async_trait::async_trait;
use uidriver_core::action::{Button, Target};
use uidriver_core::{
    run_batch, ActRequest, Deadline, Delivery, DeliveryMethod, ElementRef, Error, ErrorCode,
    GroundingMethod, Result, State, Step, StepDriver, StepReport, VerificationMethod,
};

use super::view::{gone_ref, is_handle, parse_handle, Part};
use crate::dialog_kind::Kind;
use crate::dialog_state::OpenDialog;
use crate::error::CdpError;
use crate::page::Page;
use crate::protocol::HandleJavaScriptDialog;
use crate::verify::verify;

/// How long an answered dialog may take to report that it closed (measured: ~1 ms).
const CLOSE_WAIT: Duration = Duration::from_secs(5);

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

/// Runs steps on the page's dialog (core's runner: stops at the first that did not work).
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
    let driver = Driver {
        page,
        state: req.state,
        deadline,
    };
    Ok(run_batch(&driver, req.steps, req.headless, deadline).await)
}

/// The dialog's step driver. Every step is allowed under `headless`: answering a dialog is a
/// protocol command, not input.
struct Driver<'a> {
    page: &'a Page,
    state: &'a State,
    deadline: Deadline,
}

#[async_trait]
impl StepDriver for Driver<'_> {
    async fn perform(&self, r: &mut StepReport, step: &Step) {
        if let Err(e) = run_step(self.page, self.state, r, step, self.deadline).await {
            r.error = Some(e);
        }
    }
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
            r.grounding.method = GroundingMethod::Focus;
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
    r.grounding.method = GroundingMethod::Ref;
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
            r.grounding.method = GroundingMethod::Focus;
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
    r.delivery.method = DeliveryMethod::Value;
    if !page.dialogs().set_text(d.seq, text.clone()) {
        return Err(gone_ref("the dialog"));
    }
    r.delivery.delivered = Delivery::Delivered;
    r.delivery.detail = Some("kept as the text OK sends (Page.handleJavaScriptDialog)".into());
    let now = page.dialog().filter(|o| o.seq == d.seq).map(|o| o.text);
    verify(
        r,
        VerificationMethod::ReadBack,
        now.as_deref() == Some(text.as_str()),
        "",
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
    r.delivery.method = DeliveryMethod::SemanticAction;
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
    // Which button the answer was is the step's own; the dialog's closing is its evidence.
    let Some(c) = page
        .dialogs()
        .wait_closed(d.seq, deadline.cap(CLOSE_WAIT))
        .await
    else {
        r.verification.method = VerificationMethod::Event;
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
        VerificationMethod::Event,
        c.accepted == accept && same_text,
        &format!("the dialog closed: {got}"),
        "the dialog closed with another answer than the one sent",
    );
    Ok(())
}
