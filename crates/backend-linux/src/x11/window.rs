//! What physical input needs to know about windows before it sends anything: making a window
//! the active one (and waiting until the window manager *and* the X server agree), and which
//! window a point would land on (the hit test).
//!
//! Both run on an X11 thread and block; they are `pub(crate)` so whole-desktop input can reuse
//! them. Choosing *whether* to activate (the headless policy) and what to do with a refusal is
//! the caller's job (`act/physical.rs`); sending the input is `input.rs`'s.

use std::thread::sleep;
use std::time::{Duration, Instant};

use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, Window};

use super::connection::{xerr, XConn};
use super::ewmh::{self, XDesktop};
use crate::error::LinuxError;

/// How often activation is polled.
const POLL: Duration = Duration::from_millis(10);

/// How an activation ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Activation {
    /// The window was already active and had the input focus: nothing was sent.
    Already,
    /// The window manager activated it after our request, after this long.
    Activated(Duration),
    /// It did not become active in time; `active` is what is active instead.
    Refused {
        /// `_NET_ACTIVE_WINDOW` at the end.
        active: Option<u32>,
    },
}

/// Whether `w` is the active window *and* holds the X input focus (itself or a descendant).
/// Both matter: openbox sets `_NET_ACTIVE_WINDOW` before the client has taken the focus
/// (`WM_TAKE_FOCUS` is answered asynchronously), and key events go where the focus is.
pub(crate) fn is_active(x: &XConn, w: Window) -> Result<bool, LinuxError> {
    let active = active_window(x)?;
    if active != Some(w) {
        return Ok(false);
    }
    let focus = x
        .conn
        .get_input_focus()
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?
        .focus;
    is_self_or_descendant(x, focus, w)
}

/// `_NET_ACTIVE_WINDOW`.
pub(crate) fn active_window(x: &XConn) -> Result<Option<u32>, LinuxError> {
    let r = x
        .conn
        .get_property(
            false,
            x.root(),
            x.atoms._NET_ACTIVE_WINDOW,
            x11rb::protocol::xproto::AtomEnum::WINDOW,
            0,
            1,
        )
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?;
    Ok(r.value32().and_then(|mut v| v.next()).filter(|w| *w != 0))
}

/// Makes `w` the active window and waits (at most `timeout`) until it is active and focused.
/// Sends nothing when it already is.
pub(crate) fn activate(x: &XConn, w: Window, timeout: Duration) -> Result<Activation, LinuxError> {
    if is_active(x, w)? {
        return Ok(Activation::Already);
    }
    let t0 = Instant::now();
    ewmh::request_activate(x, w)?;
    let mut asked_again = false;
    loop {
        sleep(POLL);
        if is_active(x, w)? {
            return Ok(Activation::Activated(t0.elapsed()));
        }
        // Openbox can drop a request that arrives while it is still handling another
        // client's activation (two lanes typing at once): ask once more halfway.
        if !asked_again && t0.elapsed() >= timeout / 2 {
            asked_again = true;
            ewmh::request_activate(x, w)?;
        }
        let active = active_window(x)?;
        // A window manager keeps the focus on a modal dialog in front of its parent: once it
        // answered that way, waiting longer changes nothing.
        if t0.elapsed() >= MODAL_GRACE && active.is_some_and(|a| modal_child_of(x, a, w)) {
            return Ok(Activation::Refused { active });
        }
        if t0.elapsed() >= timeout {
            return Ok(Activation::Refused { active });
        }
    }
}

/// How long activation waits before deciding that a modal child kept the focus.
const MODAL_GRACE: Duration = Duration::from_millis(100);

/// Whether `child` is a modal (or dialog) window transient for `parent`.
fn modal_child_of(x: &XConn, child: Window, parent: Window) -> bool {
    ewmh::desktop(x).is_ok_and(|d| {
        d.windows.iter().any(|c| {
            c.id == child && (c.modal || c.dialog) && transient_chain(&d, child).contains(&parent)
        })
    })
}

fn parent(x: &XConn, w: Window) -> Result<Option<Window>, LinuxError> {
    let r = x.conn.query_tree(w).map_err(xerr)?.reply().map_err(xerr)?;
    Ok((r.parent != 0 && w != r.root).then_some(r.parent))
}

