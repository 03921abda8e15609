//! uidriver's Linux desktop backend: lists windows, dialogs and menus (AT-SPI2 paired with X11
//! EWMH windows), observes their accessibility trees fast and honestly (the AT-SPI cache plus a
//! concurrent walk where it is incomplete), reads text by range, waits for accessibility
//! events, captures window pixels, and acts with verified outcomes (AT-SPI semantics first,
//! XTEST input where only input will do). It implements core's [`Backend`] port; refs, states,
//! lanes and rendering belong to core and the service.
//!
//! ```no_run
//! # async fn demo() -> Result<(), uidriver_backend_linux::LinuxError> {
//! use uidriver_backend_linux::LinuxBackend;
//! use uidriver_core::{Backend, Deadline, ObserveRequest};
//! use std::time::Duration;
//!
//! let linux = LinuxBackend::from_env().await?;
//! let roots = linux.list_roots(Deadline::after(Duration::from_secs(2))).await.unwrap();
//! let snap = linux
//!     .observe(&roots[0], &ObserveRequest::default(), Deadline::after(Duration::from_secs(5)))
//!     .await
//!     .unwrap();
//! assert!(snap.check().is_ok());
//! # Ok(()) }
//! ```
//!
//! # Layout
//! - `atspi/`: the AT-SPI2 protocol, one module per interface (`accessible`, `cache`, `text`,
//!   `editable_text`, `value`, `selection`, `component`, `action`, `application`), the bus
//!   `connection` (discovery, per-call timeouts, call counting) and `events` (registration and
//!   the event fan-out).
//! - `x11/`: the X11 threads (`connection`), EWMH window facts (`ewmh`), pixels (`capture`),
//!   XTEST input (`input`), activation and hit-testing (`window`).
//! - `act/`: running `act_ui` steps: semantic per interface, physical through one delivery
//!   path, each verified (see its module doc); `lease`: the machine-wide interaction lease.
//! - `link`: the attachment to the accessibility bus (connection, event listener, object memo),
//!   renewed as a whole when the bus comes back.
//! - `roots`: pairing AT-SPI surfaces with X11 windows into [`RootInfo`]s.
//! - `observe`: cache fast path, concurrent walk, budgets; `details`: what is read for each
//!   showing node (extents, text, values, actions, DOM ids).
//! - `mapping`: AT-SPI roles, states and interfaces into core's vocabulary.
//! - `procfs`: process start times and names.
//! - `error`: [`LinuxError`] and its one mapping into core's catalogue.
//! - `fuzzing`: the byte-level entry of the `getitems` fuzz target (hidden; `docs/FUZZING.md`).

mod act;
mod atspi;
mod clipboard;
mod details;
pub mod doctor;
mod embedded_text;
mod error;
mod frames;
#[doc(hidden)]
pub mod fuzzing;
mod lease;
mod link;
mod mapping;
mod observe;
mod origin;
mod text_styles;
use uidriver_procfs as procfs;
mod desk;
mod roots;
mod screen;
mod screen_input;
mod wayland;
mod x11;
#[doc(hidden)]
pub use wayland::testing as wayland_testing;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use tracing::debug;
use uidriver_core::{
    Backend, Deadline, Error, ErrorCode, Node, ObserveRequest, RawImage, Result, RootInfo,
    RootKind, Snapshot, State, TextSlice,
};

pub use error::LinuxError;

use atspi::events;
use atspi::{text, Obj};
use desk::DeskThread;
use link::{Attachment, Link};
use roots::{AppInfo, ListLimits, Target, Toolkit};
use x11::connection::X11;

