//! The Wayland module's operations as a public, hidden facade, for the live protocol tests
//! (`tests/wayland_protocols.rs`) that drive a private sway. Not part of the API: the backend
//! reaches the same functions through its own code paths.

use std::path::Path;
use std::time::Instant;

use uidriver_core::action::{Button, KeyChord};
use uidriver_core::{Bounds, Deadline, RawImage};

use super::connection::Wayland;
use super::{capture, input};
use crate::error::LinuxError;

/// A handle on the Wayland thread of one compositor socket.
#[derive(Clone, Debug)]
pub struct Session(Wayland);

/// One output: its connector name (when the compositor says it) and its layout rectangle.
#[derive(Clone, Debug)]
pub struct OutputInfo {
    /// `wl_output.name` (version 4), e.g. `HEADLESS-1`.
    pub name: Option<String>,
    /// The rectangle in layout coordinates.
    pub bounds: Bounds,
}

impl Session {
    /// Starts the thread for `display` (a name in `runtime_dir`, or an absolute socket path).
    pub fn start(display: &str, runtime_dir: &Path) -> Result<Session, LinuxError> {
        Wayland::start(display, runtime_dir).map(Session)
    }

    /// The socket path.
    pub fn socket(&self) -> &Path {
        self.0.socket()
    }

    /// The outputs as last announced.
    pub async fn outputs(&self, deadline: Deadline) -> Result<Vec<OutputInfo>, LinuxError> {
        self.0
            .run(deadline, |w| {
                Ok(w.state
                    .outputs
                    .iter()
                    .map(|o| OutputInfo {
                        name: o.name.clone(),
                        bounds: o.logical(),
                    })
                    .collect())
            })
            .await
    }

    /// `capture::capture`.
    pub async fn capture(
        &self,
        bounds: Bounds,
        deadline: Deadline,
    ) -> Result<RawImage, LinuxError> {
        self.0
            .run(deadline, move |w| capture::capture(w, bounds))
            .await
    }

    /// `input::move_to`.
    pub async fn move_to(&self, x: i32, y: i32, deadline: Deadline) -> Result<(), LinuxError> {
        self.0.run(deadline, move |w| input::move_to(w, x, y)).await
    }

    /// `input::click`.
    pub async fn click(
        &self,
        x: i32,
        y: i32,
        b: Button,
        count: u8,
        deadline: Deadline,
    ) -> Result<(), LinuxError> {
        self.0
            .run(deadline, move |w| input::click(w, x, y, b, count))
            .await
    }

    /// `input::scroll`.
    pub async fn scroll(
        &self,
        x: i32,
        y: i32,
        dx: i32,
        dy: i32,
        deadline: Deadline,
    ) -> Result<(), LinuxError> {
        self.0
            .run(deadline, move |w| input::scroll(w, x, y, dx, dy))
            .await
    }

    /// `input::drag`.
    pub async fn drag(
        &self,
        path: Vec<(i32, i32)>,
        b: Button,
        deadline: Deadline,
    ) -> Result<(), LinuxError> {
        self.0
            .run(deadline, move |w| input::drag(w, &path, b))
            .await
    }

    /// `input::press_chords`.
    pub async fn press_chords(
        &self,
        chords: Vec<KeyChord>,
        deadline: Deadline,
    ) -> Result<(), LinuxError> {
        self.0
            .run(deadline, move |w| input::press_chords(w, &chords))
            .await
    }

    /// `input::key_event`.
    pub async fn key_event(
        &self,
        chord: KeyChord,
        down: bool,
        deadline: Deadline,
    ) -> Result<(), LinuxError> {
        self.0
            .run(deadline, move |w| input::key_event(w, &chord, down))
            .await
    }

    /// `input::type_text`.
    pub async fn type_text(&self, text: String, deadline: Deadline) -> Result<(), LinuxError> {
        self.0
            .run(deadline, move |w| input::type_text(w, &text))
            .await
    }

    /// `input::type_text_until`.
    pub async fn type_text_until(
        &self,
        text: String,
        stop: Instant,
        deadline: Deadline,
    ) -> Result<(), LinuxError> {
        self.0
            .run(deadline, move |w| {
                input::type_text_until(w, &text, Some(stop))
            })
            .await
    }
}
