//! How a step's effect is recorded ([`verify`]) and, for pointer and key input, observed: the
//! event probe ([`probe`], `js/probe.js`) counts the events that reach an element or a window
//! from before the input is sent until it is read ([`counted`]); a document replaced meanwhile,
//! or a JavaScript dialog the input opened ([`opened_by_step`]), is the page's reaction.
//!
//! The steps judge their own read-backs (`act.rs`, `edit.rs`, `files.rs`, `dialog/steps.rs`)
//! and record them here; this file sits below them all, so the dialog's steps record verdicts
//! without importing the page's step driver.

use serde_json::{json, Value};
use uidriver_core::action::Button;
use uidriver_core::{Deadline, Delivery, Error, ErrorCode, Result, StepReport, VerificationMethod};

use crate::dialog_state::OpenDialog;
use crate::error::{maybe_delivered, CdpError};
use crate::page::Page;
use crate::protocol::CallArgument;

/// Our scripts' namespace in a world, where `js/probe.js` keeps the probe.
const U: &str = "globalThis[Symbol.for('uidriver')]";

/// Counts the named events reaching `this` (capture phase) until read.
const PROBE_JS: &str = include_str!("js/probe.js");

/// Records a step's verification: `yes` as its detail when `ok`, else `no`. An empty detail is
/// none: a read-back that found exactly what the step asked for needs no words beyond its
/// method.
pub(crate) fn verify(
    r: &mut StepReport,
    method: VerificationMethod,
    ok: bool,
    yes: &str,
    no: &str,
) {
    r.verification.method = method;
    r.verification.passed = Some(ok);
    let detail = if ok { yes } else { no };
    r.verification.detail = (!detail.is_empty()).then(|| detail.to_string());
}

/// Marks a pointer or key step whose input opened a dialog: delivered, and the dialog's
/// opening is the page's reaction (the reply to the input would come only once it closed).
pub(crate) fn opened_by_step(r: &mut StepReport, d: &OpenDialog) {
    r.delivery.delivered = Delivery::Delivered;
    verify(
        r,
        VerificationMethod::Event,
        true,
        &format!("{} dialog opened", d.kind.a()),
        "",
    );
}

/// Starts counting pointer/key events that reach the element (capture phase, our world).
pub(crate) async fn probe(
    page: &Page,
    obj: &str,
    events: &[&str],
    deadline: Deadline,
) -> Result<()> {
    let arg = CallArgument {
        value: Some(json!(events)),
        object_id: None,
    };
    page.call_on(obj, PROBE_JS, vec![arg], deadline).await?;
    Ok(())
}

/// Reads the counts; None when the document was replaced meanwhile (a navigation), which is
/// then the step's verified effect, recorded on `r`.
pub(crate) async fn counted(
    r: &mut StepReport,
    page: &Page,
    deadline: Deadline,
) -> Result<Option<Value>> {
    let expr = format!(
        "(() => {{ const U = {U}; if (!U || !U.probe) return null; const s = U.probe.seen; \
         U.probe.off(); U.probe = null; return s; }})()"
    );
    let seen = match page.eval_value(&expr, deadline).await {
        Ok(Value::Null) => None,
        Ok(v) => Some(v),
        Err(CdpError::TargetClosed(m)) => {
            return Err(Error::new(ErrorCode::TargetClosed, m).delivered(Delivery::Delivered))
        }
        Err(e) => return Err(maybe_delivered(e)),
    };
    if seen.is_none() {
        verify(
            r,
            VerificationMethod::RootChange,
            true,
            "the page loaded a new document",
            "",
        );
    }
    Ok(seen)
}

/// Verifies a click on an element of `page` whose events [`probe`] counts: a dialog it
/// opened, a new document, or the event its button sends reaching the element.
pub(crate) async fn click(
    r: &mut StepReport,
    page: &Page,
    button: Button,
    count: u8,
    deadline: Deadline,
) -> Result<()> {
    if let Some(d) = page.dialog() {
        opened_by_step(r, &d);
        return Ok(());
    }
    if let Some(seen) = counted(r, page, deadline).await? {
        let n = |k: &str| seen.get(k).and_then(Value::as_u64).unwrap_or(0);
        let (ok, what) = match button {
            Button::Left => (n("click") >= u64::from(count), "click"),
            Button::Right => (n("contextmenu") + n("mouseup") > 0, "contextmenu"),
            Button::Middle => (n("auxclick") + n("mouseup") > 0, "auxclick"),
        };
        verify(
            r,
            VerificationMethod::State,
            ok,
            &format!("{what} received"),
            &format!("no {what} event reached the element"),
        );
    }
    Ok(())
}
