//! One thread owns the Wayland connection; async code sends it closures and awaits the answer.
//!
//! The mirror of `x11/connection.rs`: jobs run one at a time on a thread named
//! `uidriver-wayland`, which connects lazily to the socket it was given (never this process's
//! `WAYLAND_DISPLAY`: a daemon may serve a compositor it was not started under) and reconnects
//! on the next job after the connection broke (a compositor restarted, or a protocol error,
//! which ends a Wayland connection for good). A job that does not answer before the caller's
//! deadline is abandoned by the caller; waits inside a job are bounded too ([`WlConn::wait`]), so
//! a compositor that stops answering cannot hold the thread forever.
//!
//! [`WlConn`] holds what the registry offered (seat, outputs with their place and size, shm and
//! the wlroots managers for virtual pointer, screencopy and virtual keyboard) and the one
//! long-lived virtual pointer and keyboard, created on first use: on sway a short-lived pointer
//! device does nothing, a new device ignores events for about 0.3 s, and the first key of a new
//! keyboard is dropped (WAYLAND-FACTS.md). What is sent through them is `input.rs` and
//! `capture.rs`. On KWin, which offers none of the wlroots managers, the registry's
//! `org_kde_kwin_fake_input` is bound instead (`kwin/input.rs` sends through it).

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tracing::{debug, warn};
use uidriver_core::{Bounds, Deadline};
use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{
    wl_buffer::WlBuffer, wl_callback::WlCallback, wl_output, wl_output::WlOutput,
    wl_registry::WlRegistry, wl_seat::WlSeat, wl_shm::WlShm, wl_shm_pool::WlShmPool,
};
use wayland_client::{delegate_noop, Connection, Dispatch, EventQueue, Proxy, QueueHandle, WEnum};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};
use wayland_protocols_plasma::fake_input::client::org_kde_kwin_fake_input::OrgKdeKwinFakeInput;
use wayland_protocols_wlr::screencopy::v1::client::{
    zwlr_screencopy_frame_v1, zwlr_screencopy_frame_v1::ZwlrScreencopyFrameV1,
    zwlr_screencopy_manager_v1::ZwlrScreencopyManagerV1,
};
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use super::keymap::Keymap;
use crate::error::LinuxError;

/// How long a new virtual pointer is left alone before its first event: sway ignored earlier
/// events (WAYLAND-FACTS.md, measured 0.3 s).
const POINTER_WARMUP: Duration = Duration::from_millis(300);
/// How long a wait inside a job (a roundtrip, a screencopy) may take before the compositor
/// counts as not answering.
pub(crate) const ANSWER_LIMIT: Duration = Duration::from_secs(5);
/// How often the idle thread reads what the compositor sent (output changes), so its socket
/// buffer never fills while nobody asks for anything.
const IDLE_PUMP: Duration = Duration::from_secs(1);

/// One `wl_output` as the compositor describes it.
#[derive(Clone, Debug)]
pub(crate) struct Output {
    /// The registry name of the global.
    pub global: u32,
    /// The proxy.
    pub output: WlOutput,
    /// Position in the compositor's layout (`geometry`).
    pub x: i32,
    /// Position in the compositor's layout (`geometry`).
    pub y: i32,
    /// Current mode, in pixels (0 until the mode event came).
    pub width: i32,
    /// Current mode, in pixels.
    pub height: i32,
    /// Integer scale (`scale` event, version 2), 1 when not told.
    pub scale: i32,
    /// Rotated by 90 or 270 degrees (width and height swap in the layout).
    pub rotated: bool,
    /// Connector name (`HEADLESS-1`), version 4.
    pub name: Option<String>,
}

impl Output {
    /// The output's rectangle in layout (logical) coordinates: uidriver's screen coordinates.
    pub(crate) fn logical(&self) -> Bounds {
        let s = self.scale.max(1);
        let (w, h) = if self.rotated {
            (self.height, self.width)
        } else {
            (self.width, self.height)
        };
        Bounds::new(self.x, self.y, w / s, h / s)
    }
}

/// What the event handlers record; read by the jobs.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// The outputs, in the order they were announced.
    pub outputs: Vec<Output>,
    /// The screencopy frame in progress and what it reported.
    pub frame: Option<(wayland_client::backend::ObjectId, FrameEvents)>,
}