/// Whether `w` is `ancestor` or lies inside it.
fn is_self_or_descendant(x: &XConn, w: Window, ancestor: Window) -> Result<bool, LinuxError> {
    // 0 is None, 1 is PointerRoot: no window holds the focus.
    let mut cur = w;
    for _ in 0..16 {
        if cur == ancestor {
            return Ok(true);
        }
        if cur <= 1 || cur == x.root() {
            return Ok(false);
        }
        match parent(x, cur)? {
            Some(p) => cur = p,
            None => return Ok(false),
        }
    }
    Ok(false)
}

/// The child of the root that `w` lives in (its window manager frame, or itself).
fn toplevel_of(x: &XConn, w: Window) -> Result<Window, LinuxError> {
    let mut cur = w;
    for _ in 0..16 {
        match parent(x, cur)? {
            Some(p) if p != x.root() => cur = p,
            _ => return Ok(cur),
        }
    }
    Ok(cur)
}

/// Whose the point is meant to reach.
#[derive(Clone, Debug, Default)]
pub(crate) struct HitTarget {
    /// The target's client window (None for surfaces without one, e.g. GTK menus).
    pub window: Option<Window>,
    /// The target's process.
    pub pid: Option<u32>,
}

/// What lies under a point.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Hit {
    /// The target's client area.
    Target,
    /// A window of the target's own X client without a frame (a popup menu, a combo list).
    Popup(Window),
    /// A managed window, not a dialog, that is transient for the target (a tool or menu
    /// window the window manager frames).
    Transient(Window),
    /// The target's window manager frame (title bar, border), not its content.
    Frame,
    /// Another window covers the point.
    Covered {
        /// The window under the point (client, or the top-level when it has none).
        window: Window,
        /// Its title, when managed.
        title: String,
    },
    /// No window at all (the bare root).
    Nothing,
}

impl Hit {
    /// Whether input at the point reaches the target (or a surface of its own).
    pub(crate) fn reaches_target(&self) -> bool {
        matches!(self, Hit::Target | Hit::Popup(_) | Hit::Transient(_))
    }
}

/// Which window input at `(px, py)` would reach, judged against `t`: the X server's own answer
/// for the top-most viewable child of the root at the point (`TranslateCoordinates` picks it as
/// input would), mapped to its managed client through the window manager's client list.
pub(crate) fn hit_test(x: &XConn, px: i32, py: i32, t: &HitTarget) -> Result<Hit, LinuxError> {
    let root = x.root();
    let (cx, cy) = (clamp16(px), clamp16(py));
    let top = x
        .conn
        .translate_coordinates(root, root, cx, cy)
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?
        .child;
    if top == 0 {
        return Ok(Hit::Nothing);
    }
    let desk = ewmh::desktop(x)?;
    let client = client_in(x, top, &desk)?;
    let base_mask = !x.conn.setup().resource_id_mask;
    match client {
        Some(c) => {
            let win = desk.windows.iter().find(|w| w.id == c);
            if Some(c) == t.window {
                let inside = win.is_some_and(|w| w.bounds.contains(px, py));
                return Ok(if inside { Hit::Target } else { Hit::Frame });
            }
            if let Some(tw) = t.window {
                // A dialog in front of the target would take the click itself: only a
                // transient that is part of the target's own surface (a tool window, a menu
                // the window manager frames) counts as the target.
                let dialog = win.is_some_and(|w| w.dialog || w.modal);
                if !dialog && transient_chain(&desk, c).contains(&tw) {
                    return Ok(Hit::Transient(c));
                }
            }
            Ok(Hit::Covered {
                window: c,
                title: win.map(|w| w.title.clone()).unwrap_or_default(),
            })
        }
        None => {
            // No managed client: an override-redirect window (menu, combo popup, tooltip).
            // Windows one X connection creates share the high bits of their ids, so a popup
            // of the target's own client is recognized without asking the window manager.
            let same_client = |w: Window| w & base_mask == top & base_mask;
            let ours = match t.window {
                Some(tw) => same_client(tw),
                None => desk
                    .windows
                    .iter()
                    .any(|w| t.pid.is_some() && w.pid == t.pid && same_client(w.id)),
            };
            Ok(if ours {
                Hit::Popup(top)
            } else {
                Hit::Covered {
                    window: top,
                    title: String::new(),
                }
            })
        }
    }
}

