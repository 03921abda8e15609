//! [`Desk`] on KDE's KWin (Wayland): windows, focus, activation and closing through KWin
//! scripts and pixels through `org.kde.KWin.ScreenShot2`, both on KWin's session bus
//! (`bus.rs`); input through `org_kde_kwin_fake_input` on the Wayland connection (`input.rs`).
//! KWin offers none of the wlroots protocols sway's desk uses, and sway's IPC has no KWin
//! counterpart, so only the Wayland thread (`connection.rs`) and the outputs it reads are
//! shared with `wayland/desk.rs`.
//!
//! Window ids are the first 32 bits of KWin's window uuids (`bus::window_id`).

pub(crate) mod bus;
pub(crate) mod input;

use std::sync::{Arc, Mutex};
use std::thread::sleep;
use std::time::{Duration, Instant};

use uidriver_core::action::{Button, KeyChord};
use uidriver_core::{Bounds, Deadline, RawImage};

use self::bus::{Command, KwinBus, Report};
use super::connection::{Wayland, WlConn};
use crate::desk::Desk;
use crate::error::LinuxError;
use crate::x11::ewmh::XDesktop;
use crate::x11::window::{Activation, Hit, HitTarget};

/// How often an activation is polled.
const POLL: Duration = Duration::from_millis(20);

/// A thread on KWin: its Wayland socket and its session bus.
#[derive(Clone)]
pub(crate) struct KwinDesk {
    wl: Wayland,
    bus: Arc<Mutex<KwinBus>>,
    /// Where this thread's pointer was last sent (a Wayland client cannot ask).
    pointer: Arc<Mutex<Option<(i32, i32)>>>,
}

impl KwinDesk {
    /// Starts the thread for `display` and the session bus at `session` (`None`: the
    /// default one). Connecting happens on first use.
    pub(crate) fn start(display: &str, session: Option<String>) -> Result<KwinDesk, LinuxError> {
        Ok(KwinDesk {
            wl: Wayland::start(display, std::path::Path::new("/"))?,
            bus: Arc::new(Mutex::new(KwinBus::new(session))),
            pointer: Arc::new(Mutex::new(None)),
        })
    }

    /// Runs `f` on the Wayland thread, waiting at most until `deadline`.
    pub(crate) async fn run<R, F>(&self, deadline: Deadline, f: F) -> Result<R, LinuxError>
    where
        R: Send + 'static,
        F: FnOnce(&mut dyn Desk) -> Result<R, LinuxError> + Send + 'static,
    {
        let (bus, pointer) = (self.bus.clone(), self.pointer.clone());
        self.wl
            .run(deadline, move |wl| {
                let mut bus = bus.lock().unwrap_or_else(|p| p.into_inner());
                let mut at = pointer.lock().unwrap_or_else(|p| p.into_inner());
                f(&mut KwinJob {
                    wl,
                    bus: &mut bus,
                    pointer: &mut at,
                })
            })
            .await
    }
}

/// One job's view of KWin.
struct KwinJob<'a> {
    wl: &'a mut WlConn,
    bus: &'a mut KwinBus,
    pointer: &'a mut Option<(i32, i32)>,
}

impl KwinJob<'_> {
    fn report(&mut self) -> Result<Report, LinuxError> {
        self.bus.script(Command::List)
    }
}