/// The events of one screencopy frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct FrameEvents {
    /// `buffer`: shm format, width, height, stride.
    pub buffer: Option<(
        WEnum<wayland_client::protocol::wl_shm::Format>,
        u32,
        u32,
        u32,
    )>,
    /// `buffer_done` (version 3): every buffer type was announced.
    pub buffer_done: bool,
    /// `flags`: rows come bottom-up.
    pub y_invert: bool,
    /// `ready`: the copy is in the buffer.
    pub ready: bool,
    /// `failed`.
    pub failed: bool,
}

/// The long-lived virtual keyboard and the keymap it last uploaded.
pub(crate) struct Keyboard {
    /// The device.
    pub device: ZwpVirtualKeyboardV1,
    /// The keymap as uploaded (grows; `keymap.rs`).
    pub map: Keymap,
    /// Keycodes held down by `key_event`, never rebound.
    pub held: Vec<u8>,
    /// Modifier mask held down by `key_event`, kept in every modifiers request.
    pub held_mods: u32,
}

/// The live connection, handed to jobs on the Wayland thread.
pub(crate) struct WlConn {
    conn: Connection,
    queue: EventQueue<State>,
    qh: QueueHandle<State>,
    /// What the handlers recorded.
    pub state: State,
    /// The socket, for errors.
    socket: PathBuf,
    /// Set when the connection can no longer be used (I/O error, protocol error).
    broken: bool,
    /// Time origin of the `time` arguments of input events (milliseconds).
    epoch: Instant,
    /// The first seat, if any (weston's headless backend has none).
    pub seat: Option<WlSeat>,
    /// Shared memory, for capture buffers.
    pub shm: Option<WlShm>,
    /// wlroots virtual pointers.
    pub pointer_manager: Option<ZwlrVirtualPointerManagerV1>,
    /// wlroots screencopy.
    pub screencopy: Option<ZwlrScreencopyManagerV1>,
    /// Virtual keyboards.
    pub keyboard_manager: Option<ZwpVirtualKeyboardManagerV1>,
    /// KWin's fake input (version 4 has absolute motion and keys), and whether it was
    /// authenticated on this connection.
    pub fake_input: Option<(OrgKdeKwinFakeInput, bool)>,
    pointer: Option<ZwlrVirtualPointerV1>,
    /// The virtual keyboard, once created (`input.rs` creates it; it needs a keymap first).
    pub keyboard: Option<Keyboard>,
}

impl WlConn {
    fn open(socket: &Path) -> Result<WlConn, LinuxError> {
        let stream = UnixStream::connect(socket).map_err(|e| {
            LinuxError::NoCompositor(format!(
                "cannot connect to the Wayland compositor at {} ({e})",
                socket.display()
            ))
        })?;
        let conn = Connection::from_socket(stream)
            .map_err(|e| LinuxError::Wayland(format!("cannot set up the connection: {e}")))?;
        let (globals, queue) = registry_queue_init::<State>(&conn).map_err(|e| {
            LinuxError::NoCompositor(format!(
                "the Wayland compositor at {} did not list its globals ({e})",
                socket.display()
            ))
        })?;
        let qh = queue.handle();
        let seat = globals.bind::<WlSeat, _, _>(&qh, 1..=1, ()).ok();
        let shm = globals.bind::<WlShm, _, _>(&qh, 1..=1, ()).ok();
        let pointer_manager = globals
            .bind::<ZwlrVirtualPointerManagerV1, _, _>(&qh, 1..=2, ())
            .ok();
        let screencopy = globals
            .bind::<ZwlrScreencopyManagerV1, _, _>(&qh, 1..=3, ())
            .ok();
        let keyboard_manager = globals
            .bind::<ZwpVirtualKeyboardManagerV1, _, _>(&qh, 1..=1, ())
            .ok();
        let fake_input = globals
            .bind::<OrgKdeKwinFakeInput, _, _>(&qh, 1..=4, ())
            .ok()
            .map(|f| (f, false));
        let mut state = State::default();
        let registry = globals.registry().clone();
        globals.contents().with_list(|list| {
            for g in list
                .iter()
                .filter(|g| g.interface == WlOutput::interface().name)
            {
                bind_output(&mut state, &registry, g.name, g.version, &qh);
            }
        });
        let mut w = WlConn {
            conn,
            queue,
            qh,
            state,
            socket: socket.to_path_buf(),
            broken: false,
            epoch: Instant::now(),
            seat,
            shm,
            pointer_manager,
            screencopy,
            keyboard_manager,
            fake_input,
            pointer: None,
            keyboard: None,
        };
        // The outputs' geometry and mode arrive after the bind.
        w.sync()?;
        Ok(w)
    }

