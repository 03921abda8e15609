//! The window manager's view of the desktop (EWMH): managed client windows in stacking order
//! with pid, title, state, type, transient-for and on-screen geometry, plus the active window.
//!
//! All requests for all windows are sent before any reply is read (x11rb pipelines them), so a
//! desktop of 20 windows costs about one round trip, not 200.

use x11rb::connection::{Connection as _, RequestConnection};
use x11rb::cookie::Cookie;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, GetPropertyReply, MapState, Window};
use x11rb::rust_connection::RustConnection;

use super::connection::{xerr, XConn};
use crate::error::LinuxError;
use uidriver_core::Bounds;

/// One managed top-level client window.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct XWindow {
    /// Window id.
    pub id: u32,
    /// `_NET_WM_PID`.
    pub pid: Option<u32>,
    /// `_NET_WM_NAME`, else `WM_NAME`.
    pub title: String,
    /// `WM_CLASS` class part.
    pub class: String,
    /// Position in `_NET_CLIENT_LIST_STACKING` (0 = bottom).
    pub stacking: u32,
    /// `_NET_WM_STATE_HIDDEN` or not mapped (minimized, withdrawn).
    pub hidden: bool,
    /// `_NET_WM_STATE_MODAL`.
    pub modal: bool,
    /// `_NET_WM_WINDOW_TYPE_DIALOG`.
    pub dialog: bool,
    /// `WM_TRANSIENT_FOR`.
    pub transient_for: Option<u32>,
    /// Client area in root coordinates (what `xwininfo` calls absolute upper-left + size).
    pub bounds: Bounds,
    /// An X11 client of XWayland on a Wayland desktop: its toolkit reports screen
    /// coordinates, as on X11, not window-relative ones.
    pub xwayland: bool,
}

/// The desktop as the window manager describes it.
#[derive(Clone, Debug, Default)]
pub(crate) struct XDesktop {
    /// Client windows, bottom to top.
    pub windows: Vec<XWindow>,
    /// `_NET_ACTIVE_WINDOW`.
    pub active: Option<u32>,
    /// Which server listed them: X11's window ids, or a Wayland compositor's (whose clients
    /// report window-relative rectangles).
    pub server: Server,
}

/// The display server a window list comes from: it names the root keys and says whether
/// toolkits' rectangles are global.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Server {
    /// An X server: window ids are X11's; rectangles are global (but GTK 4's).
    #[default]
    X11,
    /// sway: window ids are its container ids; every rectangle is window-relative.
    Sway,
    /// KWin on Wayland: window ids are the first 32 bits of its window uuids; every
    /// rectangle is window-relative.
    Kwin,
}

impl Server {
    /// The prefix of root keys of its windows.
    pub(crate) fn key_prefix(self) -> &'static str {
        match self {
            Server::X11 => "x11",
            Server::Sway => "sway",
            Server::Kwin => "kwin",
        }
    }
}

type Prop<'a> = Cookie<'a, RustConnection, GetPropertyReply>;

fn prop<'a>(
    c: &'a RustConnection,
    w: Window,
    name: impl Into<u32>,
    ty: impl Into<u32>,
    len: u32,
) -> Result<Prop<'a>, LinuxError> {
    c.get_property(false, w, name.into(), ty.into(), 0, len)
        .map_err(xerr)
}

fn u32s(r: Option<GetPropertyReply>) -> Vec<u32> {
    r.and_then(|r| r.value32().map(|v| v.collect()))
        .unwrap_or_default()
}

fn text(r: Option<GetPropertyReply>) -> String {
    r.map(|r| {
        String::from_utf8_lossy(&r.value)
            .trim_end_matches('\0')
            .to_string()
    })
    .unwrap_or_default()
}

