//! The CDP backend's fixture: a headless Chromium launched by the backend (a fresh profile of
//! its own) on the page `tests/fixtures/conformance.html`. The backend owns the browser:
//! `Service::shutdown` stops it at the end of a test, and the backend's drop kills it by pid
//! on a panic.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::json;
use uidriver_backend_cdp::{CdpBackend, CdpConfig};
use uidriver_service::{FileAccess, Service, ServiceConfig};

use crate::fixture::{self, Fixture};

/// The Chrome DevTools Protocol backend.
pub struct Cdp;

static SERIAL: Mutex<()> = Mutex::new(());

impl fixture::Backend for Cdp {
    fn serial() -> &'static Mutex<()> {
        &SERIAL
    }

    async fn start() -> Fixture {
        let config = CdpConfig {
            headless: Some(true),
            ..CdpConfig::default()
        };
        if !config.chromium.exists() {
            panic!(
                "the CDP fixture needs {}, which is not installed (scripts/install-deps.sh installs it)",
                config.chromium.display()
            );
        }
        let page = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/conformance.html")
            .canonicalize()
            .expect("the fixture page exists");
        let cdp = Arc::new(CdpBackend::new(config));
        let svc = Service::new(
            vec![cdp as Arc<dyn uidriver_core::Backend>],
            vec![],
            ServiceConfig::default().with_files(FileAccess::unrestricted("a test of other rules")),
        );
        let url = format!("file://{}", page.display());
        let r = svc
            .call("launch_browser", json!({ "url": url, "headless": true }))
            .await;
        assert!(!r.is_error, "launch_browser: {}", r.text);
        Fixture::new(svc, None).await
    }
}
