//! `uidriver-sandbox`: start, describe and stop an isolated desktop — Xvfb and openbox, or a
//! headless sway on Wayland ([`DisplayServer`]), with a private D-Bus session bus and the AT-SPI
//! bus with its registry — plus the apps run inside it, stopping exactly what it started (by
//! pid + start time, never by name).
//!
//! ```no_run
//! use std::time::Duration;
//! use uidriver_sandbox::{Sandbox, SandboxConfig};
//!
//! let sb = Sandbox::start(SandboxConfig::default())?;
//! let pid = sb.spawn(&["gtk3-widget-factory".to_string()])?;
//! sb.wait_for_app_window(pid, Duration::from_secs(20))?;
//! // ... drive the app with DISPLAY / AT_SPI_BUS_ADDRESS from sb.env() ...
//! let report = sb.stop()?;
//! assert!(report.survivors.is_empty());
//! # Ok::<(), uidriver_sandbox::SandboxError>(())
//! ```
//!
//! State directory layout: `manifest.json` (see [`Manifest`]), `env` (sourceable
//! `export K='V'` lines), `*.log` (one per component / app), `session-bus` (socket),
//! `runtime/` (`XDG_RUNTIME_DIR`, 0700; on Wayland also the compositor's socket and sway's IPC
//! socket), `home/` (private `HOME` and XDG base dirs) and, on Wayland, `sway.config`.

mod answers;
mod app_window;
mod config;
mod dbus;
mod error;
mod kwin;
mod manifest;
mod outage;
use uidriver_procfs as procfs;
mod sandbox;
mod stop;
#[cfg(feature = "testing")]
pub mod testing;
mod wayland;
mod x11;

pub use answers::{AppAnswer, Verdict, ANSWER_WITHIN, LOG_TAIL_LINES};
pub use config::{DisplayServer, SandboxConfig};
pub use error::SandboxError;
pub use manifest::{Manifest, ProcessRecord, ENV_FILE, MANIFEST_FILE, MANIFEST_FORMAT};
pub use outage::Component;
pub use sandbox::{AppWindow, Sandbox};
pub use stop::StopReport;

/// Env marker set (not exported) in every process the sandbox starts; `stop` also signals
/// processes carrying it, which catches daemons that left their parent and session.
pub const SANDBOX_ID_VAR: &str = "UIDRIVER_SANDBOX_ID";
/// Exported variable naming the sandbox's state directory (for `attach`).
pub const SANDBOX_DIR_VAR: &str = "UIDRIVER_SANDBOX_DIR";
/// Name prefix of auto-created state directories under `$TMPDIR`.
pub const STATE_DIR_PREFIX: &str = "uidriver-sandbox-";
/// Session bus socket, inside the state directory.
pub(crate) const BUS_SOCKET: &str = "session-bus";
/// `XDG_RUNTIME_DIR`, inside the state directory.
pub(crate) const RUNTIME_DIR: &str = "runtime";
/// Subdirectory of the state dir that is the apps' `TMPDIR`.
pub(crate) const APP_TMP_DIR: &str = "tmp";
/// The longest socket an app makes in its `TMPDIR` (Chromium's singleton socket).
pub(crate) const APP_TMP_SOCKET_SUFFIX: &str = "/.org.chromium.Chromium.XXXXXX/SingletonSocket";

/// Process roles recorded in the manifest.
pub mod roles {
    /// The X server.
    pub const XVFB: &str = "xvfb";
    /// The Wayland compositor (sway), also the window manager there.
    pub const COMPOSITOR: &str = "compositor";
    /// The private session dbus-daemon.
    pub const SESSION_BUS: &str = "session-bus";
    /// at-spi-bus-launcher.
    pub const AT_SPI_LAUNCHER: &str = "at-spi-bus-launcher";
    /// A process found under the launcher after startup (a11y dbus-daemon, registryd).
    pub const AT_SPI_CHILD: &str = "at-spi-child";
    /// The window manager (openbox).
    pub const WM: &str = "window-manager";
    /// An app started with `Sandbox::spawn`.
    pub const APP: &str = "app";
    /// Roles whose death means the sandbox is no longer usable.
    pub const INFRASTRUCTURE: &[&str] = &[XVFB, COMPOSITOR, SESSION_BUS, AT_SPI_LAUNCHER, WM];
}
