//! Roots: the windows, dialogs and transient surfaces (menus, popovers) an agent can observe,
//! found on AT-SPI (applications → their top-level children) and on X11 (EWMH client windows),
//! and paired into one list.
//!
//! Pairing is by process id, then title, then geometry when titles repeat. A paired or X11-only
//! root is keyed by X11 window id + pid + process start time (`x11:0x1a00003:5120:991234`), so a
//! recycled window id or pid never names the wrong window; an AT-SPI surface without an X11
//! window (GTK3 menus are override-redirect windows without `_NET_WM_PID`) is keyed by pid +
//! start time + bus name + object path. Every app is read with short per-call timeouts and in
//! parallel: a stopped app costs one timeout, its windows are still listed from X11 data, and no
//! other app waits for it. Ranking and filters are the service's job; this lists everything.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use tracing::debug;
use uidriver_core::{Bounds, Deadline, ResourceKey, RootInfo, RootKind};

use crate::atspi::accessible::PropReads;
use crate::atspi::connection::{A11yBus, Caller};
use crate::atspi::{accessible, application, component, state, Obj, States, REGISTRY, ROOT_PATH};
use crate::error::LinuxError;
use crate::mapping::{is_surface_role, role};
use crate::procfs;
use crate::x11::ewmh::{Server, XDesktop, XWindow};

/// Processes that are the desktop itself, never an app to drive (by AT-SPI app name or
/// `/proc/PID/comm`).
pub(crate) const SKIPPED_APPS: &[&str] = &[
    "gnome-shell",
    "mutter",
    "gnome-panel",
    "gnome-flashback",
    "xfce4-panel",
    "xfwm4",
    "xfdesktop",
    "xfce4-session",
    "plasmashell",
    "kwin",
    "kwin_x11",
    "kwin_wayland",
    "ksmserver",
    "mate-panel",
    "marco",
    "budgie-panel",
    "cinnamon",
    "lxpanel",
    "openbox",
    "at-spi2-registryd",
    "at-spi-bus-launcher",
    "gnome-session-binary",
    "xdg-desktop-portal-gtk",
];

/// The toolkit of an application, for quirks (the table in `TOOLKITS.md` beside `src/` says what each
/// one needs and why).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Toolkit {
    /// GTK 2 through the ATK bridge (`GTK_MODULES=gail:atk-bridge`): as GTK 3.
    Gtk2,
    /// GTK 3 (ATK bridge): screen extents, full cache.
    Gtk3,
    /// GTK 4: window-relative extents, partial cache.
    Gtk4,
    /// Chromium or Electron: deep web content, DOM ids in attributes.
    Chromium,
    /// Qt 5 or 6: no cache, no `Properties.GetAll` (it crashes Qt 5).
    Qt,
    /// LibreOffice (VCL through the ATK bridge).
    LibreOffice,
    /// Gecko (Firefox, Thunderbird) through the ATK bridge.
    Gecko,
    /// Anything else, or not read yet.
    Other,
}

impl Toolkit {
    pub(crate) fn from_name(name: &str, version: &str) -> Toolkit {
        let n = name.to_ascii_lowercase();
        if n == "gtk" || n == "gail" {
            match version.split('.').next() {
                Some("4") => Toolkit::Gtk4,
                Some("2") => Toolkit::Gtk2,
                _ => Toolkit::Gtk3,
            }
        } else if n.contains("chrom") || n.contains("electron") {
            Toolkit::Chromium
        } else if n.starts_with("qt") {
            Toolkit::Qt
        } else if n == "vcl" || n.contains("libreoffice") {
            Toolkit::LibreOffice
        } else if n == "gecko" {
            Toolkit::Gecko
        } else {
            Toolkit::Other
        }
    }

    /// How this toolkit's bridge is asked for properties. `GetAll` only where it is known to be
    /// answered; a toolkit not listed is read one property at a time (slower, never a crash).
    pub(crate) fn prop_reads(self) -> PropReads {
        match self {
            Toolkit::Gtk2
            | Toolkit::Gtk3
            | Toolkit::Gtk4
            | Toolkit::Chromium
            | Toolkit::LibreOffice
            | Toolkit::Gecko => PropReads::All,
            Toolkit::Qt | Toolkit::Other => PropReads::OneByOne,
        }
    }

