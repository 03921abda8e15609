//! The display server behind the desktop, as the rest of the backend needs it: the managed
//! windows and which is active, activating and closing one, what a point would land on, pixels,
//! and physical input. X11 (EWMH, XTEST and GetImage; `x11/`), wlroots Wayland compositors
//! (the compositor's IPC, virtual input devices and screencopy; `wayland/`) and KDE's KWin
//! (its scripts, screenshot service and fake input; `wayland/kwin/`) each implement [`Desk`].
//! Jobs run on the server's own thread ([`DeskThread::run`]) because their calls block; a job
//! sees `&mut dyn Desk` and never knows which server it drives.
//!
//! What differs is said here once: [`DeskThread::extents_are_window_relative`] (Wayland hides
//! global coordinates from clients, so every toolkit reports its widgets relative to its
//! window, which GTK 4 does on X11 too) and [`DeskThread::delivery`]; a window list says
//! which server made it (`XDesktop::server`), which names the root keys (`x11:`, `sway:`,
//! `kwin:`).

use std::time::{Duration, Instant};

use uidriver_core::action::{Button, KeyChord};
use uidriver_core::{Bounds, Deadline, RawImage};

use crate::error::LinuxError;
use crate::x11::connection::{XConn, X11};
use crate::x11::ewmh::XDesktop;
use crate::x11::window::{Activation, Hit, HitTarget};
use crate::x11::{capture, ewmh, input, window};

/// What a job on the display server's thread can ask of it. Window ids are the server's own
/// (X11 window ids; sway container ids).
pub(crate) trait Desk {
    /// The managed windows, bottom to top, and the active one.
    fn desktop(&mut self) -> Result<XDesktop, LinuxError>;
    /// The whole screen (all outputs) in global coordinates.
    fn screen(&mut self) -> Result<Bounds, LinuxError>;
    /// Asks for `w` to become active, without waiting.
    fn request_activate(&mut self, w: u32) -> Result<(), LinuxError>;
    /// Makes `w` active and waits (at most `timeout`) until it has the keyboard focus.
    fn activate(&mut self, w: u32, timeout: Duration) -> Result<Activation, LinuxError>;
    /// Whether `w` is active and has the keyboard focus.
    fn is_active(&mut self, w: u32) -> Result<bool, LinuxError>;
    /// Asks `w` to close (as its close button would); whether the request was sent.
    fn request_close(&mut self, w: u32) -> Result<bool, LinuxError>;
    /// `w`'s content rectangle on screen and, on X11, GTK's client-side frame extents (left,
    /// right, top, bottom) when set.
    fn client_rect(&mut self, w: u32) -> Result<(Bounds, Option<[u32; 4]>), LinuxError>;
    /// `w`'s content rectangle clipped to the screen (how captures are clipped).
    fn visible_rect(&mut self, w: u32) -> Result<Bounds, LinuxError> {
        let (rect, _) = self.client_rect(w)?;
        let screen = self.screen()?;
        Ok(rect
            .intersect(&screen)
            .unwrap_or(Bounds::new(rect.x, rect.y, 0, 0)))
    }
    /// What lies under a point, for input aimed at `t`.
    fn hit_test(&mut self, px: i32, py: i32, t: &HitTarget) -> Result<Hit, LinuxError>;
    /// The rectangles of popup surfaces the window manager does not list (X11's
    /// override-redirect windows); none where the server does not say.
    fn popup_rects(&mut self) -> Result<Vec<Bounds>, LinuxError> {
        Ok(Vec::new())
    }
    /// Pixels of `bounds`; `w` is the window they belong to, when the server can read a
    /// window's own pixels even where it is covered.
    fn capture(&mut self, w: Option<u32>, bounds: Bounds) -> Result<RawImage, LinuxError>;
    /// Readies the input devices ahead of the first input (a compositor's virtual devices
    /// need a moment before their first event counts); nothing to do where there are none.
    fn prepare_input(&mut self) -> Result<(), LinuxError> {
        Ok(())
    }
    /// Where the pointer is, when the server says.
    fn pointer(&mut self) -> Result<(i32, i32), LinuxError>;
    fn move_to(&mut self, px: i32, py: i32) -> Result<(), LinuxError>;
    fn click(&mut self, px: i32, py: i32, b: Button, count: u8) -> Result<(), LinuxError>;
    fn scroll(&mut self, px: i32, py: i32, dx: i32, dy: i32) -> Result<(), LinuxError>;
    fn drag(&mut self, path: &[(i32, i32)], b: Button) -> Result<(), LinuxError>;
    fn press_chords(&mut self, chords: &[KeyChord]) -> Result<(), LinuxError>;
    fn key_event(&mut self, chord: &KeyChord, down: bool) -> Result<(), LinuxError>;
    /// Types `text`, stopping at `stop` (between characters).
    fn type_text_until(&mut self, text: &str, stop: Option<Instant>) -> Result<(), LinuxError>;
}

