//! The platform port. A backend lists roots, observes one, acts on it and reads its text; the
//! service owns everything around that (refs, states, lanes, epochs, diffs, rendering).
//!
//! Every method takes a [`Deadline`] and has a default body that fails closed with
//! `not_supported`, so a new platform compiles on day one and gains capabilities one at a time.
//! Browser-only and whole-screen operations are separate traits reached through
//! [`Backend::browser`] and [`Backend::screen`].

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::action::Step;
use crate::error::{Error, Result};
use crate::lane::InputLock;
use crate::model::{Node, RawImage, RootInfo, Snapshot, TextSlice};
use crate::outcome::StepReport;
use crate::state::State;
use crate::web::{Download, LogEntry, LogKind};

/// The latest moment a call may finish.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Deadline(Instant);

impl Deadline {
    /// `d` from now.
    pub fn after(d: Duration) -> Self {
        Deadline(Instant::now() + d)
    }
    /// Time left (zero when passed).
    pub fn remaining(&self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }
    /// Whether it has passed.
    pub fn expired(&self) -> bool {
        Instant::now() >= self.0
    }
    /// The earlier of this deadline and `d` from now.
    pub fn cap(&self, d: Duration) -> Deadline {
        Deadline(self.0.min(Instant::now() + d))
    }
    /// The instant.
    pub fn instant(&self) -> Instant {
        self.0
    }
}

/// What an observation should include.
#[derive(Clone, Debug)]
pub struct ObserveRequest {
    /// Stop describing after this many nodes (the rest is marked truncated, reason `cap`). The
    /// default is no budget but a guard against runaway trees ([`NODE_GUARD`]): the deadline is
    /// what bounds a look, and a 30,000-node page is read complete.
    pub max_nodes: usize,
    /// Most children walked under one container that manages its descendants (tables, trees).
    pub max_children: usize,
    /// Read every node's screen rectangle. Where a platform pays a call per rectangle (AT-SPI),
    /// a backend may skip them when `false`, except for nodes whose pixels matter for deciding
    /// to look visually (canvases, images, the root); acting re-reads them live anyway.
    pub bounds: bool,
    /// Text the caller looks for (a `search_ui` that matched nothing). A backend that can reach
    /// an element by it without reading what was cut adds that element (a spreadsheet's cell
    /// by its address: "C200" in a sheet of 2^34 cells); others ignore it.
    pub seek: Option<String>,
}

/// The most nodes one look describes unless asked for fewer: far above any real window (a
/// 30,000-node page, a 5,000-row list read over its visible window) and far below what would
/// exhaust memory (a sheet of 2^34 cells is read through its table, never by children).
pub const NODE_GUARD: usize = 250_000;

impl Default for ObserveRequest {
    fn default() -> Self {
        ObserveRequest {
            max_nodes: NODE_GUARD,
            max_children: 500,
            bounds: true,
            seek: None,
        }
    }
}

/// One act call, from one base state, under one lane.
pub struct ActRequest<'a> {
    /// The root the state belongs to.
    pub root: &'a RootInfo,
    /// The base state (targets are resolved in it).
    pub state: &'a State,
    /// Validated steps.
    pub steps: &'a [Step],
    /// Strict background policy: no pointer, no keyboard injection, no focus or raise.
    pub headless: bool,
    /// The process-wide physical input lock.
    pub input: &'a InputLock,
    /// The call checks an `expect` after the steps, so a step whose effect shows nowhere may
    /// end sooner (still `unknown`: the expect decides).
    pub expect_follows: bool,
    /// The caller looks at the successor right after the steps and then calls
    /// [`Backend::settle_after_act`]: a last step whose effect was read back may end without
    /// waiting out the rest of the app's reaction, which that call waits out instead, beside
    /// the caller's look.
    pub defer_settle: bool,
}

/// One environment check of `uidriver doctor`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What was checked ("display", "accessibility bus", ...).
    pub name: String,
    /// Whether it passed.
    pub ok: bool,
    /// What was found.
    pub detail: String,
    /// How to fix it, when it failed.
    pub fix: Option<String>,
}

