//! X11 side of the sandbox: which display numbers are free (lock file + socket, the way the X
//! server itself decides), whether an X server answers, and whether an EWMH window manager has
//! taken the root window. Uses x11rb directly so startup does not depend on xdpyinfo/xprop.

use std::path::PathBuf;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt};

use crate::procfs;
use crate::SandboxError;

/// `/tmp/.XN-lock`, written by the X server with its pid.
pub(crate) fn lock_path(n: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/.X{n}-lock"))
}

/// `/tmp/.X11-unix/XN`, the X server's listening socket.
pub(crate) fn socket_path(n: u32) -> PathBuf {
    PathBuf::from(format!("/tmp/.X11-unix/X{n}"))
}

/// True if no X server seems to own display `n`. A lock whose pid is gone is stale (the server
/// replaces it); a socket without a lock belongs to a server we cannot see, so it is taken.
pub(crate) fn display_free(n: u32) -> bool {
    let lock = lock_path(n);
    if lock.exists() {
        return match procfs::lock_file_pid(&lock) {
            // A zombie holder still counts: the X server's own check (kill(pid, 0)) sees it.
            Some(pid) => procfs::stat(pid).is_none(),
            None => false,
        };
    }
    !socket_path(n).exists()
}

/// True if an X server accepts a connection on `display`.
pub(crate) fn server_answers(display: &str) -> bool {
    x11rb::connect(Some(display)).is_ok()
}

/// A connection to `display` and its default screen's root window.
fn connect(
    display: &str,
) -> Result<
    (
        x11rb::rust_connection::RustConnection,
        x11rb::protocol::xproto::Window,
    ),
    SandboxError,
> {
    let (conn, screen) = x11rb::connect(Some(display))
        .map_err(|e| SandboxError::x11(format!("connect {display}"), e))?;
    let root = conn
        .setup()
        .roots
        .get(screen)
        .ok_or_else(|| SandboxError::x11("setup", "no such screen"))?
        .root;
    Ok((conn, root))
}

/// True if a window manager advertises EWMH support: `_NET_SUPPORTING_WM_CHECK` on the root
/// window names a window.
pub(crate) fn ewmh_wm_present(display: &str) -> Result<bool, SandboxError> {
    let (conn, root) = connect(display)?;
    let atom = conn
        .intern_atom(false, b"_NET_SUPPORTING_WM_CHECK")
        .map_err(|e| SandboxError::x11("intern_atom", e))?
        .reply()
        .map_err(|e| SandboxError::x11("intern_atom", e))?
        .atom;
    let reply = conn
        .get_property(false, root, atom, AtomEnum::WINDOW, 0, 1)
        .map_err(|e| SandboxError::x11("get_property", e))?
        .reply()
        .map_err(|e| SandboxError::x11("get_property", e))?;
    Ok(reply
        .value32()
        .and_then(|mut v| v.next())
        .is_some_and(|w| w != 0))
}

/// True once the window manager manages new windows: a 1×1 probe window, mapped, shows up in
/// `_NET_CLIENT_LIST` within `within` (it is destroyed either way). Openbox names itself in
/// `_NET_SUPPORTING_WM_CHECK` before its event loop runs, and a map request that reaches it in
/// between was seen lost: the app's window stayed unmapped, unmanaged, for minutes (an image
/// run's task found no window in 1 of 10 tasks). Apps start only after this probe passes.
pub(crate) fn wm_manages_windows(
    display: &str,
    within: std::time::Duration,
) -> Result<bool, SandboxError> {
    use x11rb::protocol::xproto::{CreateWindowAux, WindowClass};
    use x11rb::COPY_DEPTH_FROM_PARENT;
    let (conn, root) = connect(display)?;
    let probe = conn
        .generate_id()
        .map_err(|e| SandboxError::x11("generate_id", e))?;
    conn.create_window(
        COPY_DEPTH_FROM_PARENT,
        probe,
        root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &CreateWindowAux::new(),
    )
    .map_err(|e| SandboxError::x11("create_window", e))?;
    conn.map_window(probe)
        .map_err(|e| SandboxError::x11("map_window", e))?;
    conn.flush().map_err(|e| SandboxError::x11("flush", e))?;
    let list = conn
        .intern_atom(false, b"_NET_CLIENT_LIST")
        .map_err(|e| SandboxError::x11("intern_atom", e))?
        .reply()
        .map_err(|e| SandboxError::x11("intern_atom", e))?
        .atom;
    let t0 = std::time::Instant::now();
    let managed = loop {
        let reply = conn
            .get_property(false, root, list, AtomEnum::WINDOW, 0, 1024)
            .map_err(|e| SandboxError::x11("get_property", e))?
            .reply()
            .map_err(|e| SandboxError::x11("get_property", e))?;
        if reply.value32().is_some_and(|mut v| v.any(|w| w == probe)) {
            break true;
        }
        if t0.elapsed() >= within {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let _ = conn.destroy_window(probe);
    let _ = conn.flush();
    Ok(managed)
}
