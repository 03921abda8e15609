//! [`Desk`] on a wlroots compositor with sway's IPC: windows, focus, closing and hit tests from
//! sway's tree (`sway.rs`); pixels and input through the Wayland connection (`capture.rs`,
//! `input.rs`). Jobs run on the Wayland thread; the IPC connection is opened there on first use.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::Value;
use uidriver_core::action::{Button, KeyChord};
use uidriver_core::{Bounds, Deadline, RawImage};

use super::connection::{Wayland, WlConn};
use super::sway::{self, SwayIpc};
use super::{capture, input};
use crate::desk::Desk;
use crate::error::LinuxError;
use crate::x11::ewmh::XDesktop;
use crate::x11::window::{Activation, Hit, HitTarget};

/// How often an activation is polled.
const POLL: Duration = Duration::from_millis(10);

/// A thread on a Wayland compositor, with the sway IPC socket that describes its windows.
#[derive(Clone)]
pub(crate) struct WaylandDesk {
    wl: Wayland,
    sway: Arc<Mutex<SwayIpc>>,
    /// Where this thread's virtual pointer was last sent: a client cannot ask the compositor
    /// where the pointer is, and only this pointer moves it in a sandbox.
    pointer: Arc<Mutex<Option<(i32, i32)>>>,
}

impl WaylandDesk {
    /// Starts the thread for `display` (in `runtime_dir`) and the IPC at `swaysock`.
    pub(crate) fn start(
        display: &str,
        runtime_dir: &Path,
        swaysock: PathBuf,
    ) -> Result<WaylandDesk, LinuxError> {
        Ok(WaylandDesk {
            wl: Wayland::start(display, runtime_dir)?,
            sway: Arc::new(Mutex::new(SwayIpc::new(swaysock))),
            pointer: Arc::new(Mutex::new(None)),
        })
    }

    /// Runs `f` on the Wayland thread, waiting at most until `deadline`.
    pub(crate) async fn run<R, F>(&self, deadline: Deadline, f: F) -> Result<R, LinuxError>
    where
        R: Send + 'static,
        F: FnOnce(&mut dyn Desk) -> Result<R, LinuxError> + Send + 'static,
    {
        let (sway, pointer) = (self.sway.clone(), self.pointer.clone());
        self.wl
            .run(deadline, move |wl| {
                let mut ipc = sway.lock().unwrap_or_else(|p| p.into_inner());
                let mut at = pointer.lock().unwrap_or_else(|p| p.into_inner());
                f(&mut WlDesk {
                    wl,
                    sway: &mut ipc,
                    pointer: &mut at,
                })
            })
            .await
    }
}

/// One job's view of the compositor.
struct WlDesk<'a> {
    wl: &'a mut WlConn,
    sway: &'a mut SwayIpc,
    pointer: &'a mut Option<(i32, i32)>,
}

impl WlDesk<'_> {
    fn focused(&mut self) -> Result<Option<u32>, LinuxError> {
        Ok(self.sway.desktop()?.active)
    }
}

