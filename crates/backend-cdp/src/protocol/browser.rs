//! The `Browser` domain (and `SystemInfo`, for the browser's processes): the browser process
//! and its windows, closing it, where downloads go. Commands on the browser session.

use serde::{Deserialize, Serialize};

use super::Empty;

/// `Browser.getVersion`.
#[derive(Serialize)]
pub struct GetVersion {}
/// Reply of `Browser.getVersion`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    /// e.g. `HeadlessChrome/156.0…` or `Chrome/156.0…`.
    pub product: String,
}
command!(GetVersion, "Browser.getVersion", Version);

/// `SystemInfo.getProcessInfo`: the browser's processes (for an attached browser's pid).
#[derive(Serialize)]
pub struct GetProcessInfo {}
/// Reply of `SystemInfo.getProcessInfo`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessInfos {
    /// One per process.
    pub process_info: Vec<ProcessInfo>,
}
/// One process of the browser.
#[derive(Debug, Deserialize)]
pub struct ProcessInfo {
    /// `browser`, `renderer`, `GPU`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// The process id.
    pub id: u32,
}
command!(GetProcessInfo, "SystemInfo.getProcessInfo", ProcessInfos);

/// `Browser.close`.
#[derive(Serialize)]
pub struct CloseBrowser {}
command!(CloseBrowser, "Browser.close", Empty);

/// `Browser.getWindowForTarget`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetWindowForTarget<'a> {
    /// Page.
    pub target_id: &'a str,
}
/// Reply of `Browser.getWindowForTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowForTarget {
    /// The browser window holding the page.
    pub window_id: i64,
    /// The window's bounds.
    pub bounds: WindowBounds,
}
/// A browser window's rectangle on screen.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowBounds {
    /// Left.
    pub left: Option<i32>,
    /// Top.
    pub top: Option<i32>,
    /// Width.
    pub width: Option<i32>,
    /// Height.
    pub height: Option<i32>,
    /// `normal`, `minimized`, `maximized`, `fullscreen`.
    pub window_state: Option<String>,
}
command!(
    GetWindowForTarget<'_>,
    "Browser.getWindowForTarget",
    WindowForTarget
);

/// `Browser.setWindowBounds`: resizes a browser window (its state must be `normal`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetWindowBounds {
    /// The window.
    pub window_id: i64,
    /// The new size.
    pub bounds: WindowSize,
}
/// A window size for [`SetWindowBounds`].
#[derive(Serialize)]
pub struct WindowSize {
    /// Width, pixels.
    pub width: i64,
    /// Height, pixels.
    pub height: i64,
}
command!(SetWindowBounds, "Browser.setWindowBounds", Empty);

/// `Browser.setDownloadBehavior`: where downloads go, and whether `Browser.download*` events
/// are sent (browser-level, no session).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDownloadBehavior {
    /// `allow` (into `download_path`, under the suggested name) or `default`.
    pub behavior: &'static str,
    /// The directory (absolute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_path: Option<String>,
    /// Send `Browser.downloadWillBegin` / `downloadProgress`.
    pub events_enabled: bool,
}
command!(SetDownloadBehavior, "Browser.setDownloadBehavior", Empty);