impl Check {
    /// A passing check.
    pub fn pass(name: &str, detail: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            ok: true,
            detail: detail.into(),
            fix: None,
        }
    }
    /// A failing check with its fix.
    pub fn fail(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Check {
            name: name.into(),
            ok: false,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// A platform's environment checks (`uidriver doctor`). Part of the port, but not only of a
/// started backend: a platform whose backend cannot start (no display, no bus) must still say
/// why, so each backend crate offers its checks standalone as well as through
/// [`Backend::doctor`]; which platforms exist is decided where backends are built.
#[async_trait]
pub trait Doctor: Send + Sync {
    /// Runs every check of this platform, each bounded in time.
    async fn checks(&self) -> Vec<Check>;

    /// Whether a failure of the check named `name` leaves this platform unusable (the
    /// command's exit status); other failures only narrow what works.
    fn essential(&self, name: &str) -> bool {
        let _ = name;
        false
    }
}

/// Navigation of a browser page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Navigation {
    /// Go to a URL (http, https or file).
    Url(String),
    /// History back.
    Back,
    /// History forward.
    Forward,
    /// Reload.
    Reload,
}

/// How to start a browser.
#[derive(Clone, Debug, Default)]
pub struct LaunchRequest {
    /// First page.
    pub url: Option<String>,
    /// Headless (no window).
    pub headless: bool,
    /// Attach to this existing CDP endpoint (`http://127.0.0.1:9222`) instead of launching.
    pub endpoint: Option<String>,
    /// The viewport of its pages in CSS pixels (width, height); `None`: the backend's default.
    pub size: Option<(u32, u32)>,
    /// Where its downloads are saved; `None`: a directory under its profile.
    pub downloads_dir: Option<std::path::PathBuf>,
    /// A persistent profile the user owns (used, never deleted); `None`: a private one, removed
    /// when the browser stops.
    pub profile_dir: Option<std::path::PathBuf>,
    /// Cookies and web storage to load before the first page (what
    /// [`BrowserControl::storage_state`] returned).
    pub storage_state: Option<serde_json::Value>,
}

/// Observation and action on roots.
#[async_trait]
pub trait Backend: Send + Sync + 'static {
    /// Short name (`linux`, `cdp`); `RootInfo::backend` carries it.
    fn name(&self) -> &'static str;

    /// Lists the roots this backend can see.
    async fn list_roots(&self, deadline: Deadline) -> Result<Vec<RootInfo>>;

    /// Observes one root.
    async fn observe(
        &self,
        root: &RootInfo,
        req: &ObserveRequest,
        deadline: Deadline,
    ) -> Result<Snapshot> {
        let _ = (root, req, deadline);
        Err(Error::unsupported(
            "observation is not supported by this backend",
        ))
    }

    /// Observes the subtree of `node` of `state` again (for truncated regions); index 0 of the
    /// result is that node.
    async fn observe_region(
        &self,
        root: &RootInfo,
        state: &State,
        node: usize,
        req: &ObserveRequest,
        deadline: Deadline,
    ) -> Result<Snapshot> {
        let _ = (root, state, node, req, deadline);
        Err(Error::unsupported(
            "scoped observation is not supported by this backend",
        ))
    }

    /// Runs steps in order, stopping after the first that did not work. Returns one report per
    /// step that ran (or was refused). Implementations build a [`crate::StepDriver`] for the
    /// root and hand it to [`crate::run_batch`], which owns the batch rules.
    async fn act(&self, req: ActRequest<'_>, deadline: Deadline) -> Result<Vec<StepReport>> {
        let _ = (req, deadline);
        Err(Error::unsupported(
            "acting is not supported by this backend",
        ))
    }

    /// Reads a range of an element's text.
    async fn read_text(
        &self,
        root: &RootInfo,
        node: &Node,
        start: u32,
        end: u32,
        deadline: Deadline,
    ) -> Result<TextSlice> {
        let _ = (root, node, start, end, deadline);
        Err(Error::unsupported(
            "reading text is not supported by this backend",
        ))
    }

    /// Resolves when something may have changed in `root` (an accessibility event, a DOM
    /// mutation) or at the deadline. Waits use it to re-check only when there is a reason.
    async fn wait_change(&self, root: &RootInfo, deadline: Deadline) -> Result<()> {
        let _ = root;
        tokio::time::sleep(deadline.remaining().min(Duration::from_millis(200))).await;
        Ok(())
    }

    /// After an act with [`ActRequest::defer_settle`]: waits out the rest of the app's reaction
    /// to the last step, when the backend left it to this call. `Some(true)`: the app stayed
    /// quiet from the moment the effect was read back through the backend's quiet window, so a
    /// look taken since that moment stands. `Some(false)`: the app went on changing; it is quiet
    /// now (or the wait's cap passed), and a look taken meanwhile must be taken again. `None`:
    /// nothing was left to this call.
    async fn settle_after_act(&self, root: &RootInfo, deadline: Deadline) -> Option<bool> {
        let _ = (root, deadline);
        None
    }

    /// Asks a root to close the way its user would: a page through its browser, a window
    /// through its window manager, which asks the application (so unsaved work may raise a
    /// "save changes?" dialog instead). Never kills a process. Returns once the request was
    /// sent; whether the root closed is for the caller to see by listing roots again.
    async fn close_root(&self, root: &RootInfo, deadline: Deadline) -> Result<()> {
        let _ = (root, deadline);
        Err(Error::unsupported(
            "closing roots is not supported by this backend",
        ))
    }

    /// Captures the pixels of a root.
    async fn capture(&self, root: &RootInfo, deadline: Deadline) -> Result<RawImage> {
        let _ = (root, deadline);
        Err(Error::unsupported(
            "capture is not supported by this backend",
        ))
    }

    /// Why a root that is no longer listed went away, when the backend knows more than "it
    /// closed" (its browser process exited, and how): appended to the `target_closed` answer.
    async fn closed_reason(&self, root: &RootInfo) -> Option<String> {
        let _ = root;
        None
    }

    /// Browser operations, when this backend drives browsers.
    fn browser(&self) -> Option<&dyn BrowserControl> {
        None
    }

    /// Whole-screen operations, when this backend owns a screen.
    fn screen(&self) -> Option<&dyn ScreenControl> {
        None
    }

    /// This backend's environment checks, when it has any.
    fn doctor(&self) -> Option<&dyn Doctor> {
        None
    }
}

