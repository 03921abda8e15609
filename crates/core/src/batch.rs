//! The batch of one act, run the same way on every backend: steps in order, each refused when
//! the call's deadline has passed or when the headless policy forbids what it needs, `wait`
//! slept here, every other step performed by the backend's [`StepDriver`], its delivery made
//! to agree between the report and its error, its verdict drawn from the evidence, and the
//! batch stopped at the first step that did not work, or at the first step after the caller
//! cancelled the call (the safe point: a step is either sent whole or not at all).
//!
//! A backend supplies only what differs per platform: how a ref is grounded, how one step is
//! delivered, how its effect is read back. The `expect` postcondition is waited for by
//! [`crate::watch`] after the batch; the looks it judges are the service's (`act_ui`), as
//! they need the store, the lanes and the root listing.

use std::future::Future;
use std::time::Duration;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::action::Step;
use crate::backend::Deadline;
use crate::error::{Error, ErrorCode};
use crate::outcome::{Delivery, Outcome, StepReport};

tokio::task_local! {
    /// The cancellation of the call whose batch runs in this task. A task-local rather than a
    /// parameter: it belongs to the call, not to the backend, so it reaches the runner without
    /// every backend's `act` forwarding it.
    static CANCEL: CancellationToken;
}

/// Runs `act` (a backend's `Backend::act`) so that [`run_batch`] inside it refuses every step
/// that would start after `cancel` fired, and cuts a `wait` step short.
pub async fn cancellable<F: Future>(cancel: CancellationToken, act: F) -> F::Output {
    CANCEL.scope(cancel, act).await
}

/// The cancellation of the current call, when it was run by [`cancellable`].
fn cancellation() -> Option<CancellationToken> {
    CANCEL.try_with(CancellationToken::clone).ok()
}

/// The error of a step the cancellation stopped: nothing of it was sent.
fn cancelled_step() -> Error {
    Error::new(
        ErrorCode::Cancelled,
        "the call was cancelled before this step, which was not run",
    )
}

/// A backend's part of a batch: one step at a time, with its evidence.
#[async_trait]
pub trait StepDriver: Send + Sync {
    /// Whether `step` can only be done with physical input (the OS pointer, injected keys,
    /// focus changes) here. Under `headless` such a step is refused before anything is sent.
    /// A step that tries a semantic way first says no and refuses inside [`Self::perform`]
    /// only when it must fall back.
    fn needs_foreground(&self, step: &Step) -> bool {
        let _ = step;
        false
    }

    /// Performs one step (never `wait`), recording in `r` how it was grounded, delivered and
    /// verified, and the error when it failed. It must not set the outcome: the runner
    /// concludes it from the evidence.
    async fn perform(&self, r: &mut StepReport, step: &Step);

    /// Runs after a step's verdict, before the next step (e.g. to let a window the step
    /// opened be listed).
    async fn settled(&self, r: &StepReport) {
        let _ = r;
    }
}

/// Runs `steps` in order on `driver`, stopping after the first that did not work. Returns one
/// report per step that ran or was refused.
pub async fn run_batch(
    driver: &dyn StepDriver,
    steps: &[Step],
    headless: bool,
    deadline: Deadline,
) -> Vec<StepReport> {
    let mut reports = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        let report = run_step(driver, i, step, headless, deadline).await;
        driver.settled(&report).await;
        tracing::debug!(
            step = i,
            action = step.name(),
            outcome = report.outcome.as_str(),
            "step done"
        );
        let stop = !goes_on(&report, step, steps.get(i + 1));
        reports.push(report);
        if stop {
            break;
        }
    }
    reports
}

/// Whether the batch goes on after `step` ended as `report`. A step that worked lets it go on,
/// one that did not work stops it. An `unknown` one stops what depends on it, except typing
/// into the same element: keys and text typed after keys or text whose effect could not be
/// read (a terminal, a canvas editor) go where the user's next keys would, so `ctrl+a`, text
/// and `Return` run as one batch and the call's `expect` judges the result.
fn goes_on(report: &StepReport, step: &Step, next: Option<&Step>) -> bool {
    match report.outcome {
        Outcome::Worked => true,
        Outcome::Didnt => false,
        Outcome::Unknown => {
            report.error.is_none()
                && typing_target(step)
                    .zip(next.and_then(typing_target))
                    .is_some_and(|(a, b)| b.is_none() || a == b)
        }
    }
}

