//! The typed subset of the Chrome DevTools Protocol this crate speaks: one struct per command
//! (its params) tied to its method name and reply type by [`Command`], one file per CDP domain
//! (`page.rs`, `runtime.rs`, `dom.rs`, `input.rs`, `target.rs`, `browser.rs`, `network.rs`),
//! plus the envelopes of the wire (`wire.rs`). Everything is re-exported here, so callers name
//! `crate::protocol::X` whatever its domain. Only fields we read are declared; serde ignores
//! the rest, so newer Chromium versions that add fields keep working.
//!
//! Wire assumptions (checked against Chromium 156's protocol):
//! - replies carry the request `id`; events carry `method` and, for flattened sessions,
//!   `sessionId` (`Target.attachToTarget {flatten: true}`);
//! - the main frame id of a page target equals its target id;
//! - `Runtime.evaluate` with `returnByValue` returns JSON values inline in `result.value`;
//! - while a JavaScript dialog is open the page's renderer answers no command (`Runtime.*`,
//!   `Input.*`, `DOM.*`, `Page.enable` too) until `Page.handleJavaScriptDialog`; the
//!   `Input.dispatchMouseEvent` that opened it is answered only after it closed;
//!   `Page.javascriptDialogOpening` is sent only to sessions whose Page domain was on when it
//!   opened (so new pages are held until it is, `autoattach.rs`);
//! - a popup opened by a same-site page shares its renderer, so its dialog blocks the opener
//!   too (the opener's own session hears nothing of it).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A CDP command: its params (the struct itself), its method name and its reply type.
pub trait Command: Serialize {
    /// The method, e.g. `Page.navigate`.
    const METHOD: &'static str;
    /// The reply's `result`.
    type Output: DeserializeOwned;
}

macro_rules! command {
    ($ty:ty, $method:literal, $out:ty) => {
        impl $crate::protocol::Command for $ty {
            const METHOD: &'static str = $method;
            type Output = $out;
        }
    };
}

/// A reply with no fields we read.
#[derive(Debug, Default, Deserialize)]
pub struct Empty {}

// The domains, after `command!`, which they use.
mod browser;
mod dom;
mod input;
mod network;
mod page;
mod runtime;
mod target;
mod wire;

pub use browser::*;
pub use dom::*;
pub use input::*;
pub use network::*;
pub use page::*;
pub use runtime::*;
pub use target::*;
pub use wire::*;