/// Starting, steering and scripting browsers.
#[async_trait]
pub trait BrowserControl: Send + Sync {
    /// Launches (or attaches to) a browser; returns its page roots.
    async fn launch(&self, req: LaunchRequest, deadline: Deadline) -> Result<Vec<RootInfo>>;
    /// Navigates a page and waits for it to load; returns the page as listed afterwards.
    async fn navigate(
        &self,
        root: &RootInfo,
        nav: Navigation,
        deadline: Deadline,
    ) -> Result<RootInfo>;
    /// Opens a new page (a tab) at `url` in the browser of `near` (`None`: the first browser)
    /// and waits for it to load; returns the page as listed afterwards.
    async fn new_page(
        &self,
        near: Option<&RootInfo>,
        url: &str,
        deadline: Deadline,
    ) -> Result<RootInfo> {
        let _ = (near, url, deadline);
        Err(Error::unsupported(
            "opening pages is not supported by this backend",
        ))
    }
    /// Evaluates an expression in the page; the result as JSON.
    async fn evaluate(
        &self,
        root: &RootInfo,
        expression: &str,
        deadline: Deadline,
    ) -> Result<serde_json::Value>;
    /// The page printed as a PDF document (print media, backgrounds kept): its bytes. Writing
    /// them is the caller's; the page is not changed.
    async fn print_pdf(&self, root: &RootInfo, deadline: Deadline) -> Result<Vec<u8>> {
        let _ = (root, deadline);
        Err(Error::unsupported(
            "printing pages to PDF is not supported by this backend",
        ))
    }
    /// The downloads of the browser of `root`, in the order they started.
    async fn downloads(&self, root: &RootInfo, deadline: Deadline) -> Result<Vec<Download>> {
        let _ = (root, deadline);
        Err(Error::unsupported(
            "downloads are not supported by this backend",
        ))
    }
    /// Waits (until the deadline) until a download of the browser of `root` with a `seq` above
    /// `after` has begun and none of those is running; returns them as they are then (running
    /// ones too, when the deadline came first).
    async fn settle_downloads(
        &self,
        root: &RootInfo,
        after: u64,
        deadline: Deadline,
    ) -> Result<Vec<Download>> {
        let _ = (root, after, deadline);
        Err(Error::unsupported(
            "downloads are not supported by this backend",
        ))
    }
    /// The entries of one log of a page whose `seq` is above `since`, oldest first (a bounded
    /// log: the oldest entries of a busy page are gone).
    async fn log(
        &self,
        root: &RootInfo,
        kind: LogKind,
        since: u64,
        deadline: Deadline,
    ) -> Result<Vec<LogEntry>> {
        let _ = (root, kind, since, deadline);
        Err(Error::unsupported(
            "page logs are not supported by this backend",
        ))
    }
    /// The cookies of the browser of `root` and the local and session storage of the page's
    /// origins, as JSON that [`LaunchRequest::storage_state`] loads again.
    async fn storage_state(
        &self,
        root: &RootInfo,
        deadline: Deadline,
    ) -> Result<serde_json::Value> {
        let _ = (root, deadline);
        Err(Error::unsupported(
            "saving browser state is not supported by this backend",
        ))
    }
    /// Stops the browsers this backend launched (never one it only attached to).
    async fn shutdown(&self) {}
}

