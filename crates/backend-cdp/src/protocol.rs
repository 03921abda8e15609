//! The typed subset of the Chrome DevTools Protocol this crate speaks: one struct per command
//! (its params) tied to its method name and reply type by [`Command`], plus the envelopes of
//! the wire. Only fields we read are declared; serde ignores the rest, so newer Chromium
//! versions that add fields keep working.
//!
//! Wire assumptions (checked against Chromium 156's protocol):
//! - replies carry the request `id`; events carry `method` and, for flattened sessions,
//!   `sessionId` (`Target.attachToTarget {flatten: true}`);
//! - the main frame id of a page target equals its target id;
//! - `Runtime.evaluate` with `returnByValue` returns JSON values inline in `result.value`;
//! - while a JavaScript dialog is open the page's renderer answers no command (`Runtime.*`,
//!   `Input.*`, `DOM.*`, `Page.enable` too) until `Page.handleJavaScriptDialog`; the
//!   `Input.dispatchMouseEvent` that opened it is answered only after it closed;
//!   `Page.javascriptDialogOpening` is sent only to sessions whose Page domain was on when it
//!   opened (so new pages are held until it is, `autoattach.rs`);
//! - a popup opened by a same-site page shares its renderer, so its dialog blocks the opener
//!   too (the opener's own session hears nothing of it).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// A CDP command: its params (the struct itself), its method name and its reply type.
pub trait Command: Serialize {
    /// The method, e.g. `Page.navigate`.
    const METHOD: &'static str;
    /// The reply's `result`.
    type Output: DeserializeOwned;
}

macro_rules! command {
    ($ty:ty, $method:literal, $out:ty) => {
        impl Command for $ty {
            const METHOD: &'static str = $method;
            type Output = $out;
        }
    };
}

/// A reply with no fields we read.
#[derive(Debug, Default, Deserialize)]
pub struct Empty {}

/// An outgoing message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request<'a, P: Serialize> {
    /// Correlates the reply.
    pub id: u64,
    /// The method.
    pub method: &'static str,
    /// The params.
    pub params: &'a P,
    /// The flattened session of a page, or none for the browser.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<&'a str>,
}

/// An incoming message: a reply (with `id`) or an event (with `method`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Incoming {
    /// Set on replies.
    pub id: Option<u64>,
    /// Set on events.
    pub method: Option<String>,
    /// The session an event or reply belongs to.
    pub session_id: Option<String>,
    /// A successful reply.
    pub result: Option<Box<RawValue>>,
    /// A failed reply.
    pub error: Option<ProtocolError>,
    /// An event's params, undecoded: only the subscriber that wants them decodes them
    /// (`dialog.rs` reads the dialog events').
    pub params: Option<Box<RawValue>>,
}

/// The error of a failed reply.
#[derive(Debug, Clone, Deserialize)]
pub struct ProtocolError {
    /// JSON-RPC style code.
    pub code: i64,
    /// Message.
    pub message: String,
}

/// An event, as routed to subscribers.
#[derive(Debug)]
pub struct Event {
    /// The event name, e.g. `Page.loadEventFired`.
    pub method: String,
    /// The session it came from (None for browser-level events).
    pub session_id: Option<String>,
    /// Its params, undecoded.
    pub params: Option<Box<RawValue>>,
}

// ---- Browser and Target ----

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

/// `Target.getTargets`.
#[derive(Serialize)]
pub struct GetTargets {}
/// Reply of `Target.getTargets`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Targets {
    /// Every target.
    pub target_infos: Vec<TargetInfo>,
}
command!(GetTargets, "Target.getTargets", Targets);

/// One target.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// Its id.
    pub target_id: String,
    /// `page`, `iframe`, `worker`, `browser`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Title.
    pub title: String,
    /// URL.
    pub url: String,
}

