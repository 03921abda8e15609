//! Chromium pages as uidriver roots, over the Chrome DevTools Protocol: launching or attaching
//! to browsers, listing their pages beside desktop windows, observing a page as a [`Snapshot`]
//! of its elements (frames included, cross-origin ones too), acting on them with real input events and
//! read-back evidence, navigating, evaluating and waiting for changes.
//!
//! The principal type is [`CdpBackend`], which implements core's `Backend` (name `cdp`) and,
//! through `Backend::browser`, `BrowserControl`. Refs, states, lanes, epochs, diffs and
//! rendering are the service's; this crate returns snapshots and step reports.
//!
//! # Layout
//! - `backend`: [`CdpBackend`]; the port impls, dispatching to the rest.
//! - `config`: [`CdpConfig`], read by the backend and by the environment check (`doctor`).
//! - `browser`: one connected browser: launched-or-attached, its page sessions, shutdown.
//! - `autoattach`: new pages attached as they are created, held until their Page domain is on.
//! - `launch`: starting Chromium with a private profile, stopping it by pid; endpoint lookup.
//! - `client`: the WebSocket, one reader task routing replies by id and events by session.
//! - `protocol`: the typed CDP commands and replies this crate uses, one file per domain.
//! - `page`: one page session: isolated world, element handles, navigation, evaluation, waits;
//!   `page/frames`: cross-origin frames read as documents of their own (in-process or out of
//!   process), remembered per top page so refs inside them act in the right world.
//! - `roots`: pages as [`RootInfo`](uidriver_core::RootInfo)s.
//! - `log`: a page's console messages, errors and requests, in bounded rings.
//! - `downloads`: a browser's downloads: where they go, followed to their file, waited for.
//! - `storage`: cookies and web storage saved as JSON and loaded into a new browser.
//! - `tabs`: pages opened by a step waited for until loaded, new tabs, closing a page, sizing
//!   the viewport.
//! - `walker.js` + `extract`: the in-page walker and its rows turned into a snapshot; the
//!   viewport-to-screen mapping.
//! - `capture`: the viewport's pixels as core's `RawImage`.
//! - `input`: key chords and mouse events as CDP wants them.
//! - `act`: running steps with grounding, delivery and verification; pointer steps.
//! - `verify`: a step's verdict recorded; the probe counting the events that reach the page.
//! - `dialog_kind`: a JavaScript dialog's kind, and `Blocked`, what a command it blocked reports.
//! - `dialog_state`: each page's JavaScript dialog (alert, confirm, prompt, beforeunload) from
//!   the Page events, and its commands bounded while one is open.
//! - `dialog`: an open dialog shown (`dialog/view`: its snapshot; `roots` lists its root) and
//!   answered (`dialog/steps`).
//! - `edit`: the steps that change text, values and states (setText … setValue).
//! - `error`: [`CdpError`] and its one mapping to core's error codes.
//! - `fuzzing`: the byte-level entry of the `cdp_message` fuzz target (hidden; `docs/FUZZING.md`).
//!
//! Imports point one way: each module names only modules before it in this order (children
//! such as `page/frames` are part of their parent): `protocol`, `dialog_kind`, `config`;
//! `error`; `client`, `launch`, `input`, `log`; `dialog_state`; `page`; `verify`, `extract`,
//! `capture`; `act`, `edit`, `files`; `downloads`, `autoattach`, `browser`, `roots`, `tabs`,
//! `storage`; `dialog`; `doctor`, `backend`, `fuzzing`.
//!
//! [`Snapshot`]: uidriver_core::Snapshot

mod act;
mod autoattach;
mod backend;
mod browser;
mod capture;
mod client;
mod config;
mod dialog;
mod dialog_kind;
mod dialog_state;
mod doctor;
mod downloads;
mod edit;
mod error;
mod extract;
mod files;
#[doc(hidden)]
pub mod fuzzing;
mod input;
mod launch;
mod log;
mod page;
mod protocol;
mod roots;
mod storage;
mod tabs;
mod verify;

pub use backend::{check_url, CdpBackend};
pub use config::CdpConfig;
pub use doctor::CdpDoctor;
pub use error::CdpError;

/// Raw CDP access for the benchmark program (`examples/bench_page.rs`), which compares the
/// walker with `Accessibility.getFullAXTree` on the same connection. Not a stable API.
#[doc(hidden)]
pub mod bench {
    use std::time::Instant;

    use uidriver_core::{Deadline, RootInfo};

    use crate::protocol::GetFullAxTree;
    use crate::roots::parse_key;
    use crate::CdpBackend;

    async fn page(
        backend: &CdpBackend,
        root: &RootInfo,
        deadline: Deadline,
    ) -> uidriver_core::Result<std::sync::Arc<crate::page::Page>> {
        let (bid, tid) = parse_key(&root.key).unwrap_or_default();
        let browser = backend
            .browsers_for_bench()
            .into_iter()
            .find(|b| b.id == bid)
            .ok_or_else(|| uidriver_core::Error::internal("no browser"))?;
        Ok(browser.page(tid, deadline).await?)
    }

    /// The walker's source: an expression whose value is `walk({max, root})`.
    pub const WALKER_JS: &str = crate::page::WALKER_JS;

    /// Runs any command on a page: (milliseconds until the reply arrived, reply bytes, the
    /// reply decoded when `decode`).
    pub async fn raw(
        backend: &CdpBackend,
        root: &RootInfo,
        method: &'static str,
        params: &serde_json::Value,
        decode: bool,
        deadline: Deadline,
    ) -> uidriver_core::Result<(f64, usize, serde_json::Value)> {
        let page = page(backend, root, deadline).await?;
        let t = Instant::now();
        let raw = page.send_raw(method, params, deadline).await?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let text = raw.as_ref().map(|r| r.get()).unwrap_or("null");
        let v = if decode {
            serde_json::from_str(text).unwrap_or_default()
        } else {
            serde_json::Value::Null
        };
        Ok((ms, text.len(), v))
    }

    /// Runs `Accessibility.getFullAXTree` on a page: (milliseconds, node count, reply bytes).
    pub async fn full_ax_tree(
        backend: &CdpBackend,
        root: &RootInfo,
        deadline: Deadline,
    ) -> uidriver_core::Result<(f64, usize, usize)> {
        let page = page(backend, root, deadline).await?;
        let t = Instant::now();
        let raw = page
            .send_raw("Accessibility.getFullAXTree", &GetFullAxTree {}, deadline)
            .await?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let bytes = raw.as_ref().map(|r| r.get().len()).unwrap_or(0);
        let nodes = raw
            .as_ref()
            .and_then(|r| serde_json::from_str::<crate::protocol::FullAxTree>(r.get()).ok())
            .map(|t| t.nodes.len())
            .unwrap_or(0);
        Ok((ms, nodes, bytes))
    }
}