impl Desk for WlDesk<'_> {
    fn desktop(&mut self) -> Result<XDesktop, LinuxError> {
        self.sway.desktop()
    }

    fn screen(&mut self) -> Result<Bounds, LinuxError> {
        self.wl
            .layout()
            .ok_or_else(|| LinuxError::Wayland("the compositor reports no output".into()))
    }

    fn request_activate(&mut self, w: u32) -> Result<(), LinuxError> {
        if self.sway.command_on(w, "focus")? {
            Ok(())
        } else {
            Err(LinuxError::RootNotFound(format!(
                "sway has no window {w:#x} to focus"
            )))
        }
    }

    fn activate(&mut self, w: u32, timeout: Duration) -> Result<Activation, LinuxError> {
        // Best effort: without the keyboard protocol keys cannot be sent anyway, and that
        // step says so itself.
        let _ = input::ensure_keyboard(self.wl);
        if self.focused()? == Some(w) {
            return Ok(Activation::Already);
        }
        let t0 = Instant::now();
        self.request_activate(w)?;
        loop {
            let active = self.focused()?;
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
        Ok(self.focused()? == Some(w))
    }

    fn request_close(&mut self, w: u32) -> Result<bool, LinuxError> {
        // `kill` asks the client to close its toplevel (xdg_toplevel.close), as a close
        // button does; it is not a signal.
        self.sway.command_on(w, "kill")
    }

    fn client_rect(&mut self, w: u32) -> Result<(Bounds, Option<[u32; 4]>), LinuxError> {
        let d = self.sway.desktop()?;
        d.windows
            .iter()
            .find(|x| x.id == w)
            .map(|x| (x.bounds, None))
            .ok_or_else(|| LinuxError::RootNotFound(format!("sway lists no window {w:#x}")))
    }

    fn hit_test(&mut self, px: i32, py: i32, t: &HitTarget) -> Result<Hit, LinuxError> {
        let tree = self.sway.tree()?;
        Ok(hit_at(&tree, px, py, t))
    }

    fn capture(&mut self, _w: Option<u32>, bounds: Bounds) -> Result<RawImage, LinuxError> {
        capture::capture(self.wl, bounds)
    }

    fn prepare_input(&mut self) -> Result<(), LinuxError> {
        input::ensure_keyboard(self.wl)?;
        self.wl.pointer().map(|_| ())
    }

    fn pointer(&mut self) -> Result<(i32, i32), LinuxError> {
        (*self.pointer).ok_or_else(|| {
            LinuxError::Wayland(
                "the virtual pointer has not moved yet, and a Wayland client cannot ask where the pointer is"
                    .into(),
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

/// What input at `(px, py)` reaches, from sway's tree: the top-most shown window whose
/// container holds the point (floating ones above tiled ones), its content or its border and
/// title bar. A point in no window lands on a popup surface when the target has the focus
/// (menus and lists are `xdg_popup`s, which sway does not list), else on the bare background.
pub(crate) fn hit_at(tree: &Value, px: i32, py: i32, t: &HitTarget) -> Hit {
    let inside = |b: &Bounds| px >= b.x && py >= b.y && px < b.x + b.width && py < b.y + b.height;
    let views = sway::views(tree);
    let top = views
        .iter()
        .rev()
        .find(|v| !v.window.hidden && inside(&v.outer));
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
        None => {
            let focused = views
                .iter()
                .any(|v| v.focused && Some(v.window.id) == t.window);
            match t.window {
                Some(w) if focused => Hit::Popup(w),
                _ => Hit::Nothing,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Value {
        serde_json::json!({"type": "root", "nodes": [{"type": "output", "nodes": [
          {"type": "workspace", "nodes": [
            {"id": 5, "type": "con", "name": "A", "pid": 10, "app_id": "a", "focused": true,
             "visible": true, "nodes": [], "rect": {"x":0,"y":0,"width":640,"height":720},
             "window_rect": {"x":2,"y":25,"width":636,"height":693}},
            {"id": 6, "type": "con", "name": "B", "pid": 11, "app_id": "b", "visible": true,
             "nodes": [], "rect": {"x":640,"y":0,"width":640,"height":720},
             "window_rect": {"x":2,"y":25,"width":636,"height":693}}],
           "floating_nodes": [
            {"id": 7, "type": "floating_con", "name": "Dialog", "pid": 11, "app_id": "b",
             "visible": true, "nodes": [], "rect": {"x":100,"y":100,"width":200,"height":100},
             "window_rect": {"x":0,"y":0,"width":200,"height":100}}]}]}]})
    }

    #[test]
    fn points_land_on_the_top_window_its_frame_a_popup_or_nothing() {
        let t = HitTarget {
            window: Some(5),
            pid: Some(10),
        };
        let tr = tree();
        assert_eq!(hit_at(&tr, 50, 50, &t), Hit::Target);
        assert_eq!(hit_at(&tr, 50, 10, &t), Hit::Frame, "the title bar");
        assert!(matches!(
            hit_at(&tr, 150, 150, &t),
            Hit::Covered { window: 7, .. }
        ));
        assert!(matches!(
            hit_at(&tr, 700, 50, &t),
            Hit::Covered { window: 6, .. }
        ));
        assert_eq!(
            hit_at(&tr, 5000, 50, &t),
            Hit::Popup(5),
            "beyond every window"
        );
        let other = HitTarget {
            window: Some(6),
            pid: Some(11),
        };
        assert_eq!(hit_at(&tr, 5000, 50, &other), Hit::Nothing);
    }
}