/// `Target.attachToTarget`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTarget<'a> {
    /// Target.
    pub target_id: &'a str,
    /// Always true: one socket carries every session.
    pub flatten: bool,
}
/// Reply of `Target.attachToTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attached {
    /// The session to address the page with.
    pub session_id: String,
}
command!(AttachToTarget<'_>, "Target.attachToTarget", Attached);

/// `Target.setDiscoverTargets`: keeps the browser's list of targets (out-of-process frames
/// included) alive, so they can be attached to by id.
#[derive(Serialize)]
pub struct SetDiscoverTargets {
    /// On.
    pub discover: bool,
}
command!(SetDiscoverTargets, "Target.setDiscoverTargets", Empty);

/// `Target.setAutoAttach`: attach to targets as they appear (on the browser session: every
/// target the filter lets through), optionally holding each before its first script.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAutoAttach {
    /// On.
    pub auto_attach: bool,
    /// Hold new targets until `Runtime.runIfWaitingForDebugger`.
    pub wait_for_debugger_on_start: bool,
    /// One socket for every session (required on the browser session).
    pub flatten: bool,
    /// Which targets (first match wins; none matching is excluded).
    pub filter: Vec<TargetFilter>,
}
command!(SetAutoAttach, "Target.setAutoAttach", Empty);

/// One entry of a target filter.
#[derive(Serialize)]
pub struct TargetFilter {
    /// The target type, e.g. `page`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Exclude (rather than include) it.
    pub exclude: bool,
}

/// Params of the `Target.attachedToTarget` event.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachedToTarget {
    /// The new session.
    pub session_id: String,
    /// The target.
    pub target_info: TargetInfo,
    /// Held until `Runtime.runIfWaitingForDebugger`.
    #[serde(default)]
    pub waiting_for_debugger: bool,
}

/// `Runtime.runIfWaitingForDebugger`: lets a held target run.
#[derive(Serialize)]
pub struct RunIfWaitingForDebugger {}
command!(
    RunIfWaitingForDebugger,
    "Runtime.runIfWaitingForDebugger",
    Empty
);

/// `Target.createTarget`.
#[derive(Serialize)]
pub struct CreateTarget<'a> {
    /// First URL.
    pub url: &'a str,
}
/// Reply of `Target.createTarget`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    /// The new page.
    pub target_id: String,
}
command!(CreateTarget<'_>, "Target.createTarget", Created);

/// `Target.closeTarget`: closes a page as its tab's close button would (its `beforeunload`
/// handler may keep it open behind a dialog).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTarget<'a> {
    /// Page.
    pub target_id: &'a str,
}
command!(CloseTarget<'_>, "Target.closeTarget", Empty);

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

// ---- Page ----

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

// ---- Runtime ----

/// `Runtime.evaluate`.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate<'a> {
    /// Source.
    pub expression: &'a str,
    /// A context (an isolated world); None is the page's main world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<i64>,
    /// Return JSON rather than a handle.
    pub return_by_value: bool,
    /// Wait for a returned promise.
    pub await_promise: bool,
    /// Treat as a user gesture (lets scripts open popups, play media).
    pub user_gesture: bool,
}
/// Reply of `Runtime.evaluate` and `Runtime.callFunctionOn`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    /// The value or handle.
    pub result: RemoteObject,
    /// Set when the script threw.
    pub exception_details: Option<ExceptionDetails>,
}
command!(Evaluate<'_>, "Runtime.evaluate", Evaluated);

/// `Runtime.callFunctionOn`.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn<'a> {
    /// `function (…) { … }` source; `this` is the object.
    pub function_declaration: &'a str,
    /// The object `this` is bound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<&'a str>,
    /// Or a context to call in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
    /// Arguments.
    pub arguments: Vec<CallArgument>,
    /// Return JSON rather than a handle.
    pub return_by_value: bool,
    /// Wait for a returned promise.
    pub await_promise: bool,
}
command!(CallFunctionOn<'_>, "Runtime.callFunctionOn", Evaluated);

/// An argument of `Runtime.callFunctionOn`: a JSON value or a remote object.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CallArgument {
    /// A JSON value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A remote object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
}