    /// Whether this toolkit never sets `SHOWING` on the items of a menu popup, open or not:
    /// GTK 2's gail (GIMP 2.10). An open menu's items are `VISIBLE` with their place on screen;
    /// a closed one's answer the rectangle of a widget without a window, 1×1 at `i32::MIN`.
    /// `press` counts such an item as on screen when it is visible with a place on screen
    /// (`act/menu.rs`); a look counts the items of a menu inside a mapped popup window as
    /// showing (`observe/gtk2.rs`).
    pub(crate) fn leaves_menu_items_unshown(self) -> bool {
        self == Toolkit::Gtk2
    }

    /// How long after the click that opened a menu a click in it is taken as the end of that
    /// click, not a choice: GTK 2 and 3 ignore a release within `MENU_SHELL_TIMEOUT` (500 ms)
    /// of the menu's activation (press-drag-release through a menu bar). A fast agent's next
    /// click on an item then only highlights it (seen on Wayland, where a look and a click
    /// take well under 500 ms).
    pub(crate) fn menu_click_grace(self) -> Option<std::time::Duration> {
        matches!(self, Toolkit::Gtk2 | Toolkit::Gtk3)
            .then_some(std::time::Duration::from_millis(550))
    }

    /// How this toolkit's `Value` interface is read. Gecko answers NaN for the value and range
    /// of a number field it no longer shows (the account hub's Port after Back) and its ATK
    /// getters then leave the `GValue` empty: at-spi2-atk's `MinimumValue` getter writes
    /// nothing, which fails a `Get` ("Get failed") but leaves a `GetAll` reply without its
    /// variant, and libdbus aborts the app. Gecko's values are read one `Get` each.
    pub(crate) fn value_reads(self) -> PropReads {
        match self {
            Toolkit::Gecko => PropReads::OneByOne,
            other => other.prop_reads(),
        }
    }
}

/// What the backend knows about an AT-SPI application; fixed for the life of its bus name.
#[derive(Clone, Debug)]
pub(crate) struct AppInfo {
    /// Unique bus name on the accessibility bus.
    pub bus: String,
    /// Owning process (from the bus daemon).
    pub pid: Option<u32>,
    /// Process start time (`/proc/PID/stat` field 22).
    pub start_time: u64,
    /// Application name.
    pub name: String,
    /// Toolkit.
    pub toolkit: Toolkit,
}

/// A listed root and how to reach it.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The root as listed.
    pub info: RootInfo,
    /// The AT-SPI surface (frame, dialog, menu window), when paired or AT-SPI-only.
    pub obj: Option<Obj>,
    /// The application, when it is on AT-SPI.
    pub app: Option<Arc<AppInfo>>,
    /// Its window is an XWayland client's: screen coordinates even on Wayland.
    pub xwayland: bool,
}

/// One top-level child of an application, as read for listing.
#[derive(Clone, Debug)]
pub(crate) struct Surface {
    pub obj: Obj,
    pub role: u32,
    pub states: States,
    pub name: String,
    pub extents: Option<Bounds>,
    /// Role of the first child (a GTK3 menu is a `window` holding a `menu`).
    pub child_role: Option<u32>,
}

/// One application's part of a listing.
struct AppListing {
    app: Arc<AppInfo>,
    /// `None` when the app did not answer in time.
    surfaces: Option<Vec<Surface>>,
}

/// Timeouts for listing.
pub(crate) struct ListLimits {
    /// Per call to an app.
    pub per_call: Duration,
    /// Calls in flight.
    pub in_flight: usize,
}

