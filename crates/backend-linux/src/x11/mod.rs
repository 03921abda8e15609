//! X11 through x11rb: the window list with its EWMH facts (`ewmh.rs`), pixels (`capture.rs`),
//! XTEST input (`input.rs`) and what input checks first (activation and hit-testing,
//! `window.rs`), all on owned threads (`connection.rs`) because x11rb calls block.
//!
//! What a window *is* for uidriver (its pairing with an AT-SPI surface, its root key) is
//! `roots.rs`; this module only reports what the X server and the window manager say.

pub(crate) mod capture;
pub(crate) mod connection;
pub(crate) mod ewmh;
pub(crate) mod input;
pub(crate) mod window;