    /// The queue handle, for creating objects.
    pub(crate) fn qh(&self) -> &QueueHandle<State> {
        &self.qh
    }

    /// Milliseconds since the connection opened: the `time` of input events.
    pub(crate) fn now_ms(&self) -> u32 {
        self.epoch.elapsed().as_millis() as u32
    }

    /// The bounding box of all outputs in layout coordinates (`None` before any output has a
    /// mode). Absolute pointer motion maps onto it.
    pub(crate) fn layout(&self) -> Option<Bounds> {
        let mut it = self
            .state
            .outputs
            .iter()
            .map(Output::logical)
            .filter(|b| b.width > 0 && b.height > 0);
        let first = it.next()?;
        let (mut x0, mut y0) = (first.x, first.y);
        let (mut x1, mut y1) = (first.x + first.width, first.y + first.height);
        for b in it {
            x0 = x0.min(b.x);
            y0 = y0.min(b.y);
            x1 = x1.max(b.x + b.width);
            y1 = y1.max(b.y + b.height);
        }
        Some(Bounds::new(x0, y0, x1 - x0, y1 - y0))
    }

    /// The long-lived virtual pointer, created (and given its settle time) on first use.
    pub(crate) fn pointer(&mut self) -> Result<ZwlrVirtualPointerV1, LinuxError> {
        if let Some(p) = &self.pointer {
            return Ok(p.clone());
        }
        let manager = self
            .pointer_manager
            .as_ref()
            .ok_or_else(|| missing("pointer input", "zwlr_virtual_pointer_manager_v1"))?;
        let p = manager.create_virtual_pointer(self.seat.as_ref(), &self.qh, ());
        self.sync()?;
        thread::sleep(POINTER_WARMUP);
        debug!("virtual pointer created");
        self.pointer = Some(p.clone());
        Ok(p)
    }

    /// Sends what is queued and waits until the compositor processed it (`wl_display.sync`).
    pub(crate) fn sync(&mut self) -> Result<(), LinuxError> {
        let done = Arc::new(AtomicBool::new(false));
        self.conn.display().sync(&self.qh, done.clone());
        self.wait(|_| done.load(Ordering::Acquire), "a roundtrip")
    }

    /// Reads and dispatches events until `until` holds, at most [`ANSWER_LIMIT`].
    pub(crate) fn wait(
        &mut self,
        mut until: impl FnMut(&State) -> bool,
        what: &str,
    ) -> Result<(), LinuxError> {
        let end = Instant::now() + ANSWER_LIMIT;
        loop {
            match self.queue.flush() {
                Ok(()) => {}
                // A full socket drains as the compositor reads; keep reading meanwhile.
                Err(wayland_client::backend::WaylandError::Io(e))
                    if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(self.fail(e)),
            }
            if let Err(e) = self.queue.dispatch_pending(&mut self.state) {
                return Err(self.fail_dispatch(e));
            }
            if until(&self.state) {
                return Ok(());
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(LinuxError::Wayland(format!(
                    "the compositor did not answer {what} within {ANSWER_LIMIT:?}"
                )));
            }
            let Some(guard) = self.queue.prepare_read() else {
                continue;
            };
            let timeout = rustix::event::Timespec {
                tv_sec: left.as_secs() as _,
                tv_nsec: left.subsec_nanos() as _,
            };
            let mut fds = [rustix::event::PollFd::from_borrowed_fd(
                guard.connection_fd(),
                rustix::event::PollFlags::IN,
            )];
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(LinuxError::Wayland(format!("poll: {e}"))),
            }
            match guard.read() {
                Ok(_) => {}
                Err(wayland_client::backend::WaylandError::Io(e))
                    if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(self.fail(e)),
            }
        }
    }

    /// Marks the connection broken and names the failure: a lost socket means the compositor
    /// went away (`backend_unavailable`), a protocol error is ours (`internal`).
    pub(crate) fn fail(&mut self, e: wayland_client::backend::WaylandError) -> LinuxError {
        self.broken = true;
        match e {
            wayland_client::backend::WaylandError::Io(io) => LinuxError::NoCompositor(format!(
                "the Wayland compositor at {} went away ({io})",
                self.socket.display()
            )),
            wayland_client::backend::WaylandError::Protocol(p) => {
                LinuxError::Wayland(format!("protocol error: {p}"))
            }
        }
    }

    fn fail_dispatch(&mut self, e: wayland_client::DispatchError) -> LinuxError {
        match e {
            wayland_client::DispatchError::Backend(b) => self.fail(b),
            other => {
                self.broken = true;
                LinuxError::Wayland(other.to_string())
            }
        }
    }

    /// Reads what arrived without waiting (the idle thread's upkeep).
    fn pump(&mut self) -> Result<(), LinuxError> {
        if let Some(guard) = self.queue.prepare_read() {
            match guard.read() {
                Ok(_) => {}
                Err(wayland_client::backend::WaylandError::Io(e))
                    if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(self.fail(e)),
            }
        }
        self.queue
            .dispatch_pending(&mut self.state)
            .map(|_| ())
            .map_err(|e| self.fail_dispatch(e))
    }
}