/// Reads the client list and every window's facts.
pub(crate) fn desktop(x: &XConn) -> Result<XDesktop, LinuxError> {
    let c = &x.conn;
    let a = &x.atoms;
    let root = x.root();
    let any = u32::from(AtomEnum::ANY);
    let stacking = prop(c, root, a._NET_CLIENT_LIST_STACKING, AtomEnum::WINDOW, 4096)?;
    let active = prop(c, root, a._NET_ACTIVE_WINDOW, AtomEnum::WINDOW, 1)?;
    let mut ids = u32s(stacking.reply().ok());
    if ids.is_empty() {
        ids = u32s(
            prop(c, root, a._NET_CLIENT_LIST, AtomEnum::WINDOW, 4096)?
                .reply()
                .ok(),
        );
    }
    let active = u32s(active.reply().ok())
        .first()
        .copied()
        .filter(|w| *w != 0);

    struct Pending<'a> {
        id: u32,
        pid: Prop<'a>,
        net_name: Prop<'a>,
        name: Prop<'a>,
        class: Prop<'a>,
        state: Prop<'a>,
        wtype: Prop<'a>,
        transient: Prop<'a>,
        attrs: Cookie<'a, RustConnection, x11rb::protocol::xproto::GetWindowAttributesReply>,
        geom: Cookie<'a, RustConnection, x11rb::protocol::xproto::GetGeometryReply>,
        origin: Cookie<'a, RustConnection, x11rb::protocol::xproto::TranslateCoordinatesReply>,
    }
    let mut pending = Vec::with_capacity(ids.len());
    for &id in &ids {
        pending.push(Pending {
            id,
            pid: prop(c, id, a._NET_WM_PID, AtomEnum::CARDINAL, 1)?,
            net_name: prop(c, id, a._NET_WM_NAME, a.UTF8_STRING, 1024)?,
            name: prop(c, id, AtomEnum::WM_NAME, any, 1024)?,
            class: prop(c, id, AtomEnum::WM_CLASS, AtomEnum::STRING, 256)?,
            state: prop(c, id, a._NET_WM_STATE, AtomEnum::ATOM, 64)?,
            wtype: prop(c, id, a._NET_WM_WINDOW_TYPE, AtomEnum::ATOM, 64)?,
            transient: prop(c, id, AtomEnum::WM_TRANSIENT_FOR, AtomEnum::WINDOW, 1)?,
            attrs: c.get_window_attributes(id).map_err(xerr)?,
            geom: c.get_geometry(id).map_err(xerr)?,
            origin: c.translate_coordinates(id, root, 0, 0).map_err(xerr)?,
        });
    }
    c.flush().map_err(xerr)?;
    let mut windows = Vec::with_capacity(pending.len());
    for (i, p) in pending.into_iter().enumerate() {
        // A window destroyed between the list and the replies answers BadWindow: skip it.
        let (Ok(geom), Ok(origin)) = (p.geom.reply(), p.origin.reply()) else {
            continue;
        };
        let mapped = p
            .attrs
            .reply()
            .map(|r| r.map_state == MapState::VIEWABLE)
            .unwrap_or(false);
        let states = u32s(p.state.reply().ok());
        let types = u32s(p.wtype.reply().ok());
        let mut title = text(p.net_name.reply().ok());
        if title.is_empty() {
            title = text(p.name.reply().ok());
        }
        let class_raw = p.class.reply().ok().map(|r| r.value).unwrap_or_default();
        // WM_CLASS is "instance\0class\0".
        let class = class_raw
            .split(|b| *b == 0)
            .nth(1)
            .map(|s| String::from_utf8_lossy(s).to_string())
            .unwrap_or_default();
        windows.push(XWindow {
            id: p.id,
            pid: u32s(p.pid.reply().ok()).first().copied().filter(|p| *p > 0),
            title,
            class,
            stacking: i as u32,
            hidden: !mapped || states.contains(&a._NET_WM_STATE_HIDDEN),
            modal: states.contains(&a._NET_WM_STATE_MODAL),
            dialog: types.contains(&a._NET_WM_WINDOW_TYPE_DIALOG),
            transient_for: u32s(p.transient.reply().ok())
                .first()
                .copied()
                .filter(|w| *w != 0),
            bounds: Bounds::new(
                i32::from(origin.dst_x),
                i32::from(origin.dst_y),
                i32::from(geom.width),
                i32::from(geom.height),
            ),
            xwayland: false,
        });
    }
    Ok(XDesktop {
        windows,
        active,
        server: Server::X11,
    })
}

