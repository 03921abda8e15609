//! Where a window's own (0, 0) is on screen, for toolkits that measure their widgets from
//! their window: GTK 4 everywhere, every toolkit on Wayland (which hides global coordinates
//! from clients). A rectangle such a toolkit reports is placed by adding the origin.
//!
//! The display server places the window's *content* (X11's client window, a Wayland
//! surface's window geometry); the toolkit measures from its *surface*. The two differ by a
//! client-side frame, one way or the other:
//! - GTK 4 on X11 draws a resize border inside the X window around its window widget: the
//!   X11 rectangle is larger, and `_GTK_FRAME_EXTENTS` (or the size difference split evenly)
//!   says by how much.
//! - GTK 3 and 4 with client-side decorations on Wayland draw shadows outside the window
//!   geometry the compositor places: the surface is larger, and the first widget inside it
//!   (the header bar, the content box) starts where the content does.

use std::time::Duration;

use uidriver_core::{Bounds, Deadline};

use crate::atspi::{accessible, component};
use crate::desk::DeskThread;
use crate::link::Attachment;
use crate::roots::{Target, Toolkit};
use crate::LinuxBackend;

/// How a toolkit's rectangles become screen rectangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// They are screen rectangles already.
    Screen,
    /// They are relative to the window, whose (0, 0) is here on screen (`None`: unknown, so
    /// they cannot be placed).
    Window(Option<(i32, i32)>),
}

impl Placement {
    /// `b` as reported, on screen (`None` when it cannot be placed).
    pub(crate) fn place(self, b: Bounds) -> Option<Bounds> {
        match self {
            Placement::Screen => Some(b),
            Placement::Window(Some((ox, oy))) => {
                Some(Bounds::new(b.x + ox, b.y + oy, b.width, b.height))
            }
            Placement::Window(None) => None,
        }
    }
}

impl LinuxBackend {
    /// Whether the widgets of `target` report rectangles relative to their window: GTK 4's
    /// everywhere, every toolkit's on Wayland (`desk.rs`) but an XWayland client's (an X11
    /// app reports screen coordinates, which on a Wayland desktop are the compositor's).
    pub(crate) fn window_relative(&self, target: &Target) -> bool {
        let toolkit = target.app.as_ref().map_or(Toolkit::Other, |a| a.toolkit);
        toolkit == Toolkit::Gtk4
            || !target.xwayland
                && self
                    .inner
                    .desk
                    .as_ref()
                    .is_some_and(DeskThread::extents_are_window_relative)
    }

    /// Whether a menu of `target` must be clicked open rather than opened by its action: GTK 2
    /// and 3 as Wayland clients, whose popups need an input event's serial (`act/menu.rs`).
    pub(crate) fn menus_open_by_click(&self, target: &Target) -> bool {
        let toolkit = target.app.as_ref().map_or(Toolkit::Other, |a| a.toolkit);
        matches!(toolkit, Toolkit::Gtk2 | Toolkit::Gtk3)
            && !target.xwayland
            && self
                .inner
                .desk
                .as_ref()
                .is_some_and(DeskThread::extents_are_window_relative)
    }

    /// Where a root's window-relative (0, 0) is on screen, for a root whose extents are
    /// window-relative ([`Self::window_relative`]); `None` for one whose are not, or when the
    /// window cannot be placed.
    pub(crate) async fn window_origin(
        &self,
        att: &Attachment,
        target: &Target,
        deadline: Deadline,
    ) -> Option<(i32, i32)> {
        if !self.window_relative(target) {
            return None;
        }
        let (x, w) = (
            self.inner.desk.as_ref()?,
            u32::try_from(target.info.window_id?).ok()?,
        );
        let (rect, frame) = x
            .run(deadline.cap(Duration::from_millis(500)), move |c| {
                c.client_rect(w)
            })
            .await
            .ok()?;
        if let Some([left, _, top, _]) = frame {
            return Some((rect.x + left as i32, rect.y + top as i32));
        }
        let surface = target.obj.as_ref()?;
        let c = att.bus.caller(deadline, self.inner.config.ping_timeout, 1);
        let (_, _, sw, sh) = component::extents(&c, surface, component::COORD_SCREEN)
            .await
            .ok()?;
        if sw <= rect.width && sh <= rect.height {
            return Some(inset_origin(rect, (sw, sh)));
        }
        // The surface is larger: its first widgets start where the content does.
        let kids = accessible::children(&c, surface).await.unwrap_or_default();
        let mut starts = Vec::new();
        for k in kids.iter().take(8) {
            if let Ok((x, y, w, h)) = component::extents(&c, k, component::COORD_SCREEN).await {
                starts.push(Bounds::new(x, y, w, h));
            }
        }
        let (mx, my) = shadow_margin(rect, (sw, sh), &starts);
        Some((rect.x - mx, rect.y - my))
    }
}

/// The origin of a surface of `surface` size centred in the larger `rect` (GTK 4's window
/// widget inside its X window: a resize border of equal width on each side).
fn inset_origin(rect: Bounds, surface: (i32, i32)) -> (i32, i32) {
    let dx = ((rect.width - surface.0) / 2).max(0);
    let dy = ((rect.height - surface.1) / 2).max(0);
    (rect.x + dx, rect.y + dy)
}

/// Where the content of size `rect` starts inside a larger surface of `surface` size: the
/// least position of the surface's first widgets (`children`, window-relative) when it fits
/// in the extra size, else the extra size split evenly. Shadows are rarely even (GTK 3's
/// dialog: 26 px left and right, 23 top, 29 bottom), so the widgets are asked first.
fn shadow_margin(rect: Bounds, surface: (i32, i32), children: &[Bounds]) -> (i32, i32) {
    let (extra_w, extra_h) = (
        (surface.0 - rect.width).max(0),
        (surface.1 - rect.height).max(0),
    );
    let placed = children
        .iter()
        .filter(|b| b.width > 0 && b.height > 0 && b.x >= 0 && b.y >= 0);
    let least = placed.fold(None, |m: Option<(i32, i32)>, b| {
        Some(m.map_or((b.x, b.y), |(x, y)| (x.min(b.x), y.min(b.y))))
    });
    match least {
        Some((x, y)) if x <= extra_w && y <= extra_h => (x, y),
        _ => (extra_w / 2, extra_h / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_larger_window_centres_the_surface_and_a_larger_surface_has_a_shadow_margin() {
        // GTK 4 gnome-calculator on Xvfb: X11 365x496, window widget 355x486.
        let x11 = Bounds::new(100, 50, 365, 496);
        assert_eq!(inset_origin(x11, (355, 486)), (105, 55));
        // GTK 3's About dialog on sway: content 518x372, surface 570x424, header bar at
        // (26, 23) and the content box at (33, 77).
        let content = Bounds::new(381, 214, 518, 372);
        let kids = [Bounds::new(26, 23, 518, 47), Bounds::new(33, 77, 504, 311)];
        assert_eq!(shadow_margin(content, (570, 424), &kids), (26, 23));
        // No usable widget: the extra size split evenly.
        let offscreen = [Bounds::new(i32::MIN, i32::MIN, 1, 1)];
        assert_eq!(shadow_margin(content, (570, 424), &offscreen), (26, 26));
        // A widget beyond the extra size is not a margin.
        assert_eq!(
            shadow_margin(content, (570, 424), &[Bounds::new(200, 300, 10, 10)]),
            (26, 26)
        );
    }
}
