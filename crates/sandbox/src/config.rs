//! Knobs for starting a sandbox, with defaults that match what the rest of uidriver expects
//! (X11: 1280x800x24 screen, displays from :99 up, openbox; 20 s per startup step).

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Which display server the sandbox runs its apps on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum DisplayServer {
    /// Xvfb, with openbox as the window manager when asked for.
    #[default]
    X11,
    /// A headless sway (wlroots), its output `HEADLESS-1`; apps are native Wayland clients
    /// (`GDK_BACKEND=wayland`, `QT_QPA_PLATFORM=wayland`) and there is no `DISPLAY` unless
    /// [`SandboxConfig::xwayland`] is set.
    Wayland,
    /// A headless KDE KWin (`kwin_wayland --virtual`), its output `Virtual-0`; apps are native
    /// Wayland clients as with [`DisplayServer::Wayland`], in a KDE session
    /// (`XDG_CURRENT_DESKTOP=KDE`), with KWin's services on the sandbox's session bus. No
    /// XWayland.
    Kwin,
}

/// How to start a [`crate::Sandbox`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Screen width in pixels.
    pub width: u32,
    /// Screen height in pixels.
    pub height: u32,
    /// X11, Wayland on sway, or Wayland on KWin.
    pub display_server: DisplayServer,
    /// Colour depth in bits (24 is what most toolkits expect; X11 only).
    pub depth: u8,
    /// First X display number to try; the first free one from here up is used (X11 only).
    pub display_min: u32,
    /// Start openbox (an EWMH window manager) so windows get focus, stacking and frames (X11
    /// only: on Wayland the compositor is the window manager).
    pub window_manager: bool,
    /// On Wayland, let X11-only apps run through XWayland (started by sway on the first X
    /// client) and export its `DISPLAY`. Ignored on X11.
    pub xwayland: bool,
    /// State directory (logs, manifest, env file, bus socket, private home and runtime dir).
    /// `None`: a fresh `$TMPDIR/uidriver-sandbox-*` directory, removed again by `stop`.
    /// `Some(dir)`: a named directory for long-lived use, kept (minus sockets) by `stop`.
    pub state_dir: Option<PathBuf>,
    /// How long each startup step (display server, buses, window manager) may take.
    pub startup_timeout: Duration,
    /// Variables every process of the desktop gets (the window manager, what it starts, what
    /// `env` hands out), over the sandbox's own: e.g. `GSETTINGS_BACKEND=keyfile`, so that
    /// apps started from the desktop's menu keep preferences where others read them.
    pub env: Vec<(String, String)>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            width: 1280,
            height: 800,
            display_server: DisplayServer::X11,
            depth: 24,
            display_min: 99,
            window_manager: true,
            xwayland: false,
            state_dir: None,
            startup_timeout: Duration::from_secs(20),
            env: Vec::new(),
        }
    }
}