/// The element a keyboard step types into: `Some(None)` for the focused element, `None` for a
/// step that is not typing.
fn typing_target(step: &Step) -> Option<Option<crate::ElementRef>> {
    match step {
        Step::TypeText(r, _) | Step::Keypress(r, _) => Some(*r),
        _ => None,
    }
}

async fn run_step(
    driver: &dyn StepDriver,
    i: usize,
    step: &Step,
    headless: bool,
    deadline: Deadline,
) -> StepReport {
    if deadline.expired() {
        return StepReport::refused(
            i,
            step.name(),
            Error::new(
                ErrorCode::Timeout,
                "the call's deadline passed before this step, which was not run",
            )
            .with_hint("Raise timeoutMs, or split the batch."),
        );
    }
    if headless && driver.needs_foreground(step) {
        return StepReport::refused(
            i,
            step.name(),
            Error::new(
                ErrorCode::ForegroundRequired,
                format!(
                    "{} needs physical input here; headless: true forbids pointer, keyboard and focus changes, and nothing was sent",
                    step.name()
                ),
            ),
        );
    }
    let cancel = cancellation();
    if cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
        return StepReport::refused(i, step.name(), cancelled_step());
    }
    let mut r = StepReport::new(i, step.name());
    match step {
        Step::Wait(ms) => {
            let d = Duration::from_millis(*ms).min(deadline.remaining());
            let start = tokio::time::Instant::now();
            let cancelled = match cancel {
                Some(c) => tokio::time::timeout(d, c.cancelled_owned()).await.is_ok(),
                None => {
                    tokio::time::sleep(d).await;
                    false
                }
            };
            let waited = start.elapsed().min(d).as_millis();
            r.verification.detail = Some(format!("waited {waited} ms"));
            if cancelled {
                r.error = Some(Error::new(
                    ErrorCode::Cancelled,
                    format!(
                        "the call was cancelled {waited} ms into this wait of {} ms",
                        d.as_millis()
                    ),
                ));
            }
        }
        _ => driver.perform(&mut r, step).await,
    }
    agree_on_delivery(&mut r);
    r.conclude()
}