impl Desk for KwinJob<'_> {
    fn desktop(&mut self) -> Result<XDesktop, LinuxError> {
        Ok(self.report()?.desktop())
    }

    fn screen(&mut self) -> Result<Bounds, LinuxError> {
        self.wl
            .layout()
            .ok_or_else(|| LinuxError::Wayland("the compositor reports no output".into()))
    }

    fn request_activate(&mut self, w: u32) -> Result<(), LinuxError> {
        if self.bus.script(Command::Activate(w))?.done {
            Ok(())
        } else {
            Err(LinuxError::RootNotFound(format!(
                "KWin has no window {w:08x} to activate"
            )))
        }
    }

    fn activate(&mut self, w: u32, timeout: Duration) -> Result<Activation, LinuxError> {
        if self.report()?.active == Some(w) {
            return Ok(Activation::Already);
        }
        let t0 = Instant::now();
        self.request_activate(w)?;
        loop {
            let active = self.report()?.active;
            if active == Some(w) {
                return Ok(Activation::Activated(t0.elapsed()));
            }
            if t0.elapsed() >= timeout {
                return Ok(Activation::Refused { active });
            }
            sleep(POLL);
        }
    }

    fn is_active(&mut self, w: u32) -> Result<bool, LinuxError> {
        Ok(self.report()?.active == Some(w))
    }

    fn request_close(&mut self, w: u32) -> Result<bool, LinuxError> {
        Ok(self.bus.script(Command::Close(w))?.done)
    }

    fn client_rect(&mut self, w: u32) -> Result<(Bounds, Option<[u32; 4]>), LinuxError> {
        self.report()?
            .windows
            .iter()
            .find(|x| x.window.id == w)
            .map(|x| (x.window.bounds, None))
            .ok_or_else(|| LinuxError::RootNotFound(format!("KWin lists no window {w:08x}")))
    }

    fn hit_test(&mut self, px: i32, py: i32, t: &HitTarget) -> Result<Hit, LinuxError> {
        Ok(hit_at(&self.report()?, px, py, t))
    }

    fn popup_rects(&mut self) -> Result<Vec<Bounds>, LinuxError> {
        Ok(self.report()?.popups.into_iter().map(|(_, b)| b).collect())
    }

    fn capture(&mut self, _w: Option<u32>, bounds: Bounds) -> Result<RawImage, LinuxError> {
        let screen = self.screen()?;
        let rect = bounds
            .intersect(&screen)
            .ok_or_else(|| LinuxError::InvalidArgs(format!("rectangle {bounds} is off screen")))?;
        self.bus.capture(rect)
    }

    fn pointer(&mut self) -> Result<(i32, i32), LinuxError> {
        (*self.pointer).ok_or_else(|| {
            LinuxError::Wayland(
                "the pointer has not moved yet, and a Wayland client cannot ask where it is".into(),
            )
        })
    }

    fn move_to(&mut self, px: i32, py: i32) -> Result<(), LinuxError> {
        input::move_to(self.wl, px, py)?;
        *self.pointer = Some((px, py));
        Ok(())
    }

    fn click(&mut self, px: i32, py: i32, b: Button, count: u8) -> Result<(), LinuxError> {
        input::click(self.wl, px, py, b, count)?;
        *self.pointer = Some((px, py));
        Ok(())
    }

    fn scroll(&mut self, px: i32, py: i32, dx: i32, dy: i32) -> Result<(), LinuxError> {
        input::scroll(self.wl, px, py, dx, dy)?;
        *self.pointer = Some((px, py));
        Ok(())
    }

    fn drag(&mut self, path: &[(i32, i32)], b: Button) -> Result<(), LinuxError> {
        input::drag(self.wl, path, b)?;
        *self.pointer = path.last().copied();
        Ok(())
    }

    fn press_chords(&mut self, chords: &[KeyChord]) -> Result<(), LinuxError> {
        input::press_chords(self.wl, chords)
    }

    fn key_event(&mut self, chord: &KeyChord, down: bool) -> Result<(), LinuxError> {
        input::key_event(self.wl, chord, down)
    }

    fn type_text_until(&mut self, text: &str, stop: Option<Instant>) -> Result<(), LinuxError> {
        input::type_text_until(self.wl, text, stop)
    }
}

/// What input at `(px, py)` reaches: a popup of the target's process (menus and lists lie
/// above every window), else the top-most shown window whose frame holds the point, its
/// content or its decoration. A point in no window reaches nothing.
pub(crate) fn hit_at(r: &Report, px: i32, py: i32, t: &HitTarget) -> Hit {
    let inside = |b: &Bounds| px >= b.x && py >= b.y && px < b.x + b.width && py < b.y + b.height;
    if let (Some(w), Some(pid)) = (t.window, t.pid) {
        if r.popups.iter().any(|(p, b)| *p == Some(pid) && inside(b)) {
            return Hit::Popup(w);
        }
    }
    let top = r
        .windows
        .iter()
        .rev()
        .find(|v| !v.window.hidden && (inside(&v.frame) || inside(&v.window.bounds)));
    match top {
        Some(v) if Some(v.window.id) == t.window => {
            if inside(&v.window.bounds) {
                Hit::Target
            } else {
                Hit::Frame
            }
        }
        Some(v) => Hit::Covered {
            window: v.window.id,
            title: v.window.title.clone(),
        },
        None => Hit::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        bus::parse_report(
            &serde_json::json!({"active": "{00000005-0000-4000-8000-000000000000}",
          "windows": [
            {"id": "{00000005-0000-4000-8000-000000000000}", "pid": 10, "title": "A",
             "frame": [0, 0, 640, 480], "buffer": [0, 30, 640, 450], "stacking": 1},
            {"id": "{00000007-0000-4000-8000-000000000000}", "pid": 11, "title": "Dialog",
             "frame": [100, 100, 200, 100], "buffer": [100, 100, 200, 100], "stacking": 2}],
          "popups": [{"pid": 10, "frame": [600, 40, 150, 200]}]}),
        )
    }

    #[test]
    fn points_land_on_a_popup_the_top_window_its_frame_or_nothing() {
        let r = report();
        let t = HitTarget {
            window: Some(5),
            pid: Some(10),
        };
        assert_eq!(hit_at(&r, 50, 50, &t), Hit::Target);
        assert_eq!(hit_at(&r, 50, 10, &t), Hit::Frame, "the title bar");
        assert!(matches!(
            hit_at(&r, 150, 150, &t),
            Hit::Covered { window: 7, .. }
        ));
        assert_eq!(hit_at(&r, 700, 100, &t), Hit::Popup(5), "its menu");
        assert_eq!(hit_at(&r, 1000, 700, &t), Hit::Nothing);
        let other = HitTarget {
            window: Some(7),
            pid: Some(11),
        };
        assert!(matches!(hit_at(&r, 700, 100, &other), Hit::Nothing));
    }
}