/// The error for a protocol this compositor does not offer (mutter, KWin and weston offer none
/// of the wlroots ones).
pub(crate) fn missing(what: &str, global: &str) -> LinuxError {
    LinuxError::Unsupported {
        what: what.into(),
        reason: format!("the compositor does not offer {global}"),
    }
}

fn bind_output(
    state: &mut State,
    registry: &WlRegistry,
    name: u32,
    version: u32,
    qh: &QueueHandle<State>,
) {
    let output = registry.bind::<WlOutput, _, _>(name, version.min(4), qh, name);
    state.outputs.push(Output {
        global: name,
        output,
        x: 0,
        y: 0,
        width: 0,
        height: 0,
        scale: 1,
        rotated: false,
        name: None,
    });
}

type Job = Box<dyn FnOnce(Result<&mut WlConn, LinuxError>) + Send>;

/// Handle to the Wayland thread.
#[derive(Clone, Debug)]
pub(crate) struct Wayland {
    tx: mpsc::Sender<Job>,
    socket: Arc<Path>,
}

impl Wayland {
    /// Starts the thread for the compositor socket `display` (a `WAYLAND_DISPLAY` name, resolved
    /// in `runtime_dir`, or an absolute path). Connecting happens on first use.
    pub(crate) fn start(display: &str, runtime_dir: &Path) -> Result<Wayland, LinuxError> {
        if display.is_empty() {
            return Err(LinuxError::InvalidArgs("empty Wayland display name".into()));
        }
        let socket: Arc<Path> = if Path::new(display).is_absolute() {
            Arc::from(Path::new(display))
        } else {
            Arc::from(runtime_dir.join(display).as_path())
        };
        let (tx, rx) = mpsc::channel::<Job>();
        let path = socket.clone();
        thread::Builder::new()
            .name("uidriver-wayland".into())
            .spawn(move || serve(&path, rx))
            .map_err(|e| LinuxError::Wayland(format!("cannot start the Wayland thread: {e}")))?;
        Ok(Wayland { tx, socket })
    }

    /// The compositor socket this handle talks to.
    pub(crate) fn socket(&self) -> &Path {
        &self.socket
    }

    /// Runs `f` on the Wayland thread, waiting at most until `deadline`.
    pub(crate) async fn run<R, F>(&self, deadline: Deadline, f: F) -> Result<R, LinuxError>
    where
        R: Send + 'static,
        F: FnOnce(&mut WlConn) -> Result<R, LinuxError> + Send + 'static,
    {
        let (done, answer) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = done.send(conn.and_then(f));
        });
        self.tx
            .send(job)
            .map_err(|_| LinuxError::Wayland("the Wayland thread stopped".into()))?;
        match tokio::time::timeout(deadline.remaining(), answer).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err(LinuxError::Wayland(
                "the Wayland thread dropped a request".into(),
            )),
            Err(_) => Err(LinuxError::Deadline(
                "waiting for the Wayland compositor".into(),
            )),
        }
    }
}

