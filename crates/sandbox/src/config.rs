//! Knobs for starting a sandbox, with defaults that match what the rest of uidriver expects
//! (1280x800x24 screen, displays from :99 up, openbox, 20 s per startup step).

use std::path::PathBuf;
use std::time::Duration;

/// How to start a [`crate::Sandbox`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Screen width in pixels.
    pub width: u32,
    /// Screen height in pixels.
    pub height: u32,
    /// Colour depth in bits (24 is what most toolkits expect).
    pub depth: u8,
    /// First X display number to try; the first free one from here up is used.
    pub display_min: u32,
    /// Start openbox (an EWMH window manager) so windows get focus, stacking and frames.
    pub window_manager: bool,
    /// State directory (logs, manifest, env file, bus socket, private home and runtime dir).
    /// `None`: a fresh `$TMPDIR/uidriver-sandbox-*` directory, removed again by `stop`.
    /// `Some(dir)`: a named directory for long-lived use, kept (minus sockets) by `stop`.
    pub state_dir: Option<PathBuf>,
    /// How long each startup step (X server, buses, window manager) may take.
    pub startup_timeout: Duration,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            width: 1280,
            height: 800,
            depth: 24,
            display_min: 99,
            window_manager: true,
            state_dir: None,
            startup_timeout: Duration::from_secs(20),
        }
    }
}