/// Lists applications on the registry and reads each one's surfaces, apps in parallel.
/// `known` caches app facts by bus name (updated in place by the caller).
pub(crate) async fn atspi_apps(
    bus: &A11yBus,
    known: &HashMap<String, Arc<AppInfo>>,
    limits: &ListLimits,
    deadline: Deadline,
) -> Result<Vec<(Arc<AppInfo>, Option<Vec<Surface>>)>, LinuxError> {
    let caller = bus.caller(deadline, limits.per_call, limits.in_flight);
    let registry = Obj::new(REGISTRY, ROOT_PATH);
    let apps = accessible::children(&caller, &registry).await?;
    let listings = join_all(apps.into_iter().map(|app| {
        let cached = known.get(&app.bus).cloned();
        let caller = &caller;
        async move { list_app(bus, caller, app, cached, limits.per_call).await }
    }))
    .await;
    Ok(listings
        .into_iter()
        .flatten()
        .map(|l| (l.app, l.surfaces))
        .collect())
}

async fn list_app(
    bus: &A11yBus,
    caller: &Caller,
    app: Obj,
    cached: Option<Arc<AppInfo>>,
    per_call: Duration,
) -> Option<AppListing> {
    let info = match cached {
        Some(i) => i,
        None => {
            let pid = bus.pid_of(&app.bus, per_call).await.ok();
            let stat = pid.and_then(procfs::stat);
            let (name, toolkit) = tokio::join!(
                accessible::name(caller, &app),
                application::toolkit(caller, &app.bus)
            );
            let responsive = !matches!(&name, Err(e) if e.is_unresponsive());
            let info = AppInfo {
                bus: app.bus.clone(),
                pid,
                start_time: stat.as_ref().map(|s| s.start_time).unwrap_or(0),
                name: name
                    .ok()
                    .filter(|n| !n.is_empty())
                    .or_else(|| stat.as_ref().map(|s| s.comm.clone()))
                    .unwrap_or_default(),
                toolkit: toolkit
                    .map(|(n, v)| Toolkit::from_name(&n, &v))
                    .unwrap_or(Toolkit::Other),
            };
            let info = Arc::new(info);
            if !responsive {
                // The caller caches only apps that answered, so name and toolkit are read again.
                return Some(AppListing {
                    app: info,
                    surfaces: None,
                });
            }
            info
        }
    };
    let comm = info
        .pid
        .and_then(procfs::stat)
        .map(|s| s.comm)
        .unwrap_or_default();
    if SKIPPED_APPS
        .iter()
        .any(|s| s.eq_ignore_ascii_case(&info.name) || s.eq_ignore_ascii_case(&comm))
    {
        return None;
    }
    let surfaces = match accessible::children(caller, &app).await {
        Ok(kids) => {
            let read = join_all(kids.into_iter().map(|k| read_surface(caller, k))).await;
            if read
                .iter()
                .any(|r| matches!(r, Err(e) if e.is_unresponsive()))
            {
                None
            } else {
                Some(read.into_iter().filter_map(Result::ok).collect())
            }
        }
        Err(e) if e.is_unresponsive() => None,
        Err(e) => {
            debug!(app = %info.name, error = %e, "cannot list surfaces");
            Some(Vec::new())
        }
    };
    Some(AppListing {
        app: info,
        surfaces,
    })
}

async fn read_surface(c: &Caller, obj: Obj) -> Result<Surface, LinuxError> {
    let (role_n, states, name, extents) = tokio::join!(
        accessible::role(c, &obj),
        accessible::states(c, &obj),
        accessible::name(c, &obj),
        component::extents(c, &obj, component::COORD_SCREEN),
    );
    let role_n = role_n?;
    let states = states?;
    // A window role that is showing may be a menu: look at its first child.
    let child_role = if role_n == role::WINDOW && states.has(state::SHOWING) {
        match accessible::child_at(c, &obj, 0).await {
            Ok(Some(k)) => accessible::role(c, &k).await.ok(),
            _ => None,
        }
    } else {
        None
    };
    Ok(Surface {
        obj,
        role: role_n,
        states,
        name: name.unwrap_or_default(),
        extents: extents
            .ok()
            .map(|(x, y, w, h)| Bounds::new(x, y, w, h))
            .filter(|b| b.width > 0 && b.height > 0),
        child_role,
    })
}