/// Makes the report's delivery and its error's say the same: whichever knows that input may
/// have gone out (or did) wins over one that says nothing was sent.
fn agree_on_delivery(r: &mut StepReport) {
    let Some(e) = r.error.as_mut() else {
        return;
    };
    match (r.delivery.delivered, e.delivery) {
        (Delivery::NotDelivered, d) => r.delivery.delivered = d,
        (d, Delivery::NotDelivered) => e.delivery = d,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Target;
    use crate::ElementRef;
    use std::sync::Mutex;

    /// Records the steps it was given; `press` works, `check` fails after sending, `click`
    /// needs the foreground.
    #[derive(Default)]
    struct Script(Mutex<Vec<&'static str>>);

    #[async_trait]
    impl StepDriver for Script {
        fn needs_foreground(&self, step: &Step) -> bool {
            matches!(step, Step::Click { .. })
        }
        async fn perform(&self, r: &mut StepReport, step: &Step) {
            self.0.lock().unwrap().push(step.name());
            match step {
                Step::Press(_) => {
                    r.delivery.delivered = Delivery::Delivered;
                    r.verification.passed = Some(true);
                }
                _ => {
                    r.delivery.delivered = Delivery::Maybe;
                    r.error = Some(Error::new(ErrorCode::Timeout, "no answer"));
                }
            }
        }
    }

    fn e(n: u32) -> ElementRef {
        format!("@e{n}").parse().unwrap()
    }

    fn run(steps: &[Step], headless: bool, deadline: Deadline) -> (Vec<StepReport>, Script) {
        let s = Script::default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let reports = rt.block_on(run_batch(&s, steps, headless, deadline));
        (reports, s)
    }

    #[test]
    fn the_batch_stops_at_the_first_step_that_did_not_work() {
        let steps = [Step::Press(e(1)), Step::Check(e(2)), Step::Press(e(3))];
        let (r, s) = run(&steps, false, Deadline::after(Duration::from_secs(5)));
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].outcome, Outcome::Worked);
        assert_eq!(r[1].outcome, Outcome::Unknown);
        // The error learns what the report knew: input may have gone out.
        assert_eq!(r[1].error.as_ref().unwrap().delivery, Delivery::Maybe);
        assert_eq!(*s.0.lock().unwrap(), ["press", "check"]);
    }

    /// Typing whose effect could not be read: delivered, unverified.
    struct Unread;

    #[async_trait]
    impl StepDriver for Unread {
        async fn perform(&self, r: &mut StepReport, _: &Step) {
            r.delivery.delivered = Delivery::Delivered;
        }
    }

    #[test]
    fn unknown_typing_goes_on_into_the_same_element_and_nothing_else_does() {
        let keys = |r: Option<ElementRef>| Step::Keypress(r, vec![]);
        let text = |r: Option<ElementRef>| Step::TypeText(r, "x".into());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let d = || Deadline::after(Duration::from_secs(5));
        let ran = |steps: &[Step]| rt.block_on(run_batch(&Unread, steps, false, d())).len();
        // ctrl+a, text, Return on the focused element: all three run.
        assert_eq!(ran(&[keys(None), text(None), keys(None)]), 3);
        // Into a ref, then on at the focus (the ref has it now): goes on.
        assert_eq!(ran(&[text(Some(e(1))), keys(None)]), 2);
        // Into another element, or a step that is not typing: stops.
        assert_eq!(ran(&[text(Some(e(1))), text(Some(e(2)))]), 1);
        assert_eq!(ran(&[keys(None), Step::Press(e(1))]), 1);
        assert_eq!(ran(&[Step::Press(e(1)), keys(None)]), 1);
    }

    #[test]
    fn headless_refuses_foreground_steps_before_the_driver_sees_them() {
        let click = Step::Click {
            target: Target::Ref(e(1)),
            button: crate::action::Button::Left,
            count: 1,
        };
        let (r, s) = run(&[click], true, Deadline::after(Duration::from_secs(5)));
        assert_eq!(r[0].outcome, Outcome::Didnt);
        assert_eq!(
            r[0].error.as_ref().unwrap().code,
            ErrorCode::ForegroundRequired
        );
        assert!(s.0.lock().unwrap().is_empty());
    }

    #[test]
    fn a_cancelled_call_sends_no_step_after_the_safe_point() {
        let cancel = CancellationToken::new();
        let steps = [Step::Press(e(1)), Step::Wait(5_000), Step::Press(e(2))];
        let s = Script::default();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let reports = rt.block_on(async {
            let c = cancel.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                c.cancel();
            });
            let start = std::time::Instant::now();
            let d = Deadline::after(Duration::from_secs(10));
            let r = cancellable(cancel.clone(), run_batch(&s, &steps, false, d)).await;
            // The wait was cut short, not slept out.
            assert!(
                start.elapsed() < Duration::from_secs(2),
                "{:?}",
                start.elapsed()
            );
            r
        });
        assert_eq!(
            reports.len(),
            2,
            "the step after the cancelled wait is not reported run"
        );
        assert_eq!(reports[0].outcome, Outcome::Worked);
        assert_eq!(reports[0].delivery.delivered, Delivery::Delivered);
        let wait = reports[1].error.as_ref().unwrap();
        assert_eq!(wait.code, ErrorCode::Cancelled);
        assert_eq!(wait.delivery, Delivery::NotDelivered);
        assert_eq!(reports[1].outcome, Outcome::Didnt);
        assert_eq!(
            *s.0.lock().unwrap(),
            ["press"],
            "the second press was never sent"
        );
        // Cancelled before the batch: nothing is sent at all.
        let s = Script::default();
        let d = Deadline::after(Duration::from_secs(5));
        let r = rt.block_on(cancellable(cancel, run_batch(&s, &steps, false, d)));
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].error.as_ref().unwrap().code, ErrorCode::Cancelled);
        assert!(s.0.lock().unwrap().is_empty());
    }

    #[test]
    fn a_passed_deadline_refuses_the_step_and_wait_is_the_runners() {
        let (r, s) = run(
            &[Step::Wait(1), Step::Press(e(1))],
            false,
            Deadline::after(Duration::ZERO),
        );
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].error.as_ref().unwrap().code, ErrorCode::Timeout);
        assert!(s.0.lock().unwrap().is_empty());
        let (r, _) = run(
            &[Step::Wait(5)],
            false,
            Deadline::after(Duration::from_secs(5)),
        );
        assert_eq!(r[0].outcome, Outcome::Worked);
        assert_eq!(r[0].verification.detail.as_deref(), Some("waited 5 ms"));
    }
}