/// Where the backend connects and how patient it is.
#[derive(Clone, Debug)]
pub struct LinuxConfig {
    /// X11 display (`:99`); `None` skips X11 (roots then come from AT-SPI alone).
    pub display: Option<String>,
    /// Wayland compositor socket (`WAYLAND_DISPLAY`: a name in `runtime_dir`, or a path).
    /// With `swaysock` it is driven instead of `display` (see [`LinuxConfig::platform`]).
    pub wayland_display: Option<String>,
    /// `XDG_RUNTIME_DIR`, where a Wayland socket name is looked up.
    pub runtime_dir: Option<std::path::PathBuf>,
    /// sway's IPC socket (`SWAYSOCK`): the window list and focus on a sway desktop.
    pub swaysock: Option<std::path::PathBuf>,
    /// Whether the session is KDE's (`XDG_CURRENT_DESKTOP` names KDE, or `KDE_SESSION_VERSION`
    /// is set, as Plasma sets both): on Wayland its compositor is KWin, driven through its
    /// session-bus services.
    pub kde_session: bool,
    /// Accessibility bus address; `None` asks `org.a11y.Bus` on the session bus.
    pub a11y_address: Option<String>,
    /// Session bus address; `None` uses the default session bus.
    pub session_address: Option<String>,
    /// Timeout of one AT-SPI call during observation.
    pub call_timeout: Duration,
    /// Timeout of one AT-SPI call while listing roots (a stopped app costs this once).
    pub list_call_timeout: Duration,
    /// Timeout of the ping that tells a stopped app from a slow one before a big call.
    pub ping_timeout: Duration,
    /// AT-SPI calls in flight per operation.
    pub in_flight: usize,
    /// Tree depth below which nodes are not expanded (unnamed wrappers do not count).
    pub max_depth: usize,
    /// Environment for applications this backend launches (`activateApp`): the desktop's
    /// variables when they differ from this process's (a sandbox), empty to inherit.
    pub launch_env: Vec<(String, String)>,
}

impl Default for LinuxConfig {
    fn default() -> Self {
        LinuxConfig {
            display: None,
            wayland_display: None,
            runtime_dir: None,
            swaysock: None,
            kde_session: false,
            a11y_address: None,
            session_address: None,
            call_timeout: Duration::from_millis(1000),
            list_call_timeout: Duration::from_millis(300),
            ping_timeout: Duration::from_millis(500),
            in_flight: 64,
            max_depth: 64,
            launch_env: Vec::new(),
        }
    }
}

impl LinuxConfig {
    /// Defaults with `DISPLAY`, `AT_SPI_BUS_ADDRESS` and `DBUS_SESSION_BUS_ADDRESS` from the
    /// environment.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        LinuxConfig {
            display: var("DISPLAY"),
            wayland_display: var("WAYLAND_DISPLAY"),
            runtime_dir: var("XDG_RUNTIME_DIR").map(Into::into),
            swaysock: var("SWAYSOCK").map(Into::into),
            kde_session: is_kde(
                var("XDG_CURRENT_DESKTOP").as_deref(),
                var("KDE_SESSION_VERSION").as_deref(),
            ),
            a11y_address: var("AT_SPI_BUS_ADDRESS"),
            session_address: var("DBUS_SESSION_BUS_ADDRESS"),
            ..LinuxConfig::default()
        }
    }

    /// Defaults with the variables of `env` (e.g. a sandbox's), ignoring the process env.
    pub fn from_vars<'a>(env: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut c = LinuxConfig::default();
        let (mut desktop, mut kde_version) = (None, None);
        for (k, v) in env {
            c.launch_env.push((k.to_string(), v.to_string()));
            let v = (!v.is_empty()).then(|| v.to_string());
            match k {
                "DISPLAY" => c.display = v,
                "WAYLAND_DISPLAY" => c.wayland_display = v,
                "XDG_RUNTIME_DIR" => c.runtime_dir = v.map(Into::into),
                "SWAYSOCK" => c.swaysock = v.map(Into::into),
                "XDG_CURRENT_DESKTOP" => desktop = v,
                "KDE_SESSION_VERSION" => kde_version = v,
                "AT_SPI_BUS_ADDRESS" => c.a11y_address = v,
                "DBUS_SESSION_BUS_ADDRESS" => c.session_address = v,
                _ => {}
            }
        }
        c.kde_session = is_kde(desktop.as_deref(), kde_version.as_deref());
        c
    }
}

/// Whether these variables name a KDE session: `XDG_CURRENT_DESKTOP` is a colon-separated
/// list (`KDE`, or `ubuntu:KDE`).
fn is_kde(current_desktop: Option<&str>, kde_session_version: Option<&str>) -> bool {
    current_desktop.is_some_and(|d| d.split(':').any(|n| n.eq_ignore_ascii_case("kde")))
        || kde_session_version.is_some_and(|v| !v.is_empty())
}

/// The display server a configuration drives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Platform {
    /// A sway (wlroots) Wayland session: its socket and its IPC socket.
    Sway {
        /// The compositor's socket path.
        socket: std::path::PathBuf,
        /// sway's IPC socket.
        ipc: std::path::PathBuf,
    },
    /// A KDE Wayland session, whose compositor is KWin: its socket.
    Kwin {
        /// The compositor's socket path.
        socket: std::path::PathBuf,
    },
    /// An X server.
    X11(String),
    /// A Wayland session of a compositor uidriver cannot drive yet (no sway IPC): its socket.
    OtherWayland(std::path::PathBuf),
    /// Neither: roots come from AT-SPI alone, with no input and no pixels.
    None,
}