/// The on-screen origin of a window (for GTK4's window-relative extents).
pub(crate) fn origin(x: &XConn, w: u32) -> Result<(i32, i32), LinuxError> {
    let r = x
        .conn
        .translate_coordinates(w, x.root(), 0, 0)
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?;
    Ok((i32::from(r.dst_x), i32::from(r.dst_y)))
}

/// A window's client rectangle on screen and GTK's client-side frame extents
/// (`_GTK_FRAME_EXTENTS`: left, right, top, bottom shadow widths), when set.
pub(crate) fn client_rect(x: &XConn, w: u32) -> Result<(Bounds, Option<[u32; 4]>), LinuxError> {
    let (ox, oy) = origin(x, w)?;
    let g = x
        .conn
        .get_geometry(w)
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?;
    let ext = u32s(
        prop(
            &x.conn,
            w,
            x.atoms._GTK_FRAME_EXTENTS,
            AtomEnum::CARDINAL,
            4,
        )?
        .reply()
        .ok(),
    );
    let frame = (ext.len() == 4).then(|| [ext[0], ext[1], ext[2], ext[3]]);
    Ok((
        Bounds::new(ox, oy, i32::from(g.width), i32::from(g.height)),
        frame,
    ))
}

/// Asks the window manager to make `w` the active window (EWMH `_NET_ACTIVE_WINDOW` client
/// message, source indication 2 = a pager or tool acting for the user, which window managers
/// honour without focus-stealing prevention).
pub(crate) fn request_activate(x: &XConn, w: Window) -> Result<(), LinuxError> {
    use x11rb::protocol::xproto::{ClientMessageEvent, EventMask};
    let ev = ClientMessageEvent::new(32, w, x.atoms._NET_ACTIVE_WINDOW, [2u32, 0, 0, 0, 0]);
    x.conn
        .send_event(
            false,
            x.root(),
            EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
            ev,
        )
        .map_err(xerr)?;
    x.conn.flush().map_err(xerr)?;
    Ok(())
}

/// Asks politely for `w` to close, as its title bar's close button would: EWMH
/// `_NET_CLOSE_WINDOW` to the window manager (which sends the client `WM_DELETE_WINDOW`), or
/// `WM_DELETE_WINDOW` straight to the client when no window manager runs. The application
/// decides: it may close, or ask first ("save changes?"). Returns false, sending nothing, for a
/// window that does not take `WM_DELETE_WINDOW` (ICCCM 4.2.8.1): openbox answers
/// `_NET_CLOSE_WINDOW` for such a window with `XKillClient`, which ends the app unasked.
pub(crate) fn request_close(x: &XConn, w: Window) -> Result<bool, LinuxError> {
    use x11rb::protocol::xproto::{ClientMessageEvent, EventMask};
    let a = &x.atoms;
    let protocols = prop(&x.conn, w, a.WM_PROTOCOLS, AtomEnum::ATOM, 32)?;
    let check = prop(
        &x.conn,
        x.root(),
        a._NET_SUPPORTING_WM_CHECK,
        AtomEnum::WINDOW,
        1,
    )?;
    if !u32s(protocols.reply().ok()).contains(&a.WM_DELETE_WINDOW) {
        return Ok(false);
    }
    let has_wm = !u32s(check.reply().ok()).is_empty();
    // Timestamp 0 is CurrentTime; source indication 2: a tool acting for the user.
    if has_wm {
        let ev = ClientMessageEvent::new(32, w, a._NET_CLOSE_WINDOW, [0u32, 2, 0, 0, 0]);
        let mask = EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY;
        x.conn.send_event(false, x.root(), mask, ev).map_err(xerr)?;
    } else {
        let ev = ClientMessageEvent::new(32, w, a.WM_PROTOCOLS, [a.WM_DELETE_WINDOW, 0, 0, 0, 0]);
        x.conn
            .send_event(false, w, EventMask::NO_EVENT, ev)
            .map_err(xerr)?;
    }
    x.conn.flush().map_err(xerr)?;
    Ok(true)
}

/// Whether the X server knows an extension (by name).
pub(crate) fn has_extension(x: &XConn, name: &'static str) -> bool {
    x.conn.extension_information(name).ok().flatten().is_some()
}