/// Pairs AT-SPI surfaces with the display server's windows and builds the root list.
pub(crate) fn pair(
    apps: &[(Arc<AppInfo>, Option<Vec<Surface>>)],
    x: Option<&XDesktop>,
) -> Vec<Target> {
    let empty = XDesktop::default();
    let xd = x.unwrap_or(&empty);
    let mut out = Vec::new();
    let mut used_windows: Vec<bool> = vec![false; xd.windows.len()];
    let on_top = xd.windows.len() as u32;
    let mut extra_stacking = 0u32;
    for (app, surfaces) in apps {
        let mut wins: Vec<usize> = (0..xd.windows.len())
            .filter(|&i| !used_windows[i] && app.pid.is_some() && xd.windows[i].pid == app.pid)
            .collect();
        if wins.is_empty() {
            // Launchers and zygotes: the window's process may be a parent or child of the
            // process that registered on AT-SPI.
            if let Some(p) = app.pid {
                wins = (0..xd.windows.len())
                    .filter(|&i| {
                        !used_windows[i]
                            && xd.windows[i].pid.is_some_and(|w| {
                                procfs::is_self_or_ancestor(w, p)
                                    || procfs::is_self_or_ancestor(p, w)
                            })
                    })
                    .collect();
            }
        }
        let Some(surfaces) = surfaces else {
            // The app did not answer: its windows are listed from X11 data below.
            continue;
        };
        // Any top-level child but a menu or tooltip can be a managed window: GTK 4.8 gives
        // its file chooser dialog the role `filler` (gnome-text-editor's Save As).
        let candidates: Vec<usize> = (0..surfaces.len())
            .filter(|&i| may_be_managed(&surfaces[i]))
            .collect();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut used_s = vec![false; surfaces.len()];
        // Pass 1: equal titles; the nearest geometry breaks ties.
        for &w in &wins {
            let xw = &xd.windows[w];
            let same: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|&s| !used_s[s] && surfaces[s].name == xw.title)
                .collect();
            if let Some(best) = nearest(&same, surfaces, xw, app.toolkit, xd.server) {
                used_s[best] = true;
                used_windows[w] = true;
                pairs.push((best, w));
            }
        }
        // Pass 2: remaining windows by geometry (titles differ, e.g. set after mapping), among
        // the surfaces that say they are shown when any does.
        for &w in &wins {
            if used_windows[w] {
                continue;
            }
            let mut rest: Vec<usize> = candidates.iter().copied().filter(|&s| !used_s[s]).collect();
            if rest.iter().any(|&s| is_shown(&surfaces[s])) {
                rest.retain(|&s| is_shown(&surfaces[s]));
            }
            if let Some(best) = nearest(&rest, surfaces, &xd.windows[w], app.toolkit, xd.server) {
                let d = distance(
                    surfaces[best].extents,
                    &xd.windows[w],
                    app.toolkit,
                    xd.server,
                );
                if d < 64 || rest.len() == 1 {
                    used_s[best] = true;
                    used_windows[w] = true;
                    pairs.push((best, w));
                }
            }
        }
        for (s, w) in pairs {
            out.push(paired_root(app, &surfaces[s], &xd.windows[w], xd));
        }
        for (i, s) in surfaces.iter().enumerate() {
            if used_s[i] || !s.states.has(state::SHOWING) {
                continue;
            }
            // A frame or dialog the window manager does not manage is not on screen as a
            // window of its own (Chromium keeps hidden views frames that claim SHOWING).
            let kind = match surface_kind(s) {
                Some(k) => k,
                None if x.is_none() => RootKind::Window,
                None => continue,
            };
            extra_stacking += 1;
            out.push(atspi_only_root(app, s, kind, on_top + extra_stacking));
        }
    }
    // X11 windows with no AT-SPI surface: apps without a tree (xterm, ImageMagick display), or
    // apps that did not answer in time.
    let by_pid: HashMap<u32, (&Arc<AppInfo>, bool)> = apps
        .iter()
        .filter_map(|(a, s)| a.pid.map(|p| (p, (a, s.is_none()))))
        .collect();
    for (i, w) in xd.windows.iter().enumerate() {
        if used_windows[i] {
            continue;
        }
        let app = w.pid.and_then(|p| by_pid.get(&p).copied());
        out.push(x11_only_root(w, app, xd));
    }
    out.sort_by_key(|t| t.info.stacking);
    out
}