/// A value or handle in the page.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// The JSON value, when returned by value.
    pub value: Option<Value>,
    /// A handle, when returned by reference.
    pub object_id: Option<String>,
    /// A printable description.
    pub description: Option<String>,
    /// For values JSON cannot carry (`NaN`, `-0`, `Infinity`, bigints).
    pub unserializable_value: Option<String>,
}

/// Why a script threw.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// Short text, e.g. `Uncaught`.
    pub text: String,
    /// The thrown value.
    pub exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// The most useful line: the exception's description or the text.
    pub fn message(&self) -> String {
        let d = self
            .exception
            .as_ref()
            .and_then(|e| e.description.clone())
            .unwrap_or_else(|| self.text.clone());
        d.lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect()
    }
}

/// `Runtime.releaseObject`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObject<'a> {
    /// Handle.
    pub object_id: &'a str,
}
command!(ReleaseObject<'_>, "Runtime.releaseObject", Empty);

// ---- DOM and Input ----

/// `DOM.getNodeForLocation`: the node hit at a viewport point (frames included).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocation {
    /// CSS pixels of the main frame's viewport.
    pub x: i32,
    /// CSS pixels.
    pub y: i32,
    /// Hit-test inside user-agent shadow trees (inputs); false gives the host element.
    pub include_user_agent_shadow_dom: bool,
    /// Whether elements with `pointer-events: none` count (false: as the pointer sees it).
    pub ignore_pointer_events_none: bool,
}
/// Reply of `DOM.getNodeForLocation`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeForLocation {
    /// The node.
    pub backend_node_id: i64,
}
command!(
    GetNodeForLocation,
    "DOM.getNodeForLocation",
    NodeForLocation
);

/// `DOM.resolveNode`: a JS handle for a backend node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNode {
    /// The node.
    pub backend_node_id: i64,
    /// The world to make the handle in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
}
/// Reply of `DOM.resolveNode`.
#[derive(Debug, Deserialize)]
pub struct Resolved {
    /// The handle.
    pub object: RemoteObject,
}
command!(ResolveNode, "DOM.resolveNode", Resolved);

/// `DOM.describeNode`: facts about the node of a JS handle (for a frame owner, its frame).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNode<'a> {
    /// The handle.
    pub object_id: &'a str,
}
/// Reply of `DOM.describeNode`.
#[derive(Debug, Deserialize)]
pub struct Described {
    /// The node.
    pub node: DescribedNode,
}
/// The part of a `DOM.Node` we read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedNode {
    /// For `iframe` and `frame` elements: the frame they show.
    #[serde(default)]
    pub frame_id: Option<String>,
}
command!(DescribeNode<'_>, "DOM.describeNode", Described);

/// `DOM.setFileInputFiles`: the files of an `<input type=file>` (Chromium fires its `input`
/// and `change` events), named by a JS handle or, for a file chooser, by its backend node.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFileInputFiles<'a> {
    /// Absolute paths, read by the browser.
    pub files: &'a [String],
    /// The input's handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<&'a str>,
    /// Or its backend node (from `Page.fileChooserOpened`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<i64>,
}
command!(SetFileInputFiles<'_>, "DOM.setFileInputFiles", Empty);

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

/// `Input.dispatchMouseEvent`.
#[derive(Serialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct DispatchMouseEvent {
    /// `mousePressed`, `mouseReleased`, `mouseMoved`, `mouseWheel`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// CSS pixels of the main frame's viewport.
    pub x: f64,
    /// CSS pixels.
    pub y: f64,
    /// Modifier bits: Alt 1, Ctrl 2, Meta 4, Shift 8.
    pub modifiers: i32,
    /// `none`, `left`, `middle`, `right`.
    pub button: &'static str,
    /// Buttons held (bit 1 left, 2 right, 4 middle).
    pub buttons: i32,
    /// Click count.
    pub click_count: i32,
    /// Wheel delta.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    /// Wheel delta.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
}
command!(DispatchMouseEvent, "Input.dispatchMouseEvent", Empty);

