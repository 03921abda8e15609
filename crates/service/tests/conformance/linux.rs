//! The Linux backend's fixture: a fresh isolated desktop (uidriver-sandbox: Xvfb, a private
//! D-Bus, the AT-SPI bus, openbox) with the GTK 3 fixture app (`tests/fixtures/conformance_app.py`
//! on the system python with python3-gi) and a `LinuxBackend` connected to that desktop only.
//! Dropping the fixture stops the sandbox, which stops every process it started, by pid.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uidriver_backend_linux::{LinuxBackend, LinuxConfig};
use uidriver_sandbox::testing::have;
use uidriver_sandbox::{Sandbox, SandboxConfig};
use uidriver_service::{FileAccess, Service, ServiceConfig};

use crate::fixture::{self, Fixture};

/// The Linux desktop backend.
pub struct Linux;

static SERIAL: Mutex<()> = Mutex::new(());

/// The system python: python3-gi is installed for it, not for a pyenv python on `PATH`.
const PYTHON: &str = "/usr/bin/python3";

/// Programs the fixture cannot run without (the sandbox's own and the app's interpreter).
const NEEDS: &[&str] = &["Xvfb", "dbus-daemon", "openbox", PYTHON];

fn app_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conformance_app.py")
        .display()
        .to_string()
}

impl fixture::Backend for Linux {
    fn serial() -> &'static Mutex<()> {
        &SERIAL
    }

    async fn start() -> Fixture {
        if let Some(p) = NEEDS.iter().find(|p| !have(p)) {
            panic!("the Linux fixture needs {p}, which is not installed (scripts/install-deps.sh installs it)");
        }
        let sb = tokio::task::spawn_blocking(start_desktop)
            .await
            .expect("the desktop's start did not panic");
        let cfg = LinuxConfig::from_vars(sb.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let linux = LinuxBackend::connect(cfg)
            .await
            .expect("the Linux backend connects to the sandbox");
        let svc = Service::new(
            vec![Arc::new(linux) as Arc<dyn uidriver_core::Backend>],
            vec![],
            ServiceConfig::default().with_files(FileAccess::unrestricted("a test of other rules")),
        );
        Fixture::new(svc, Some(Box::new(sb))).await
    }
}

/// A sandbox with the fixture app showing its window on the accessibility bus.
fn start_desktop() -> Sandbox {
    let sb = Sandbox::start(SandboxConfig::default()).expect("the sandbox starts");
    let pid = sb
        .spawn(&[PYTHON.to_string(), app_script()])
        .expect("the fixture app spawns");
    sb.wait_for_app_window(pid, Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("the GTK fixture app showed no window: {e}"));
    sb
}
