//! The `Page` domain: navigation and history, the isolated world our scripts run in,
//! JavaScript dialogs (answered, and the events `dialog_state.rs` reads), file choosers
//! intercepted (`files.rs`), closing a page.

use serde::{Deserialize, Serialize};

use super::Empty;

/// `Page.close`: closes the page as its tab's close button would, running its `beforeunload`
/// handler (which may keep it open behind a "leave site?" dialog).
#[derive(Serialize)]
pub struct PageClose {}
command!(PageClose, "Page.close", Empty);

/// `Page.enable`.
#[derive(Serialize)]
pub struct PageEnable {}
command!(PageEnable, "Page.enable", Empty);

/// `Page.navigate`.
#[derive(Serialize)]
pub struct Navigate<'a> {
    /// Where.
    pub url: &'a str,
}
/// Reply of `Page.navigate`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigated {
    /// Absent for same-document navigations (no load follows).
    pub loader_id: Option<String>,
    /// Set when the navigation failed (e.g. `net::ERR_CONNECTION_REFUSED`).
    pub error_text: Option<String>,
}
command!(Navigate<'_>, "Page.navigate", Navigated);

/// `Page.reload`.
#[derive(Serialize)]
pub struct Reload {}
command!(Reload, "Page.reload", Empty);

/// `Page.getNavigationHistory`.
#[derive(Serialize)]
pub struct GetNavigationHistory {}
/// Reply of `Page.getNavigationHistory`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationHistory {
    /// Index of the current entry.
    pub current_index: usize,
    /// Entries, oldest first.
    pub entries: Vec<HistoryEntry>,
}
/// One history entry.
#[derive(Debug, Deserialize)]
pub struct HistoryEntry {
    /// Its id.
    pub id: i64,
}
command!(
    GetNavigationHistory,
    "Page.getNavigationHistory",
    NavigationHistory
);

/// `Page.navigateToHistoryEntry`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateToHistoryEntry {
    /// Entry id.
    pub entry_id: i64,
}
command!(NavigateToHistoryEntry, "Page.navigateToHistoryEntry", Empty);

/// `Page.handleJavaScriptDialog`: accepts or dismisses the open alert, confirm, prompt or
/// beforeunload dialog.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleJavaScriptDialog<'a> {
    /// OK (true) or Cancel (false).
    pub accept: bool,
    /// The text a prompt returns when accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<&'a str>,
}
command!(
    HandleJavaScriptDialog<'_>,
    "Page.handleJavaScriptDialog",
    Empty
);

/// Params of the `Page.javascriptDialogOpening` event.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogOpening {
    /// The URL of the frame that opened it.
    #[serde(default)]
    pub url: String,
    /// The message.
    #[serde(default)]
    pub message: String,
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A prompt's default text.
    #[serde(default)]
    pub default_prompt: Option<String>,
}

/// Params of the `Page.javascriptDialogClosed` event.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogClosed {
    /// Whether it was accepted.
    pub result: bool,
    /// What a prompt returned.
    #[serde(default)]
    pub user_input: String,
}

/// `Page.createIsolatedWorld`: a JS world that shares the DOM but not globals with the page.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateIsolatedWorld<'a> {
    /// The frame (the page's main frame id is its target id).
    pub frame_id: &'a str,
    /// A name shown in DevTools.
    pub world_name: &'a str,
}
/// Reply of `Page.createIsolatedWorld`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IsolatedWorld {
    /// Context to evaluate in.
    pub execution_context_id: i64,
}
command!(
    CreateIsolatedWorld<'_>,
    "Page.createIsolatedWorld",
    IsolatedWorld
);

/// `Page.setInterceptFileChooserDialog`: while on, a file chooser a page opens is not shown
/// but reported (`Page.fileChooserOpened`) and waits for `DOM.setFileInputFiles`.
#[derive(Serialize)]
pub struct SetInterceptFileChooser {
    /// On or off.
    pub enabled: bool,
}
command!(
    SetInterceptFileChooser,
    "Page.setInterceptFileChooserDialog",
    Empty
);

/// The params of `Page.fileChooserOpened`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChooserOpened {
    /// `selectSingle` or `selectMultiple`.
    pub mode: String,
    /// The input that opened it.
    #[serde(default)]
    pub backend_node_id: Option<i64>,
}
