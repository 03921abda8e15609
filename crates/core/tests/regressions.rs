//! One test per bug fixed in core's rules, named for what must stay true, with where it was
//! found. A new fix adds its test here.

use std::time::Duration;

use async_trait::async_trait;
use uidriver_core::{
    run_batch, Deadline, Delivery, Error, ErrorCode, Outcome, Step, StepDriver, StepReport,
    TextSlice,
};

/// Sends and fails: delivered, then an error that does not say so.
struct SendsThenFails;

#[async_trait]
impl StepDriver for SendsThenFails {
    async fn perform(&self, r: &mut StepReport, _: &Step) {
        r.delivery.delivered = Delivery::Delivered;
        r.error = Some(Error::new(ErrorCode::Timeout, "no answer"));
    }
}

fn run(steps: &[Step], deadline: Deadline) -> Vec<StepReport> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(run_batch(&SendsThenFails, steps, false, deadline))
}

/// Stop 19 (issue 17): only the CDP backend told a caller, in the error, that a failed step's
/// input had gone out; Linux and memory said `not_delivered` there. The runner makes them agree.
#[test]
fn a_failed_steps_error_says_its_input_went_out() {
    let r = run(
        &[Step::Press("@e1".parse().unwrap())],
        Deadline::after(Duration::from_secs(5)),
    );
    assert_eq!(r[0].outcome, Outcome::Unknown);
    assert_eq!(r[0].error.as_ref().unwrap().delivery, Delivery::Delivered);
}

/// Stop 19 (issue 17): only the Linux backend refused a step once the call's deadline had
/// passed; CDP and memory ran it anyway.
#[test]
fn no_step_runs_after_the_deadline() {
    let r = run(
        &[Step::Press("@e1".parse().unwrap())],
        Deadline::after(Duration::ZERO),
    );
    assert_eq!(r[0].outcome, Outcome::Didnt);
    assert_eq!(r[0].error.as_ref().unwrap().code, ErrorCode::Timeout);
    assert_eq!(r[0].delivery.delivered, Delivery::NotDelivered);
}

/// Stop 19 (issue 17): the three backends clamped text ranges three ways; a range past the end
/// or reversed is empty at the clamped start, never a panic or a wrong slice.
#[test]
fn text_ranges_past_the_end_or_reversed_are_empty() {
    let t = TextSlice::of("abc", 5, 9);
    assert_eq!((t.text.as_str(), t.start, t.end, t.total), ("", 3, 3, 3));
    let t = TextSlice::of("abc", 2, 1);
    assert_eq!((t.text.as_str(), t.start, t.end), ("", 2, 2));
}