/// `Input.dispatchKeyEvent`.
#[derive(Serialize, Default, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DispatchKeyEvent {
    /// `keyDown` (with text), `rawKeyDown` (without), `keyUp`, `char`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Modifier bits: Alt 1, Ctrl 2, Meta 4, Shift 8.
    pub modifiers: i32,
    /// DOM `key`, e.g. `Enter`, `a`, `Control`.
    pub key: String,
    /// DOM `code`, e.g. `Enter`, `KeyA`, `ControlLeft`.
    pub code: String,
    /// Windows virtual key code (Chromium derives keyCode and editing commands from it).
    pub windows_virtual_key_code: i32,
    /// Text inserted by the key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Text without modifiers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodified_text: Option<String>,
    /// 1 for left modifier keys, 2 for right, 3 for the numpad.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<i32>,
    /// Editing commands for the renderer (e.g. `selectAll`) when a chord means one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<&'static str>,
}
command!(DispatchKeyEvent, "Input.dispatchKeyEvent", Empty);

/// `Input.insertText`: text as an IME would commit it (fires `beforeinput`/`input`).
#[derive(Serialize)]
pub struct InsertText<'a> {
    /// Text.
    pub text: &'a str,
}
command!(InsertText<'_>, "Input.insertText", Empty);

// ---- Accessibility (the reference the benchmark compares against) ----

/// `Accessibility.getFullAXTree`.
#[derive(Serialize)]
pub struct GetFullAxTree {}
/// Reply of `Accessibility.getFullAXTree`, undecoded (only its size is of interest).
#[derive(Debug, Deserialize)]
pub struct FullAxTree {
    /// The nodes.
    pub nodes: Vec<serde::de::IgnoredAny>,
}
command!(GetFullAxTree, "Accessibility.getFullAXTree", FullAxTree);

// ---- Logs, downloads, storage (`log.rs`, `downloads.rs`, `storage.rs`) ----

/// `Runtime.enable`: console calls and uncaught exceptions are reported as events (the ones
/// logged before it are replayed).
#[derive(Serialize)]
pub struct RuntimeEnable {}
command!(RuntimeEnable, "Runtime.enable", Empty);

/// `Network.enable`: requests of the page are reported as events.
#[derive(Serialize)]
pub struct NetworkEnable {}
command!(NetworkEnable, "Network.enable", Empty);

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

/// `Storage.getCookies` (browser-level: every cookie of the default context).
#[derive(Serialize)]
pub struct GetCookies {}

/// Reply of `Storage.getCookies`: cookies as CDP spells them (kept whole for the state file).
#[derive(Debug, Deserialize)]
pub struct Cookies {
    /// The cookies.
    #[serde(default)]
    pub cookies: Vec<Value>,
}
command!(GetCookies, "Storage.getCookies", Cookies);

/// `Storage.setCookies` (browser-level).
#[derive(Serialize)]
pub struct SetCookies {
    /// `Network.CookieParam`s.
    pub cookies: Vec<Value>,
}
command!(SetCookies, "Storage.setCookies", Empty);

/// `Fetch.enable`: requests matching a pattern are paused (`Fetch.requestPaused`).
#[derive(Serialize)]
pub struct FetchEnable {
    /// `{urlPattern}` objects.
    pub patterns: Vec<Value>,
}
command!(FetchEnable, "Fetch.enable", Empty);

/// `Fetch.disable`.
#[derive(Serialize)]
pub struct FetchDisable {}
command!(FetchDisable, "Fetch.disable", Empty);

/// `Fetch.fulfillRequest`: answers a paused request without the network.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FulfillRequest {
    /// The paused request.
    pub request_id: String,
    /// HTTP status.
    pub response_code: u16,
    /// The body, base64.
    pub body: String,
}
command!(FulfillRequest, "Fetch.fulfillRequest", Empty);
