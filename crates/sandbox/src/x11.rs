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

/// True if a window manager advertises EWMH support: `_NET_SUPPORTING_WM_CHECK` on the root
/// window names a window.
pub(crate) fn ewmh_wm_present(display: &str) -> Result<bool, SandboxError> {
    let (conn, screen) = x11rb::connect(Some(display))
        .map_err(|e| SandboxError::x11(format!("connect {display}"), e))?;
    let root = conn
        .setup()
        .roots
        .get(screen)
        .ok_or_else(|| SandboxError::x11("setup", "no such screen"))?
        .root;
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