/// One raw input event of `desktop_input`, in screen pixels.
#[derive(Clone, Debug, PartialEq)]
pub enum ScreenInput {
    /// Move the pointer.
    Move(i32, i32),
    /// Click at a point.
    Click {
        /// Point.
        x: i32,
        /// Point.
        y: i32,
        /// Button.
        button: crate::action::Button,
        /// 1–3.
        count: u8,
    },
    /// Wheel at a point.
    Scroll {
        /// Point.
        x: i32,
        /// Point.
        y: i32,
        /// Horizontal steps.
        dx: i32,
        /// Vertical steps.
        dy: i32,
    },
    /// Press, move through points, release.
    Drag(Vec<(i32, i32)>, crate::action::Button),
    /// Type text.
    Type(String),
    /// Key chords.
    Keys(Vec<crate::action::KeyChord>),
    /// Press a key and keep it down.
    KeyDown(crate::action::KeyChord),
    /// Release a key.
    KeyUp(crate::action::KeyChord),
}

impl ScreenInput {
    /// The kind of event, as `desktop_input` names it (the name of its step report).
    pub fn event(&self) -> crate::action::DesktopEvent {
        use crate::action::DesktopEvent;
        match self {
            ScreenInput::Move(..) => DesktopEvent::MoveMouse,
            ScreenInput::Click { .. } => DesktopEvent::Click,
            ScreenInput::Scroll { .. } => DesktopEvent::Scroll,
            ScreenInput::Drag(..) => DesktopEvent::Drag,
            ScreenInput::Type(_) => DesktopEvent::TypeText,
            ScreenInput::Keys(_) => DesktopEvent::Keypress,
            ScreenInput::KeyDown(_) => DesktopEvent::KeyDown,
            ScreenInput::KeyUp(_) => DesktopEvent::KeyUp,
        }
    }
}

/// Whole-desktop capture, raw input, app activation and the clipboard.
#[async_trait]
pub trait ScreenControl: Send + Sync {
    /// Captures every monitor as one image of the whole screen.
    async fn screenshot(&self, deadline: Deadline) -> Result<RawImage>;
    /// Checks that the screen still matches a screenshot's layout (the frame lease) at the points
    /// the events touch; `gui_frame_stale` otherwise, before any input.
    async fn check_frame(
        &self,
        frame: &ScreenFrame,
        points: &[(i32, i32)],
        deadline: Deadline,
    ) -> Result<()>;
    /// Sends raw input under the input lock.
    async fn input(
        &self,
        events: &[ScreenInput],
        lock: &InputLock,
        deadline: Deadline,
    ) -> Result<Vec<StepReport>>;
    /// Brings an application to the front, launching it when not running.
    async fn activate_app(&self, spec: &str, deadline: Deadline) -> Result<RootInfo>;
    /// Reads the clipboard as text.
    async fn clipboard_read(&self, deadline: Deadline) -> Result<String>;
    /// Owns the clipboard with this text (served after the call returns).
    async fn clipboard_write(&self, text: &str, deadline: Deadline) -> Result<()>;
    /// Records the window layout for a screenshot, for later frame checks.
    async fn frame(&self, deadline: Deadline) -> Result<ScreenFrame>;
}

/// The window layout at the time of a screenshot: which window was where.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScreenFrame {
    /// (window id, screen rectangle), front-most last.
    pub windows: Vec<(u64, crate::model::Bounds)>,
}