/// Whether a top-level surface may be a window the window manager manages (paired with a
/// client window): anything but a menu or a tooltip, which are override-redirect windows.
fn may_be_managed(s: &Surface) -> bool {
    !matches!(s.role, role::MENU | role::POPUP_MENU | role::TOOL_TIP)
        && surface_kind(s) != Some(RootKind::Menu)
}

/// Whether a top-level surface says it is on screen: `SHOWING`, or `VISIBLE` alone, which is
/// all GTK 4.8 gives a dialog (nautilus's New Folder, a file chooser: `SHOWING` comes only on
/// the first window). A surface paired with a viewable X11 window that says neither is hidden.
fn is_shown(s: &Surface) -> bool {
    s.states.has(state::SHOWING) || s.states.has(state::VISIBLE)
}

/// The kind of a showing AT-SPI surface that has no managed X11 window.
fn surface_kind(s: &Surface) -> Option<RootKind> {
    match s.role {
        role::MENU | role::POPUP_MENU => Some(RootKind::Menu),
        role::WINDOW if matches!(s.child_role, Some(role::MENU | role::POPUP_MENU)) => {
            Some(RootKind::Menu)
        }
        role::WINDOW | role::TOOL_TIP => Some(RootKind::Popover),
        r if is_surface_role(r) => None,
        _ => None,
    }
}

fn distance(ext: Option<Bounds>, w: &XWindow, tk: Toolkit, server: Server) -> i32 {
    let Some(e) = ext else { return i32::MAX / 2 };
    let size = (e.width - w.bounds.width).abs() + (e.height - w.bounds.height).abs();
    if tk == Toolkit::Gtk4 || server == Server::Sway {
        // GTK4 extents, and all on Wayland, are window-relative: only the size says anything.
        size
    } else {
        size + (e.x - w.bounds.x).abs() + (e.y - w.bounds.y).abs()
    }
}

fn nearest(
    cands: &[usize],
    surfaces: &[Surface],
    w: &XWindow,
    tk: Toolkit,
    server: Server,
) -> Option<usize> {
    cands
        .iter()
        .copied()
        .min_by_key(|&s| distance(surfaces[s].extents, w, tk, server))
}

fn window_key(w: &XWindow, start_time: u64, server: Server) -> String {
    let prefix = server.key_prefix();
    match w.pid {
        Some(pid) => format!("{prefix}:{:#x}:{pid}:{start_time}", w.id),
        None => format!("{prefix}:{:#x}:nopid", w.id),
    }
}

fn resource(pid: Option<u32>, window: u32) -> ResourceKey {
    match pid {
        Some(p) => ResourceKey::new(format!("desktop-pid:{}", p)),
        None => ResourceKey::new(format!("x11-window:{:#x}", u64::from(window))),
    }
}

fn modal_by_x11(w: &XWindow, xd: &XDesktop) -> bool {
    w.modal
        || (w.dialog
            && w.transient_for.is_some_and(|t| {
                xd.windows
                    .iter()
                    .any(|o| o.id == t && o.pid.is_some() && o.pid == w.pid)
            }))
}

