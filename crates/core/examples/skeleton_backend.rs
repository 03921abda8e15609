//! The smallest backend that compiles and fails closed: the starting point for a new platform
//! (Wayland, Windows UI Automation, macOS AX). Copy it into a new crate, then fill in one
//! capability at a time; every method left as the port's default answers `not_supported`, and
//! every step the driver does not know is refused before anything is sent.
//!
//! The order that works: `list_roots` (what is open), `observe` (a root as `Node`s in core's
//! vocabularies), then `StepDriver::perform` one step kind at a time with a read-back for each.
//! Run the conformance suite (`cargo test -p uidriver-service --test conformance`) with a fixture
//! module for the new backend as soon as `observe` works: it says what is still missing.
//!
//! `cargo run -p uidriver-core --example skeleton_backend` runs one act against it.

use async_trait::async_trait;
use uidriver_core::{
    run_batch, ActRequest, Backend, Deadline, Error, ErrorCode, Result, RootInfo, Step, StepDriver,
    StepReport,
};

/// A backend that sees nothing and does nothing, saying so.
struct Skeleton;

#[async_trait]
impl Backend for Skeleton {
    fn name(&self) -> &'static str {
        "skeleton"
    }

    /// Nothing is open yet: an empty list is true here. A real backend that cannot reach its
    /// platform answers `backend_unavailable` naming what is missing, never an empty list.
    async fn list_roots(&self, _deadline: Deadline) -> Result<Vec<RootInfo>> {
        Ok(Vec::new())
    }

    // `observe`, `observe_region`, `read_text`, `capture`: the port's defaults refuse them.

    /// The batch rules are core's; this backend only performs steps.
    async fn act(&self, req: ActRequest<'_>, deadline: Deadline) -> Result<Vec<StepReport>> {
        Ok(run_batch(&Driver, req.steps, req.headless, deadline).await)
    }
}

/// Performs no step: each is refused with nothing sent, so its outcome is `didnt`.
struct Driver;

#[async_trait]
impl StepDriver for Driver {
    async fn perform(&self, r: &mut StepReport, step: &Step) {
        r.error = Some(Error::new(
            ErrorCode::NotSupported,
            format!("the skeleton backend cannot {} yet", step.name()),
        ));
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let deadline = Deadline::after(std::time::Duration::from_secs(1));
    let steps = [Step::Wait(1), Step::Press("@e1".parse().expect("a ref"))];
    let reports = rt.block_on(run_batch(&Driver, &steps, false, deadline));
    for r in &reports {
        eprintln!(
            "{} → {}{}",
            r.action,
            r.outcome.as_str(),
            r.error
                .as_ref()
                .map(|e| format!(": {}", e.message))
                .unwrap_or_default()
        );
    }
    let roots = rt
        .block_on(Skeleton.list_roots(deadline))
        .expect("a listing");
    eprintln!("{} roots; {} backend", roots.len(), Skeleton.name());
}