impl LinuxConfig {
    /// Which display server this configuration drives: a Wayland session with sway's IPC
    /// first (`WAYLAND_DISPLAY` + `SWAYSOCK`), else a KDE Wayland session (`WAYLAND_DISPLAY`
    /// and [`LinuxConfig::kde_session`]: KWin, whose services on the session bus are asked
    /// when used), else X11 (`DISPLAY`, XWayland's too), else a Wayland session uidriver
    /// cannot drive, else none.
    pub fn platform(&self) -> Platform {
        let socket = self.wayland_display.as_ref().map(|d| {
            let p = std::path::Path::new(d);
            match (&self.runtime_dir, p.is_absolute()) {
                (Some(dir), false) => dir.join(p),
                _ => p.to_path_buf(),
            }
        });
        match (socket, &self.swaysock, &self.display) {
            (Some(socket), Some(ipc), _) => Platform::Sway {
                socket,
                ipc: ipc.clone(),
            },
            (Some(socket), None, _) if self.kde_session => Platform::Kwin { socket },
            (_, _, Some(d)) => Platform::X11(d.clone()),
            (Some(socket), None, None) => Platform::OtherWayland(socket),
            _ => Platform::None,
        }
    }
}

/// A thread on the display server `config` drives ([`LinuxConfig::platform`]); none without
/// one. Connecting happens on first use.
fn desk_thread(config: &LinuxConfig) -> std::result::Result<Option<DeskThread>, LinuxError> {
    Ok(match config.platform() {
        Platform::Sway { socket, ipc } => {
            Some(DeskThread::Wayland(wayland::desk::WaylandDesk::start(
                &socket.to_string_lossy(),
                std::path::Path::new("/"),
                ipc,
            )?))
        }
        Platform::Kwin { socket } => Some(DeskThread::Kwin(wayland::kwin::KwinDesk::start(
            &socket.to_string_lossy(),
            config.session_address.clone(),
        )?)),
        Platform::X11(d) => Some(DeskThread::X11(X11::start(Some(d))?)),
        Platform::OtherWayland(_) | Platform::None => None,
    })
}

/// The Linux backend. Cheap to clone; clones share the connections.
#[derive(Clone)]
pub struct LinuxBackend {
    inner: Arc<Inner>,
}

struct Inner {
    config: LinuxConfig,
    /// The environment checks of this desktop (the port's `doctor()`).
    doctor: doctor::LinuxDoctor,
    /// The accessibility bus attachment, renewed when the bus comes back (`link.rs`).
    link: Link,
    /// The attachment generation `apps` and `targets` were filled on: they name apps by bus
    /// names of that bus, which a new bus hands out again to other apps.
    generation: std::sync::atomic::AtomicU64,
    /// The display server: windows, activation, pixels (`desk.rs`).
    desk: Option<DeskThread>,
    /// A second thread on it for physical input only: typing a long text must not hold up the
    /// window listing and captures other lanes need.
    desk_input: Option<DeskThread>,
    /// App facts by bus name. A std mutex: held only to copy or insert, never across a call.
    apps: Mutex<HashMap<String, Arc<AppInfo>>>,
    /// Listed roots by key, for observe to find the AT-SPI surface. Same locking rule.
    targets: Mutex<HashMap<String, Target>>,
    /// When this backend last sent a click (GTK menus' click grace, `act/pointer.rs`).
    last_click: Mutex<Option<std::time::Instant>>,
    /// The clipboard this backend owns (served by its own thread until another client takes it).
    clipboard: Mutex<Option<clipboard::Owner>>,
}

