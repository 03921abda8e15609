//! Which backends exist: the one place that knows. Each backend that fails to start is recorded
//! with its reason, so calls that need it answer `backend_unavailable` with that reason.

use std::sync::Arc;

use uidriver_core::Backend;
use uidriver_service::{default_id_file, FileAccess, Policy, Service, ServiceConfig};

use crate::cli::ServiceFlags;

/// Builds the service with every backend this platform has, checking every call against
/// `policy` (loaded from `flags.policy` by the caller, which reports a bad file).
pub async fn build_service(flags: &ServiceFlags, policy: Option<Arc<Policy>>) -> Service {
    let mut backends: Vec<Arc<dyn Backend>> = Vec::new();
    let mut unavailable = Vec::new();
    match uidriver_backend_linux::LinuxBackend::from_env().await {
        Ok(b) => backends.push(Arc::new(b)),
        Err(e) => {
            tracing::warn!(error = %e, "the Linux desktop backend is unavailable");
            unavailable.push(("linux".to_string(), uidriver_core::Error::from(e)));
        }
    }
    // The browser backend needs nothing at start: it launches or attaches on demand.
    backends.push(Arc::new(uidriver_backend_cdp::CdpBackend::new(
        uidriver_backend_cdp::CdpConfig::default(),
    )));
    let config = ServiceConfig {
        id_file: default_id_file(),
        allow_evaluate: allows_evaluate(flags, policy.as_deref()),
        files: FileAccess::for_caller(
            policy.as_deref(),
            flags.allow_unrestricted_file_access,
            "the uidriver daemon",
        ),
        policy,
        ..ServiceConfig::default()
    };
    Service::new(backends, unavailable, config)
}

/// Every platform's environment checks, whether or not its backend can start (the doctor
/// command runs them through the port's `Doctor`, knowing no platform by name).
pub fn doctors() -> Vec<Box<dyn uidriver_core::Doctor>> {
    vec![
        Box::new(uidriver_backend_linux::doctor::LinuxDoctor::new(
            uidriver_backend_linux::LinuxConfig::from_env(),
        )),
        Box::new(uidriver_backend_cdp::CdpDoctor::new(
            uidriver_backend_cdp::CdpConfig::default(),
        )),
    ]
}

/// Whether evaluate_browser is switched on: `--allow-evaluate`, `UIDRIVER_ALLOW_EVALUATE=1`,
/// or a policy that says `[browser] evaluate = true` (one that says false denies it anyway).
pub fn allows_evaluate(flags: &ServiceFlags, policy: Option<&Policy>) -> bool {
    flags.allow_evaluate
        || std::env::var("UIDRIVER_ALLOW_EVALUATE").is_ok_and(|v| v == "1")
        || policy.is_some_and(Policy::enables_evaluate)
}