/// The points a drag along `path` moves through after pressing at its first: every segment
/// in steps of about 8 px (at most 50), so toolkits see a drag, not a jump (GTK's threshold
/// is 8 px).
pub(crate) fn drag_motion(path: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    let Some(&first) = path.first() else {
        return out;
    };
    let mut last = first;
    for &(tx, ty) in &path[1..] {
        let steps = ((tx - last.0).abs().max((ty - last.1).abs()) / 8).clamp(1, 50);
        for s in 1..=steps {
            out.push((
                last.0 + (tx - last.0) * s / steps,
                last.1 + (ty - last.1) * s / steps,
            ));
        }
        last = (tx, ty);
    }
    out
}

/// The popup origins of exactly `width`×`height` (a GTK 4 popover's surface).
pub(crate) fn popups_of_size(
    d: &mut dyn Desk,
    width: i32,
    height: i32,
) -> Result<Vec<(i32, i32)>, LinuxError> {
    Ok(d.popup_rects()?
        .into_iter()
        .filter(|b| b.width == width && b.height == height)
        .map(|b| (b.x, b.y))
        .collect())
}

/// The thread that owns a connection to the display server.
#[derive(Clone)]
pub(crate) enum DeskThread {
    /// An X server and its EWMH window manager.
    X11(X11),
    /// A wlroots compositor with sway's IPC.
    Wayland(crate::wayland::desk::WaylandDesk),
    /// KDE's KWin on Wayland.
    Kwin(crate::wayland::kwin::KwinDesk),
}

impl DeskThread {
    /// Runs `f` on the server's thread, waiting at most until `deadline`.
    pub(crate) async fn run<R, F>(&self, deadline: Deadline, f: F) -> Result<R, LinuxError>
    where
        R: Send + 'static,
        F: FnOnce(&mut dyn Desk) -> Result<R, LinuxError> + Send + 'static,
    {
        match self {
            DeskThread::X11(x) => x.run(deadline, move |c| f(&mut XDesk(c))).await,
            DeskThread::Wayland(w) => w.run(deadline, f).await,
            DeskThread::Kwin(k) => k.run(deadline, f).await,
        }
    }

    /// Whether toolkits report every widget's rectangle relative to its window (all of them
    /// on Wayland), so a rectangle is placed on screen by adding the window's origin.
    pub(crate) fn extents_are_window_relative(&self) -> bool {
        matches!(self, DeskThread::Wayland(_) | DeskThread::Kwin(_))
    }

    /// How input sent through this server is reported.
    pub(crate) fn delivery(&self) -> uidriver_core::DeliveryMethod {
        match self {
            DeskThread::X11(_) => uidriver_core::DeliveryMethod::Xtest,
            DeskThread::Wayland(_) | DeskThread::Kwin(_) => {
                uidriver_core::DeliveryMethod::VirtualInput
            }
        }
    }

    /// Whether the server is gone (asked after a failure, to name the cause).
    pub(crate) async fn is_broken(&self, deadline: Deadline) -> Option<LinuxError> {
        match self {
            DeskThread::X11(x) => {
                let ping = |c: &XConn| match crate::x11::connection::is_broken(c) {
                    true => Err(LinuxError::X11("no answer".into())),
                    false => Ok(()),
                };
                match x.run(deadline, ping).await {
                    Err(e @ LinuxError::NoDisplay(_)) => Some(e),
                    _ => None,
                }
            }
            DeskThread::Wayland(w) => match w.run(deadline, |d| d.screen()).await {
                Err(LinuxError::NoCompositor(e)) => Some(LinuxError::NoDisplay(e)),
                _ => None,
            },
            DeskThread::Kwin(k) => match k.run(deadline, |d| d.screen()).await {
                Err(LinuxError::NoCompositor(e)) => Some(LinuxError::NoDisplay(e)),
                _ => None,
            },
        }
    }
}

