//! One thread owns the X11 connection; async code sends it closures and awaits the answer.
//!
//! x11rb's `RustConnection` blocks on replies, so it never runs on a runtime worker. The thread
//! connects lazily and reconnects after a failure (an X server restarted under a long-running
//! daemon), and a job that does not answer before the caller's deadline is abandoned by the
//! caller, not by the thread. While the server is away every job answers
//! [`LinuxError::NoDisplay`] naming the display, the job that found the connection broken too.

use std::sync::mpsc;
use std::thread;

use tokio::sync::oneshot;
use tracing::{debug, warn};
use uidriver_core::Deadline;
use x11rb::connection::Connection;
use x11rb::rust_connection::RustConnection;

use crate::error::LinuxError;

x11rb::atom_manager! {
    /// Atoms uidriver reads.
    pub(crate) Atoms: AtomsCookie {
        _NET_CLIENT_LIST_STACKING,
        _NET_CLIENT_LIST,
        _NET_ACTIVE_WINDOW,
        _NET_WM_PID,
        _NET_WM_NAME,
        _NET_WM_STATE,
        _NET_WM_STATE_HIDDEN,
        _NET_WM_STATE_MODAL,
        _NET_WM_WINDOW_TYPE,
        _NET_WM_WINDOW_TYPE_DIALOG,
        _NET_WM_WINDOW_TYPE_NORMAL,
        _NET_SUPPORTING_WM_CHECK,
        _NET_CLOSE_WINDOW,
        WM_PROTOCOLS,
        WM_DELETE_WINDOW,
        _GTK_FRAME_EXTENTS,
        UTF8_STRING,
    }
}

/// The live connection, handed to jobs on the X11 thread.
pub(crate) struct XConn {
    /// The connection.
    pub conn: RustConnection,
    /// Default screen number.
    pub screen: usize,
    /// Interned atoms.
    pub atoms: Atoms,
    /// Whether this connection redirected the top-level windows into offscreen pixmaps
    /// (Composite, automatic), so a covered window can still be captured.
    pub redirected: std::cell::Cell<bool>,
}

impl XConn {
    fn open(display: Option<&str>) -> Result<XConn, LinuxError> {
        let (conn, screen) = RustConnection::connect(display).map_err(|e| {
            LinuxError::NoDisplay(format!(
                "cannot connect to the X server {} ({e})",
                display.unwrap_or("$DISPLAY")
            ))
        })?;
        let atoms = Atoms::new(&conn)
            .map_err(|e| LinuxError::X11(e.to_string()))?
            .reply()
            .map_err(|e| LinuxError::X11(e.to_string()))?;
        Ok(XConn {
            conn,
            screen,
            atoms,
            redirected: std::cell::Cell::new(false),
        })
    }

    /// The root window of the default screen.
    pub(crate) fn root(&self) -> u32 {
        self.conn.setup().roots[self.screen].root
    }
}

type Job = Box<dyn FnOnce(Result<&XConn, LinuxError>) -> bool + Send>;

/// Handle to the X11 thread.
#[derive(Clone, Debug)]
pub(crate) struct X11 {
    tx: mpsc::Sender<Job>,
    /// The display, for errors (`$DISPLAY` when none was given).
    display: std::sync::Arc<str>,
}

impl X11 {
    /// Starts the thread for `display` (`None`: `$DISPLAY`). Connecting happens on first use.
    pub(crate) fn start(display: Option<String>) -> Result<X11, LinuxError> {
        let (tx, rx) = mpsc::channel::<Job>();
        let name = std::sync::Arc::from(display.as_deref().unwrap_or("$DISPLAY"));
        thread::Builder::new()
            .name("uidriver-x11".into())
            .spawn(move || serve(display, rx))
            .map_err(|e| LinuxError::X11(format!("cannot start the X11 thread: {e}")))?;
        Ok(X11 { tx, display: name })
    }

    /// Runs `f` on the X11 thread, waiting at most until `deadline`.
    pub(crate) async fn run<R, F>(&self, deadline: Deadline, f: F) -> Result<R, LinuxError>
    where
        R: Send + 'static,
        F: FnOnce(&XConn) -> Result<R, LinuxError> + Send + 'static,
    {
        let (done, answer) = oneshot::channel();
        let display = self.display.clone();
        let job: Job = Box::new(move |conn| {
            let (result, broken) = match conn {
                Ok(c) => {
                    let r = f(c);
                    let broken = matches!(&r, Err(LinuxError::X11(_))) && is_broken(c);
                    match r {
                        Err(LinuxError::X11(e)) if broken => (Err(gone(&display, &e)), true),
                        r => (r, broken),
                    }
                }
                Err(e) => (Err(e), false),
            };
            let _ = done.send(result);
            broken
        });
        self.tx
            .send(job)
            .map_err(|_| LinuxError::X11("the X11 thread stopped".into()))?;
        match tokio::time::timeout(deadline.remaining(), answer).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err(LinuxError::X11("the X11 thread dropped a request".into())),
            Err(_) => Err(LinuxError::Deadline("waiting for the X server".into())),
        }
    }
}

fn serve(dpy: Option<String>, rx: mpsc::Receiver<Job>) {
    let mut conn: Option<XConn> = None;
    while let Ok(job) = rx.recv() {
        if conn.is_none() {
            match XConn::open(dpy.as_deref()) {
                Ok(c) => {
                    debug!(display = ?dpy, "connected to the X server");
                    conn = Some(c);
                }
                Err(e) => {
                    warn!(error = %e, "cannot connect to the X server");
                    job(Err(e));
                    continue;
                }
            }
        }
        if let Some(c) = conn.as_ref() {
            if job(Ok(c)) {
                warn!("X11 connection broken; reconnecting on next use");
                conn = None;
            }
        }
    }
}

/// Whether the connection is dead, asked after a job failed: one round trip. A protocol error
/// (a window destroyed under the job) leaves it working; a server that went away fails every
/// request from then on. (`flush` alone is not proof: with nothing buffered it succeeds on a
/// dead socket.)
pub(crate) fn is_broken(c: &XConn) -> bool {
    x11rb::protocol::xproto::get_input_focus(&c.conn)
        .map_err(|_| ())
        .and_then(|k| k.reply().map(|_| ()).map_err(|_| ()))
        .is_err()
}

/// The error of a job that found the connection broken: the server went away under it.
fn gone(display: &str, e: &str) -> LinuxError {
    LinuxError::NoDisplay(format!("the X server {display} went away ({e})"))
}

/// Maps an x11rb error into ours.
pub(crate) fn xerr(e: impl std::fmt::Display) -> LinuxError {
    LinuxError::X11(e.to_string())
}