fn serve(socket: &Path, rx: mpsc::Receiver<Job>) {
    let mut conn: Option<WlConn> = None;
    loop {
        let job = match rx.recv_timeout(IDLE_PUMP) {
            Ok(job) => job,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(c) = conn.as_mut() {
                    if let Err(e) = c.pump() {
                        warn!(error = %e, "Wayland connection broken; reconnecting on next use");
                        conn = None;
                    }
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        if conn.is_none() {
            match WlConn::open(socket) {
                Ok(c) => {
                    debug!(socket = %socket.display(), "connected to the Wayland compositor");
                    conn = Some(c);
                }
                Err(e) => {
                    warn!(error = %e, "cannot connect to the Wayland compositor");
                    job(Err(e));
                    continue;
                }
            }
        }
        if let Some(c) = conn.as_mut() {
            job(Ok(c));
            if c.broken {
                warn!("Wayland connection broken; reconnecting on next use");
                conn = None;
            }
        }
    }
}

impl Dispatch<WlRegistry, GlobalListContents> for State {
    fn event(
        state: &mut Self,
        registry: &WlRegistry,
        event: wayland_client::protocol::wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        qh: &QueueHandle<Self>,
    ) {
        use wayland_client::protocol::wl_registry::Event;
        match event {
            Event::Global {
                name,
                interface,
                version,
            } if interface == WlOutput::interface().name => {
                bind_output(state, registry, name, version, qh);
            }
            Event::GlobalRemove { name } => {
                if let Some(i) = state.outputs.iter().position(|o| o.global == name) {
                    let o = state.outputs.remove(i);
                    if o.output.version() >= 3 {
                        o.output.release();
                    }
                }
            }
            _ => {}
        }
    }
}

impl Dispatch<WlOutput, u32> for State {
    fn event(
        state: &mut Self,
        _: &WlOutput,
        event: wl_output::Event,
        global: &u32,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some(o) = state.outputs.iter_mut().find(|o| o.global == *global) else {
            return;
        };
        match event {
            wl_output::Event::Geometry {
                x, y, transform, ..
            } => {
                o.x = x;
                o.y = y;
                o.rotated = matches!(
                    transform,
                    WEnum::Value(
                        wl_output::Transform::_90
                            | wl_output::Transform::_270
                            | wl_output::Transform::Flipped90
                            | wl_output::Transform::Flipped270
                    )
                );
            }
            wl_output::Event::Mode {
                flags,
                width,
                height,
                ..
            } => {
                let current = match flags {
                    WEnum::Value(f) => f.contains(wl_output::Mode::Current),
                    WEnum::Unknown(bits) => bits & 1 == 1,
                };
                if current {
                    o.width = width;
                    o.height = height;
                }
            }
            wl_output::Event::Scale { factor } => o.scale = factor.max(1),
            wl_output::Event::Name { name } => o.name = Some(name),
            _ => {}
        }
    }
}

impl Dispatch<WlCallback, Arc<AtomicBool>> for State {
    fn event(
        _: &mut Self,
        _: &WlCallback,
        _: wayland_client::protocol::wl_callback::Event,
        done: &Arc<AtomicBool>,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        done.store(true, Ordering::Release);
    }
}

impl Dispatch<ZwlrScreencopyFrameV1, ()> for State {
    fn event(
        state: &mut Self,
        frame: &ZwlrScreencopyFrameV1,
        event: zwlr_screencopy_frame_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        use zwlr_screencopy_frame_v1::Event;
        let Some((id, ev)) = state.frame.as_mut() else {
            return;
        };
        if *id != frame.id() {
            return;
        }
        match event {
            Event::Buffer {
                format,
                width,
                height,
                stride,
            } => ev.buffer = Some((format, width, height, stride)),
            Event::BufferDone => ev.buffer_done = true,
            Event::Flags { flags } => {
                ev.y_invert = match flags {
                    WEnum::Value(f) => f.contains(zwlr_screencopy_frame_v1::Flags::YInvert),
                    WEnum::Unknown(bits) => bits & 1 == 1,
                }
            }
            Event::Ready { .. } => ev.ready = true,
            Event::Failed => ev.failed = true,
            _ => {}
        }
    }
}

delegate_noop!(State: ignore WlSeat);
delegate_noop!(State: ignore WlShm);
delegate_noop!(State: ignore WlBuffer);
delegate_noop!(State: WlShmPool);
delegate_noop!(State: ZwlrVirtualPointerManagerV1);
delegate_noop!(State: ZwlrVirtualPointerV1);
delegate_noop!(State: ZwlrScreencopyManagerV1);
delegate_noop!(State: ZwpVirtualKeyboardManagerV1);
delegate_noop!(State: ZwpVirtualKeyboardV1);
delegate_noop!(State: OrgKdeKwinFakeInput);
