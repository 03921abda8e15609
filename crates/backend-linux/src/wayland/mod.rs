//! Wayland through wlroots protocols: virtual pointer and keyboard input (`input.rs`, with the
//! keymap it uploads in `keymap.rs`) and screen pixels through screencopy (`capture.rs`), on an
//! owned thread (`connection.rs`), as `x11/` does for X11.
//!
//! Only compositors offering `zwlr_virtual_pointer_manager_v1`, `zwp_virtual_keyboard_manager_v1`
//! and `zwlr_screencopy_manager_v1` (sway and other wlroots ones) are served here; the others
//! answer `not_supported` per capability. Window rectangles come from the compositor's own IPC
//! (`sway.rs`), not from this module. KDE's KWin, which offers none of those protocols, has a
//! desk of its own in `kwin/` (its scripts, screenshot service and fake input) on the same
//! Wayland thread.

pub(crate) mod capture;
pub(crate) mod connection;
pub(crate) mod desk;
pub(crate) mod doctor;
pub(crate) mod input;
pub(crate) mod keymap;
pub(crate) mod kwin;
pub(crate) mod sway;
#[doc(hidden)]
pub mod testing;
