//! The Linux backend's fixtures: a fresh isolated desktop (uidriver-sandbox: Xvfb, a private
//! D-Bus, the AT-SPI bus, openbox; or with `Wayland`, a headless sway instead of Xvfb and
//! openbox) with the GTK 3 fixture app (`tests/fixtures/conformance_app.py` on the system
//! python with python3-gi; a native Wayland client under sway) and a `LinuxBackend` connected
//! to that desktop only, which picks X11 or Wayland from the sandbox's environment as it does
//! from a user's. Dropping the fixture stops the sandbox, which stops every process it
//! started, by pid.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uidriver_backend_linux::{LinuxBackend, LinuxConfig, Platform};
use uidriver_sandbox::testing::have;
use uidriver_sandbox::{DisplayServer, Sandbox, SandboxConfig};
use uidriver_service::{FileAccess, Service, ServiceConfig};

use crate::fixture::{self, Fixture};

/// The Linux desktop backend on X11.
pub struct Linux;

/// The Linux desktop backend on Wayland (sway).
pub struct Wayland;

static SERIAL: Mutex<()> = Mutex::new(());

/// The system python: python3-gi is installed for it, not for a pyenv python on `PATH`.
const PYTHON: &str = "/usr/bin/python3";

/// Programs the X11 fixture cannot run without (the sandbox's own and the app's interpreter).
const NEEDS: &[&str] = &["Xvfb", "dbus-daemon", "openbox", PYTHON];
/// Programs the Wayland fixture cannot run without.
const WAYLAND_NEEDS: &[&str] = &["sway", "dbus-daemon", PYTHON];

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
        start_on(SandboxConfig::default(), NEEDS).await
    }
}

impl fixture::Backend for Wayland {
    fn serial() -> &'static Mutex<()> {
        &SERIAL
    }

    async fn start() -> Fixture {
        let cfg = SandboxConfig {
            display_server: DisplayServer::Wayland,
            ..SandboxConfig::default()
        };
        start_on(cfg, WAYLAND_NEEDS).await
    }
}

/// The fixture on a desktop of `cfg`: the app showing, the backend connected.
async fn start_on(cfg: SandboxConfig, needs: &[&str]) -> Fixture {
    if let Some(p) = needs.iter().find(|p| !have(p)) {
        panic!("the Linux fixture needs {p}, which is not installed (scripts/install-deps.sh installs it)");
    }
    let sb = tokio::task::spawn_blocking(move || start_desktop(cfg))
        .await
        .expect("the desktop's start did not panic");
    let cfg = LinuxConfig::from_vars(sb.env().iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let wayland = matches!(cfg.platform(), Platform::Sway { .. });
    assert_eq!(
        wayland,
        sb.env_var("WAYLAND_DISPLAY").is_some(),
        "the backend drives the sandbox's own display server: {:?}",
        cfg.platform()
    );
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

/// A sandbox with the fixture app showing its window on the accessibility bus.
fn start_desktop(cfg: SandboxConfig) -> Sandbox {
    let sb = Sandbox::start(cfg).expect("the sandbox starts");
    let pid = sb
        .spawn(&[PYTHON.to_string(), app_script()])
        .expect("the fixture app spawns");
    sb.wait_for_app_window(pid, Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("the GTK fixture app showed no window: {e}"));
    sb
}