impl LinuxBackend {
    /// Connects to the accessibility bus, registers the event listener (GTK3 serves its cache
    /// only after that) and starts the X11 thread.
    ///
    /// # Errors
    /// [`LinuxError::NoAccessibilityBus`] when no bus can be found or reached.
    pub async fn connect(config: LinuxConfig) -> std::result::Result<Self, LinuxError> {
        let link = Link::connect(
            config.a11y_address.as_deref(),
            config.session_address.as_deref(),
        )
        .await?;
        let desk = desk_thread(&config)?;
        let desk_input = desk_thread(&config)?;
        if let Some(d) = desk_input.clone() {
            // The virtual devices' settle time (~0.5 s on sway) is paid now, not by the first
            // click or key.
            tokio::spawn(async move {
                let _ = d
                    .run(Deadline::after(Duration::from_secs(3)), |c| {
                        c.prepare_input()
                    })
                    .await;
            });
        }
        if let Some(DeskThread::X11(x)) = &desk {
            // Give windows their own pixmaps now, so the first capture does not wait for repaints.
            let x = x.clone();
            tokio::spawn(async move {
                let d = Deadline::after(Duration::from_secs(2));
                let _ = x
                    .run(d, |c| {
                        if crate::x11::ewmh::has_extension(c, "Composite") {
                            crate::x11::capture::redirect_toplevels(c);
                        }
                        Ok(())
                    })
                    .await;
            });
        }
        debug!(address = link.current().bus.address(), display = ?config.display, "linux backend ready");
        Ok(LinuxBackend {
            inner: Arc::new(Inner {
                doctor: doctor::LinuxDoctor::new(config.clone()),
                config,
                link,
                generation: std::sync::atomic::AtomicU64::new(0),
                desk,
                desk_input,
                apps: Mutex::new(HashMap::new()),
                targets: Mutex::new(HashMap::new()),
                last_click: Mutex::new(None),
                clipboard: Mutex::new(None),
            }),
        })
    }

    /// [`LinuxBackend::connect`] with [`LinuxConfig::from_env`].
    ///
    /// # Errors
    /// As [`LinuxBackend::connect`].
    pub async fn from_env() -> std::result::Result<Self, LinuxError> {
        Self::connect(LinuxConfig::from_env()).await
    }

    /// The configuration in use.
    pub fn config(&self) -> &LinuxConfig {
        &self.inner.config
    }

    /// A live attachment to the accessibility bus (reattaching after the bus came back), with
    /// the app and root caches of an earlier attachment dropped.
    async fn attached(
        &self,
        deadline: Deadline,
    ) -> std::result::Result<Arc<Attachment>, LinuxError> {
        let att = self.inner.link.get(deadline).await?;
        let before = self
            .inner
            .generation
            .swap(att.generation, std::sync::atomic::Ordering::SeqCst);
        if before != att.generation {
            lock(&self.inner.apps).clear();
            lock(&self.inner.targets).clear();
        }
        Ok(att)
    }

    fn observe_limits(&self) -> observe::Limits {
        let c = &self.inner.config;
        observe::Limits {
            per_call: c.call_timeout,
            ping: c.ping_timeout,
            patience: c.ping_timeout,
            in_flight: c.in_flight,
            max_depth: c.max_depth,
        }
    }

    async fn list(&self, deadline: Deadline) -> std::result::Result<Vec<Target>, LinuxError> {
        self.list_within(deadline, self.inner.config.list_call_timeout)
            .await
    }

    /// [`Self::list`] with `per_call` for each app's calls (a busy app is waited for that long).
    async fn list_within(
        &self,
        deadline: Deadline,
        per_call: Duration,
    ) -> std::result::Result<Vec<Target>, LinuxError> {
        let inner = &self.inner;
        let att = match self.attached(deadline).await {
            Ok(a) => a,
            Err(e) => return Err(self.with_display(e, deadline).await),
        };
        let known = lock(&inner.apps).clone();
        let limits = ListLimits {
            per_call,
            in_flight: inner.config.in_flight,
        };
        let x11_f = async {
            match &inner.desk {
                Some(x) => Some(
                    x.run(deadline.cap(Duration::from_secs(2)), |c| c.desktop())
                        .await,
                ),
                None => None,
            }
        };
        let (apps, xd) = tokio::join!(
            roots::atspi_apps(&att.bus, &known, &limits, deadline),
            x11_f
        );
        let xd = match xd {
            // No X server where one is configured: its apps went with it, and what AT-SPI still
            // lists is on its way out. Say so rather than list half a desktop.
            Some(Err(e @ LinuxError::NoDisplay(_))) => return Err(e),
            Some(Err(e)) => {
                debug!(error = %e, "X11 window list unavailable");
                None
            }
            Some(Ok(d)) => Some(d),
            None => None,
        };
        let apps = apps?;
        {
            let mut cache = lock(&inner.apps);
            cache.retain(|bus, _| {
                let alive = apps.iter().any(|(a, _)| &a.bus == bus);
                if !alive {
                    att.memo.forget_app(bus);
                    att.events.forget(bus);
                }
                alive
            });
            for (a, surfaces) in &apps {
                if surfaces.is_some() {
                    cache.insert(a.bus.clone(), a.clone());
                }
            }
        }
        let listed = roots::pair(&apps, xd.as_ref());
        let mut targets = lock(&inner.targets);
        let previous = std::mem::take(&mut *targets);
        for t in &listed {
            let mut t = t.clone();
            // A frozen app's window keeps the surface it was paired with while its app lives.
            if t.obj.is_none() {
                if let Some(p) = previous.get(&t.info.key) {
                    if p.app
                        .as_ref()
                        .is_some_and(|a| apps.iter().any(|(b, _)| b.bus == a.bus))
                    {
                        t.obj = p.obj.clone();
                        t.app = p.app.clone();
                    }
                }
            }
            targets.insert(t.info.key.clone(), t);
        }
        Ok(listed)
    }