/// The managed client window inside top-level `top` (itself when the window manager does not
/// reparent), searched breadth-first a few levels down.
fn client_in(x: &XConn, top: Window, desk: &XDesktop) -> Result<Option<Window>, LinuxError> {
    let is_client = |w: Window| desk.windows.iter().any(|c| c.id == w);
    if is_client(top) {
        return Ok(Some(top));
    }
    let mut level = vec![top];
    for _ in 0..3 {
        let mut next = Vec::new();
        for w in level {
            let Ok(cookie) = x.conn.query_tree(w) else {
                continue;
            };
            // A window destroyed meanwhile answers BadWindow: skip it.
            let Ok(r) = cookie.reply() else { continue };
            for c in r.children {
                if is_client(c) {
                    return Ok(Some(c));
                }
                next.push(c);
            }
        }
        if next.is_empty() || next.len() > 512 {
            break;
        }
        level = next;
    }
    // Some window managers frame clients in a way the search misses: map each client up.
    for c in &desk.windows {
        if toplevel_of(x, c.id)? == top {
            return Ok(Some(c.id));
        }
    }
    Ok(None)
}

/// `w` and the windows it is transient for, transitively (cycles cut).
fn transient_chain(desk: &XDesktop, w: Window) -> Vec<Window> {
    let mut out = Vec::new();
    let mut cur = Some(w);
    while let Some(c) = cur {
        if out.contains(&c) || out.len() > 16 {
            break;
        }
        out.push(c);
        cur = desk
            .windows
            .iter()
            .find(|d| d.id == c)
            .and_then(|d| d.transient_for);
    }
    out.remove(0);
    out
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

/// The rectangles of the mapped override-redirect windows: popup surfaces (menus, popovers,
/// tooltips), which the window manager never lists.
pub(crate) fn popup_rects(x: &XConn) -> Result<Vec<uidriver_core::Bounds>, LinuxError> {
    let c = &x.conn;
    let tree = c
        .query_tree(x.root())
        .map_err(xerr)?
        .reply()
        .map_err(xerr)?;
    let mut out = Vec::new();
    for w in tree.children {
        let Ok(Ok(a)) = c.get_window_attributes(w).map(|r| r.reply()) else {
            continue;
        };
        if !a.override_redirect || a.map_state != x11rb::protocol::xproto::MapState::VIEWABLE {
            continue;
        }
        let Ok(Ok(g)) = c.get_geometry(w).map(|r| r.reply()) else {
            continue;
        };
        out.push(uidriver_core::Bounds::new(
            i32::from(g.x),
            i32::from(g.y),
            i32::from(g.width),
            i32::from(g.height),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::x11::ewmh::XWindow;
    use uidriver_core::Bounds;

    fn win(id: u32, transient_for: Option<u32>) -> XWindow {
        XWindow {
            id,
            pid: Some(1),
            title: String::new(),
            class: String::new(),
            stacking: 0,
            hidden: false,
            modal: false,
            dialog: false,
            transient_for,
            bounds: Bounds::new(0, 0, 10, 10),
            xwayland: false,
        }
    }

    #[test]
    fn transient_chains_are_followed_and_cycles_cut() {
        let desk = XDesktop {
            windows: vec![
                win(1, None),
                win(2, Some(1)),
                win(3, Some(2)),
                win(4, Some(5)),
                win(5, Some(4)),
            ],
            active: None,
            ..XDesktop::default()
        };
        assert_eq!(transient_chain(&desk, 3), vec![2, 1]);
        assert_eq!(transient_chain(&desk, 1), Vec::<u32>::new());
        assert_eq!(transient_chain(&desk, 4), vec![5]);
        assert!(Hit::Popup(9).reaches_target() && !Hit::Frame.reaches_target());
    }
}
