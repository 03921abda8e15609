//! [`CdpConfig`]: how the backend starts browsers and bounds what it returns. Its own module,
//! below both readers: the backend, and the environment check (`doctor.rs`), which runs
//! without a backend.

use std::path::PathBuf;

/// How the backend starts browsers and bounds what it returns.
#[derive(Clone, Debug)]
pub struct CdpConfig {
    /// The Chromium binary (Debian's is `/usr/lib/chromium/chromium`).
    pub chromium: PathBuf,
    /// Default for launches: `Some(true)` always headless, `Some(false)` headed when a display
    /// exists, `None` headed when `DISPLAY` is set and headless otherwise. A launch request
    /// asking for headless always gets it.
    pub headless: Option<bool>,
    /// Largest `evaluate_browser` result, in bytes of JSON.
    pub max_evaluate_bytes: usize,
    /// Launch with `--force-renderer-accessibility` (web content visible over AT-SPI).
    /// `None`: only when headed, because headless Chromium has no AT-SPI bridge and the flag
    /// then only costs time (the renderer builds a full accessibility tree after every load;
    /// 0.8–2 s of main-thread work on the largest Rust docs page).
    pub renderer_accessibility: Option<bool>,
}

impl Default for CdpConfig {
    fn default() -> Self {
        CdpConfig {
            chromium: PathBuf::from("/usr/lib/chromium/chromium"),
            headless: None,
            max_evaluate_bytes: 64 * 1024,
            renderer_accessibility: None,
        }
    }
}