    /// `e` (the bus is gone), naming the X server first when it is gone too: an X server that
    /// went away takes the clients with it, the bus launcher among them, so it is the cause.
    async fn with_display(&self, e: LinuxError, deadline: Deadline) -> LinuxError {
        let Some(x) = &self.inner.desk else {
            return e;
        };
        match x.is_broken(deadline.cap(Duration::from_millis(500))).await {
            Some(LinuxError::NoDisplay(d)) => LinuxError::NoDisplay(format!("{d}; {e}")),
            _ => e,
        }
    }

    /// The listed target for a root, listing again once when it is not known, and the
    /// attachment its AT-SPI surface belongs to (a target's bus names mean nothing on another).
    async fn target(
        &self,
        root: &RootInfo,
        deadline: Deadline,
    ) -> std::result::Result<(Arc<Attachment>, Target), LinuxError> {
        let att = self.attached(deadline).await?;
        if let Some(t) = lock(&self.inner.targets).get(&root.key).cloned() {
            if t.obj.is_some() {
                return Ok((att, t));
            }
        }
        // A busy app left unresolved by a quick listing is waited for as long as the caller's
        // budget allows (`observe::patience`); under the default budget, the quick listing.
        let short = self.inner.config.list_call_timeout;
        let per_call = observe::patience(short, deadline, false);
        self.list_within(deadline.cap(Duration::from_secs(2) + per_call), per_call)
            .await?;
        let att = self.attached(deadline).await?;
        lock(&self.inner.targets)
            .get(&root.key)
            .cloned()
            .map(|t| (att, t))
            .ok_or_else(|| LinuxError::RootNotFound(format!("{} ({})", root.title, root.key)))
    }

    /// The name input is serialized under (the lease file's, `lease.rs`): the X display, or the
    /// Wayland socket.
    fn seat_name(&self) -> String {
        match self.inner.config.platform() {
            Platform::Sway { socket, .. }
            | Platform::Kwin { socket }
            | Platform::OtherWayland(socket) => socket.to_string_lossy().into_owned(),
            Platform::X11(d) => d,
            Platform::None => String::new(),
        }
    }

    /// Notes that a click was just sent.
    fn clicked_now(&self) {
        *lock(&self.inner.last_click) = Some(std::time::Instant::now());
    }

    /// How long ago this backend last sent a click.
    fn since_last_click(&self) -> Option<Duration> {
        lock(&self.inner.last_click).map(|t| t.elapsed())
    }

    /// Why `what` cannot be done without a display server this backend drives: none
    /// configured, or a Wayland compositor that gives clients no windows, input or pixels
    /// (GNOME's mutter), with what to do instead.
    fn no_desk(&self, what: &str) -> Error {
        match self.inner.config.platform() {
            Platform::OtherWayland(socket) => Error::new(
                ErrorCode::BackendUnavailable,
                format!(
                    "{what} needs the display server, and the Wayland compositor at {} gives clients no window rectangles, input or pixels (uidriver drives sway and KWin; this session is read through AT-SPI only)",
                    socket.display()
                ),
            )
            .with_hint("Use semantic steps (press, setText, check, select), or run the apps in `uidriver sandbox --wayland`; `uidriver doctor` says what works here."),
            _ => Error::from(LinuxError::NoDisplay(format!(
                "no display is configured (DISPLAY, or WAYLAND_DISPLAY with SWAYSOCK or a KDE session), so {what} cannot be done"
            ))),
        }
    }

    /// How physical input is delivered here (XTEST, or a compositor's virtual devices).
    fn delivery_method(&self) -> uidriver_core::DeliveryMethod {
        self.inner
            .desk_input
            .as_ref()
            .map_or(uidriver_core::DeliveryMethod::Xtest, DeskThread::delivery)
    }