/// [`Desk`] over an X11 connection.
struct XDesk<'a>(&'a XConn);

impl Desk for XDesk<'_> {
    fn desktop(&mut self) -> Result<XDesktop, LinuxError> {
        ewmh::desktop(self.0)
    }

    fn screen(&mut self) -> Result<Bounds, LinuxError> {
        use x11rb::connection::Connection as _;
        let s = &self.0.conn.setup().roots[self.0.screen];
        Ok(Bounds::new(
            0,
            0,
            i32::from(s.width_in_pixels),
            i32::from(s.height_in_pixels),
        ))
    }

    fn request_activate(&mut self, w: u32) -> Result<(), LinuxError> {
        ewmh::request_activate(self.0, w)
    }

    fn activate(&mut self, w: u32, timeout: Duration) -> Result<Activation, LinuxError> {
        window::activate(self.0, w, timeout)
    }

    fn is_active(&mut self, w: u32) -> Result<bool, LinuxError> {
        window::is_active(self.0, w)
    }

    fn request_close(&mut self, w: u32) -> Result<bool, LinuxError> {
        ewmh::request_close(self.0, w)
    }

    fn client_rect(&mut self, w: u32) -> Result<(Bounds, Option<[u32; 4]>), LinuxError> {
        ewmh::client_rect(self.0, w)
    }

    fn hit_test(&mut self, px: i32, py: i32, t: &HitTarget) -> Result<Hit, LinuxError> {
        window::hit_test(self.0, px, py, t)
    }

    fn popup_rects(&mut self) -> Result<Vec<Bounds>, LinuxError> {
        window::popup_rects(self.0)
    }

    fn capture(&mut self, w: Option<u32>, bounds: Bounds) -> Result<RawImage, LinuxError> {
        capture::capture(self.0, w, bounds)
    }

    fn pointer(&mut self) -> Result<(i32, i32), LinuxError> {
        input::pointer(&self.0.conn, self.0.root())
    }

    fn move_to(&mut self, px: i32, py: i32) -> Result<(), LinuxError> {
        input::move_to(&self.0.conn, self.0.root(), px, py)
    }

    fn click(&mut self, px: i32, py: i32, b: Button, count: u8) -> Result<(), LinuxError> {
        input::click(&self.0.conn, self.0.root(), px, py, b, count)
    }

    fn scroll(&mut self, px: i32, py: i32, dx: i32, dy: i32) -> Result<(), LinuxError> {
        input::scroll(&self.0.conn, self.0.root(), px, py, dx, dy)
    }

    fn drag(&mut self, path: &[(i32, i32)], b: Button) -> Result<(), LinuxError> {
        input::drag(&self.0.conn, self.0.root(), path, b)
    }

    fn press_chords(&mut self, chords: &[KeyChord]) -> Result<(), LinuxError> {
        input::press_chords(&self.0.conn, self.0.root(), chords)
    }

    fn key_event(&mut self, chord: &KeyChord, down: bool) -> Result<(), LinuxError> {
        input::key_event(&self.0.conn, self.0.root(), chord, down)
    }

    fn type_text_until(&mut self, text: &str, stop: Option<Instant>) -> Result<(), LinuxError> {
        input::type_text_until(&self.0.conn, self.0.root(), text, stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_moves_in_small_steps_and_ends_on_each_point() {
        let m = drag_motion(&[(0, 0), (40, 0), (40, 4)]);
        assert_eq!(m.len(), 5 + 1);
        assert_eq!(m[4], (40, 0));
        assert_eq!(m.last(), Some(&(40, 4)));
        assert!(drag_motion(&[(3, 3)]).is_empty());
        assert!(drag_motion(&[]).is_empty());
    }
}