fn paired_root(app: &Arc<AppInfo>, s: &Surface, w: &XWindow, xd: &XDesktop) -> Target {
    let kind = match s.role {
        role::DIALOG
        | role::ALERT
        | role::FILE_CHOOSER
        | role::FONT_CHOOSER
        | role::COLOR_CHOOSER => RootKind::Dialog,
        _ if w.dialog => RootKind::Dialog,
        _ => RootKind::Window,
    };
    let title = if w.title.is_empty() {
        s.name.clone()
    } else {
        w.title.clone()
    };
    Target {
        info: RootInfo {
            key: window_key(w, app.start_time, xd.server),
            backend: "linux".into(),
            kind,
            app: app.name.clone(),
            pid: w.pid.or(app.pid),
            title,
            focused: s.states.has(state::ACTIVE) || xd.active == Some(w.id),
            modal: s.states.has(state::MODAL) || modal_by_x11(w, xd),
            bounds: Some(w.bounds),
            resource: resource(w.pid.or(app.pid), w.id),
            stacking: Some(w.stacking),
            has_tree: true,
            hidden: w.hidden || !is_shown(s),
            window_id: Some(u64::from(w.id)),
            url: None,
        },
        obj: Some(s.obj.clone()),
        app: Some(app.clone()),
        xwayland: w.xwayland,
    }
}

fn atspi_only_root(app: &Arc<AppInfo>, s: &Surface, kind: RootKind, stacking: u32) -> Target {
    let pid = app.pid.unwrap_or(0);
    Target {
        info: RootInfo {
            key: format!("atspi:{pid}:{}:{}", app.start_time, s.obj),
            backend: "linux".into(),
            kind,
            app: app.name.clone(),
            pid: app.pid,
            title: s.name.clone(),
            focused: s.states.has(state::ACTIVE) || s.states.has(state::FOCUSED),
            modal: s.states.has(state::MODAL),
            // GTK4 extents are window-relative; without a window they place nothing.
            bounds: if app.toolkit == Toolkit::Gtk4 {
                None
            } else {
                s.extents
            },
            resource: match app.pid {
                Some(p) => ResourceKey::new(format!("desktop-pid:{}", p)),
                None => ResourceKey::new(format!("x11-window:{:#x}", 0)),
            },
            stacking: Some(stacking),
            has_tree: true,
            hidden: false,
            window_id: None,
            url: None,
        },
        obj: Some(s.obj.clone()),
        app: Some(app.clone()),
        xwayland: false,
    }
}