    /// The mapped popup windows (menus open on screen); none without X11 or when it does not
    /// answer in time.
    async fn popup_rects(&self, deadline: Deadline) -> Vec<uidriver_core::Bounds> {
        let Some(x) = self.inner.desk.as_ref() else {
            return Vec::new();
        };
        x.run(deadline.cap(Duration::from_millis(500)), |c| {
            c.popup_rects()
        })
        .await
        .unwrap_or_default()
    }

    /// Where a GTK 4 popup surface of `width`×`height` is on screen: the one mapped
    /// override-redirect window of that size, `None` when there is none or more than one.
    async fn gtk4_popup_origin(
        &self,
        width: i32,
        height: i32,
        deadline: Deadline,
    ) -> Option<(i32, i32)> {
        let x = self.inner.desk.as_ref()?;
        let found = x
            .run(deadline.cap(Duration::from_millis(500)), move |c| {
                desk::popups_of_size(c, width, height)
            })
            .await
            .ok()?;
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Moves each open GTK 4 popover of a look, with what it holds, to where it is drawn: GTK
    /// 4.8 reports it at its parent widget's place in the window, while its surface is the one
    /// popup window of its size (the rule clicks aim by, `act/deliver.rs`). A popover whose
    /// surface is not found keeps the reported rectangles.
    async fn place_gtk4_popovers(&self, nodes: &mut [Node], deadline: Deadline) {
        for i in 0..nodes.len() {
            let n = &nodes[i];
            if n.role != uidriver_core::Role::Menu || n.has_state(uidriver_core::StateFlag::Hidden)
            {
                continue;
            }
            let Some(b) = n.bounds.filter(|b| b.is_visible()) else {
                continue;
            };
            if let Some((sx, sy)) = self.gtk4_popup_origin(b.width, b.height, deadline).await {
                frames::shift_subtree(nodes, i, sx - b.x, sy - b.y);
            }
        }
    }

    async fn observe_obj(
        &self,
        att: &Attachment,
        target: &Target,
        obj: Obj,
        req: &ObserveRequest,
        deadline: Deadline,
    ) -> std::result::Result<Snapshot, LinuxError> {
        let toolkit = target.app.as_ref().map_or(Toolkit::Other, |a| a.toolkit);
        let origin = self.window_origin(att, target, deadline).await;
        let popups = if toolkit == Toolkit::Gtk2 {
            self.popup_rects(deadline).await
        } else {
            Vec::new()
        };
        let mut limits = self.observe_limits();
        let stopped = target.info.pid.is_some_and(procfs::stopped);
        limits.patience = observe::patience(limits.ping, deadline, stopped);
        let scope = observe::Scope {
            bus: &att.bus,
            root: obj,
            toolkit,
            origin,
            relative: self.window_relative(target),
            limits: &limits,
            memo: &att.memo,
            popups,
        };
        let mut result = observe::observe(scope, req, deadline).await;
        if let (Ok(snap), Toolkit::Gtk4) = (&mut result, toolkit) {
            self.place_gtk4_popovers(&mut snap.nodes, deadline).await;
        }
        // The process explains a failure better than the D-Bus error does.
        if let (Err(e), Some(pid)) = (&result, target.info.pid) {
            if !procfs::alive(pid) {
                return Err(LinuxError::Gone {
                    what: format!("process {pid}"),
                    reason: "exited".into(),
                });
            }
            if e.is_unresponsive() && procfs::stopped(pid) {
                return Err(LinuxError::Unresponsive {
                    what: format!("process {pid} (stopped by a signal)"),
                    timeout: self.inner.config.ping_timeout,
                });
            }
        }
        result
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A window without an AT-SPI surface. After the bus was renewed, the likely reason is that
/// its app joined the old bus: toolkits connect once at start and never rejoin.
fn no_tree(root: &RootInfo, bus_renewed: bool) -> Error {
    let mut message = format!("window \"{}\" has no accessibility tree", root.title);
    let mut hint = "Observe it visually (mode visual) and act by coordinates.".to_string();
    if bus_renewed {
        message.push_str(
            ": the accessibility bus restarted since uidriver started, and an application \
             started before that is not on the new bus (toolkits join the bus once, at start)",
        );
        hint.insert_str(0, "Restart the application to observe its tree, or: ");
    }
    Error::new(ErrorCode::NotSupported, message).with_hint(hint)
}

#[async_trait]
impl Backend for LinuxBackend {
    fn doctor(&self) -> Option<&dyn uidriver_core::Doctor> {
        Some(&self.inner.doctor)
    }

    fn screen(&self) -> Option<&dyn uidriver_core::ScreenControl> {
        self.inner
            .desk
            .as_ref()
            .map(|_| self as &dyn uidriver_core::ScreenControl)
    }

    fn name(&self) -> &'static str {
        "linux"
    }

    async fn list_roots(&self, deadline: Deadline) -> Result<Vec<RootInfo>> {
        Ok(self
            .list(deadline)
            .await?
            .into_iter()
            .map(|t| t.info)
            .collect())
    }

    async fn observe(
        &self,
        root: &RootInfo,
        req: &ObserveRequest,
        deadline: Deadline,
    ) -> Result<Snapshot> {
        // What `target` waits for a busy app's listing.
        let waited = observe::patience(self.inner.config.list_call_timeout, deadline, false);
        let (att, target) = self.target(root, deadline).await?;
        let Some(obj) = target.obj.clone() else {
            if target.info.has_tree {
                return Err(LinuxError::Unresponsive {
                    what: format!("application of \"{}\"", root.title),
                    timeout: waited,
                }
                .into());
            }
            return Err(no_tree(root, self.inner.link.renewed()));
        };
        Ok(self.observe_obj(&att, &target, obj, req, deadline).await?)
    }

    async fn observe_region(
        &self,
        root: &RootInfo,
        state: &State,
        node: usize,
        req: &ObserveRequest,
        deadline: Deadline,
    ) -> Result<Snapshot> {
        let n = state
            .snapshot
            .nodes
            .get(node)
            .ok_or_else(|| Error::invalid("node", "not in the state"))?;
        let obj = Obj::from_handle(&n.handle)
            .ok_or_else(|| Error::invalid("node", "has no AT-SPI handle"))?;
        let (att, target) = self.target(root, deadline).await?;
        Ok(self.observe_obj(&att, &target, obj, req, deadline).await?)
    }

    async fn act(
        &self,
        req: uidriver_core::ActRequest<'_>,
        deadline: Deadline,
    ) -> Result<Vec<uidriver_core::StepReport>> {
        act::run(self, req, deadline).await
    }

    async fn read_text(
        &self,
        root: &RootInfo,
        node: &Node,
        start: u32,
        end: u32,
        deadline: Deadline,
    ) -> Result<TextSlice> {
        // Password fields never reach here: the service refuses them (`read_text.rs`).
        let _ = root;
        let obj = Obj::from_handle(&node.handle)
            .ok_or_else(|| Error::invalid("node", "has no AT-SPI handle"))?;
        let att = self.attached(deadline).await?;
        let c = att.bus.caller(deadline, self.inner.config.call_timeout, 4);
        // Nothing is asked of an object without `Text` (an ATK assertion in the app).
        let ifaces = att.memo.interfaces_of(&c, &obj).await?;
        if !ifaces.has(atspi::Ifaces::TEXT) {
            return Err(LinuxError::Unsupported {
                what: "Text.GetText".into(),
                reason: "the element has no Text interface".into(),
            }
            .into());
        }
        let total = text::character_count(&c, &obj).await?.max(0) as u32;
        let (s, e) = TextSlice::clamp(start, end, total);
        let t = if e > s {
            text::text(&c, &obj, s as i32, e as i32).await?
        } else {
            String::new()
        };
        // Toolkits count characters as we do; trust but cap what came back.
        let t = text::take_chars(&t, (e - s) as usize).to_string();
        let got = t.chars().count() as u32;
        let mut styles = text_styles::read(&c, &obj, s, s + got).await;
        let t = if t.contains(embedded_text::MARK) {
            let (out, at) = embedded_text::expand(&c, &obj, t, s).await?;
            // Runs count characters of the text as returned: shifted past what marks became.
            for run in &mut styles {
                let place = |o: u32| s + at[(o.saturating_sub(s) as usize).min(at.len() - 1)];
                (run.start, run.end) = (place(run.start), place(run.end));
            }
            out
        } else {
            t
        };
        Ok(TextSlice {
            text: t,
            start: s,
            end: s + got,
            total,
            styles,
        })
    }

    async fn wait_change(&self, root: &RootInfo, deadline: Deadline) -> Result<()> {
        // Subscribe first: an event that arrives while the root is looked up still counts.
        let att = self.attached(deadline).await?;
        let mut rx = att.events.subscribe();
        let known = lock(&self.inner.targets).get(&root.key).cloned();
        let target = match known {
            Some(t) => Some(t),
            None => self.target(root, deadline).await.ok().map(|(_, t)| t),
        };
        let bus = target.and_then(|t| t.app.map(|a| a.bus.clone()));
        let Some(bus) = bus else {
            // No AT-SPI app behind it: nothing to wait on but time.
            tokio::time::sleep(deadline.remaining().min(Duration::from_millis(200))).await;
            return Ok(());
        };
        let _ = tokio::time::timeout(deadline.remaining(), events::next_from(&mut rx, &bus)).await;
        Ok(())
    }

    async fn settle_after_act(&self, root: &RootInfo, deadline: Deadline) -> Option<bool> {
        // The act just ran on this root: its target and attachment are known.
        let bus = lock(&self.inner.targets)
            .get(&root.key)
            .and_then(|t| t.app.as_ref().map(|a| a.bus.clone()))?;
        let att = self.attached(deadline).await.ok()?;
        act::settle_deferred(&att.events, &bus).await
    }

    /// Politely, through the window manager (`x11/ewmh.rs`, `request_close`); never a kill.
    async fn close_root(&self, root: &RootInfo, deadline: Deadline) -> Result<()> {
        let x = self
            .inner
            .desk
            .as_ref()
            .ok_or_else(|| self.no_desk("this"))?;
        let window = root.window_id.and_then(|w| u32::try_from(w).ok());
        let Some(w) = window.filter(|_| !matches!(root.kind, RootKind::Menu | RootKind::Popover))
        else {
            return Err(Error::unsupported(format!(
                "{} \"{}\" has no window of its own to close",
                root.kind.as_str(),
                root.title
            ))
            .with_hint("Dismiss it with act_ui (keypress Escape, or its own Close button)."));
        };
        if !x.run(deadline, move |c| c.request_close(w)).await? {
            return Err(Error::unsupported(format!(
                "window \"{}\" does not accept a polite close request (no WM_DELETE_WINDOW)",
                root.title
            ))
            .with_hint("Use the app's own Close or Quit control with act_ui."));
        }
        Ok(())
    }

    async fn capture(&self, root: &RootInfo, deadline: Deadline) -> Result<RawImage> {
        let x = self
            .inner
            .desk
            .as_ref()
            .ok_or_else(|| self.no_desk("this"))?;
        let window = root.window_id.and_then(|w| u32::try_from(w).ok());
        let bounds = root.bounds;
        let img = x
            .run(deadline, move |c| {
                let rect = match window {
                    Some(w) => c.client_rect(w)?.0,
                    None => bounds.ok_or_else(|| {
                        LinuxError::InvalidArgs("root has no bounds to capture".into())
                    })?,
                };
                c.capture(window, rect)
            })
            .await?;
        Ok(img)
    }
}

#[cfg(test)]
mod platform_tests {
    use super::*;

    #[test]
    fn sway_then_kde_wayland_then_x11_is_driven() {
        let p = |vars: &[(&str, &str)]| LinuxConfig::from_vars(vars.iter().copied()).platform();
        let wl = ("WAYLAND_DISPLAY", "wayland-1");
        let run = ("XDG_RUNTIME_DIR", "/run/u");
        let socket = std::path::PathBuf::from("/run/u/wayland-1");
        assert_eq!(
            p(&[wl, run, ("SWAYSOCK", "/s"), ("XDG_CURRENT_DESKTOP", "KDE")]),
            Platform::Sway {
                socket: socket.clone(),
                ipc: "/s".into()
            }
        );
        let kwin = Platform::Kwin {
            socket: socket.clone(),
        };
        assert_eq!(
            p(&[wl, run, ("XDG_CURRENT_DESKTOP", "KDE"), ("DISPLAY", ":1")]),
            kwin,
            "KWin before its XWayland"
        );
        assert_eq!(p(&[wl, run, ("KDE_SESSION_VERSION", "5")]), kwin);
        assert_eq!(p(&[wl, run, ("XDG_CURRENT_DESKTOP", "ubuntu:kde")]), kwin);
        assert_eq!(
            p(&[wl, run, ("XDG_CURRENT_DESKTOP", "GNOME"), ("DISPLAY", ":1")]),
            Platform::X11(":1".into())
        );
        assert_eq!(
            p(&[wl, run, ("XDG_CURRENT_DESKTOP", "GNOME")]),
            Platform::OtherWayland(socket)
        );
        assert_eq!(
            p(&[("XDG_CURRENT_DESKTOP", "KDE"), ("DISPLAY", ":1")]),
            Platform::X11(":1".into()),
            "KDE on X11"
        );
    }
}