/// `app`: the window's AT-SPI application, and whether it failed to answer.
fn x11_only_root(w: &XWindow, app: Option<(&Arc<AppInfo>, bool)>, xd: &XDesktop) -> Target {
    let unanswered = app.is_some_and(|(_, u)| u);
    let app = app.map(|(a, _)| a);
    let stat = w.pid.and_then(procfs::stat);
    let start = app
        .map(|a| a.start_time)
        .filter(|s| *s > 0)
        .or_else(|| stat.as_ref().map(|s| s.start_time))
        .unwrap_or(0);
    let name = app
        .map(|a| a.name.clone())
        .filter(|n| !n.is_empty())
        .or_else(|| (!w.class.is_empty()).then(|| w.class.clone()))
        .or_else(|| stat.as_ref().map(|s| s.comm.clone()))
        .unwrap_or_default();
    Target {
        info: RootInfo {
            key: window_key(w, start, xd.server),
            backend: "linux".into(),
            kind: if w.dialog {
                RootKind::Dialog
            } else {
                RootKind::Window
            },
            app: name,
            pid: w.pid,
            title: w.title.clone(),
            focused: xd.active == Some(w.id),
            modal: modal_by_x11(w, xd),
            bounds: Some(w.bounds),
            resource: resource(w.pid, w.id),
            stacking: Some(w.stacking),
            // An app on AT-SPI that did not answer still has a tree, just not readable now; a
            // window its (answering) app does not expose is observed visually.
            has_tree: unanswered,
            hidden: w.hidden,
            window_id: Some(u64::from(w.id)),
            url: None,
        },
        obj: None,
        app: app.cloned(),
        xwayland: w.xwayland,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gecko_values_are_read_one_get_each_and_other_fast_paths_stay() {
        assert_eq!(Toolkit::Gecko.value_reads(), PropReads::OneByOne);
        assert_eq!(Toolkit::Gecko.prop_reads(), PropReads::All);
        for tk in [
            Toolkit::Gtk3,
            Toolkit::Gtk4,
            Toolkit::Chromium,
            Toolkit::LibreOffice,
        ] {
            assert_eq!(tk.value_reads(), PropReads::All, "{tk:?}");
        }
        assert_eq!(Toolkit::Qt.value_reads(), PropReads::OneByOne);
    }

    fn app(pid: u32, tk: Toolkit) -> Arc<AppInfo> {
        Arc::new(AppInfo {
            bus: format!(":1.{pid}"),
            pid: Some(pid),
            start_time: 77,
            name: format!("app{pid}"),
            toolkit: tk,
        })
    }

    fn win(id: u32, pid: Option<u32>, title: &str, b: Bounds, stacking: u32) -> XWindow {
        XWindow {
            id,
            pid,
            title: title.into(),
            class: "Cls".into(),
            stacking,
            hidden: false,
            modal: false,
            dialog: false,
            transient_for: None,
            bounds: b,
            xwayland: false,
        }
    }

    fn surf(path: &str, role_n: u32, name: &str, ext: Option<Bounds>, showing: bool) -> Surface {
        let mut bits = 1u64 << state::SENSITIVE;
        if showing {
            bits |= 1 << state::SHOWING;
        }
        Surface {
            obj: Obj::new(":1.5", path),
            role: role_n,
            states: States(bits),
            name: name.into(),
            extents: ext,
            child_role: None,
        }
    }

    #[test]
    fn pairs_by_title_then_geometry_and_keeps_x11_only_windows() {
        let a = app(10, Toolkit::Gtk3);
        let b1 = Bounds::new(0, 0, 300, 200);
        let b2 = Bounds::new(400, 0, 300, 200);
        let xd = XDesktop {
            windows: vec![
                win(0x100, Some(10), "Doc", b1, 0),
                win(0x200, Some(10), "Doc", b2, 1),
                win(0x300, Some(99), "xterm", b1, 2),
                win(0x400, None, "display", b1, 3),
            ],
            active: Some(0x200),
            ..XDesktop::default()
        };
        let surfaces = vec![
            surf("/a/2", role::FRAME, "Doc", Some(b2), true),
            surf("/a/1", role::FRAME, "Doc", Some(b1), true),
            surf(
                "/a/9",
                role::FRAME,
                "",
                Some(Bounds::new(5, 5, 10, 10)),
                false,
            ),
        ];
        let roots = pair(&[(a, Some(surfaces))], Some(&xd));
        assert_eq!(roots.len(), 4);
        let r1 = roots
            .iter()
            .find(|r| r.info.window_id == Some(0x100))
            .unwrap();
        assert_eq!(r1.obj.as_ref().unwrap().path, "/a/1");
        assert_eq!(r1.info.key, "x11:0x100:10:77");
        let r2 = roots
            .iter()
            .find(|r| r.info.window_id == Some(0x200))
            .unwrap();
        assert_eq!(r2.obj.as_ref().unwrap().path, "/a/2");
        assert!(r2.info.focused && !r1.info.focused);
        let xterm = roots
            .iter()
            .find(|r| r.info.window_id == Some(0x300))
            .unwrap();
        assert!(!xterm.info.has_tree && xterm.obj.is_none());
        assert_eq!(xterm.info.resource, ResourceKey::new("desktop-pid:99"));
        let nopid = roots
            .iter()
            .find(|r| r.info.window_id == Some(0x400))
            .unwrap();
        assert_eq!(
            nopid.info.resource,
            ResourceKey::new(format!("x11-window:{:#x}", 0x400))
        );
        assert_eq!(nopid.info.key, "x11:0x400:nopid");
    }

    #[test]
    fn menus_without_windows_and_unresponsive_apps() {
        let a = app(10, Toolkit::Gtk3);
        let frozen = app(20, Toolkit::Gtk3);
        let b = Bounds::new(0, 0, 300, 200);
        let mut dialog = win(0x500, Some(10), "Ask", b, 1);
        dialog.dialog = true;
        dialog.transient_for = Some(0x100);
        let xd = XDesktop {
            windows: vec![
                win(0x100, Some(10), "Main", b, 0),
                dialog,
                win(0x900, Some(20), "Frozen", b, 2),
            ],
            active: None,
            ..XDesktop::default()
        };
        let mut menu = surf(
            "/m",
            role::WINDOW,
            "",
            Some(Bounds::new(10, 30, 100, 200)),
            true,
        );
        menu.child_role = Some(role::MENU);
        let surfaces = vec![
            surf("/f", role::FRAME, "Main", Some(b), true),
            surf("/d", role::DIALOG, "Ask", Some(b), true),
            menu,
        ];
        let roots = pair(&[(a, Some(surfaces)), (frozen, None)], Some(&xd));
        let m = roots
            .iter()
            .find(|r| r.info.kind == RootKind::Menu)
            .unwrap();
        assert_eq!(m.info.key, "atspi:10:77::1.5:/m");
        assert!(
            m.info.stacking.unwrap() > 2,
            "menus are above managed windows"
        );
        let d = roots
            .iter()
            .find(|r| r.info.kind == RootKind::Dialog)
            .unwrap();
        assert!(
            d.info.modal,
            "a dialog transient for its own app's window is modal"
        );
        let f = roots
            .iter()
            .find(|r| r.info.window_id == Some(0x900))
            .unwrap();
        assert!(f.info.has_tree && f.obj.is_none());
        assert_eq!(f.info.app, "app20");
    }

    /// Issue 11: GTK 4.8 sets only `VISIBLE` on its dialogs, and gives a file chooser dialog the
    /// role `filler`; both are the dialogs X11 shows, listed with their trees and not hidden.
    #[test]
    fn gtk4_dialogs_that_are_visible_but_not_showing_are_paired_and_not_hidden() {
        let a = app(10, Toolkit::Gtk4);
        let mut save_as = win(
            0x200,
            Some(10),
            "Save As",
            Bounds::new(24, 198, 1232, 419),
            1,
        );
        save_as.dialog = true;
        save_as.transient_for = Some(0x100);
        let mut new_folder = win(
            0x300,
            Some(10),
            "New Folder",
            Bounds::new(220, 200, 450, 149),
            2,
        );
        new_folder.dialog = true;
        new_folder.modal = true;
        let xd = XDesktop {
            windows: vec![
                win(0x100, Some(10), "files", Bounds::new(0, 0, 890, 550), 0),
                save_as,
                new_folder,
            ],
            active: Some(0x300),
            ..XDesktop::default()
        };
        let visible = |mut s: Surface| {
            s.states.0 |= 1 << state::VISIBLE;
            s
        };
        let surfaces = vec![
            surf(
                "/f",
                role::FRAME,
                "files",
                Some(Bounds::new(0, 0, 880, 540)),
                true,
            ),
            visible(surf(
                "/s",
                role::FILLER,
                "Save As",
                Some(Bounds::new(0, 0, 1232, 419)),
                false,
            )),
            visible(surf(
                "/n",
                role::DIALOG,
                "New Folder",
                Some(Bounds::new(0, 0, 440, 139)),
                false,
            )),
        ];
        let roots = pair(&[(a, Some(surfaces))], Some(&xd));
        assert_eq!(roots.len(), 3, "{roots:?}");
        for (id, path) in [(0x200, "/s"), (0x300, "/n")] {
            let r = roots
                .iter()
                .find(|r| r.info.window_id == Some(id))
                .expect("the dialog is listed");
            assert_eq!(r.obj.as_ref().map(|o| o.path.as_str()), Some(path));
            assert!(r.info.has_tree && !r.info.hidden, "{:?}", r.info);
            assert_eq!(r.info.kind, RootKind::Dialog);
        }
        // A surface that says neither SHOWING nor VISIBLE stays hidden, though X maps a window.
        let gone = surf("/g", role::DIALOG, "Save As", None, false);
        let roots = pair(&[(app(10, Toolkit::Gtk4), Some(vec![gone]))], Some(&xd));
        let r = roots
            .iter()
            .find(|r| r.info.window_id == Some(0x200))
            .expect("listed");
        assert!(r.info.hidden);
    }
}
