//! Live tests against a real headless Chromium (`/usr/lib/chromium/chromium`): fixture pages
//! served by a local HTTP server, and the Rust docs shipped with the toolchain. Each test has
//! a hard timeout, judges effects by an independent observation (the POST body the server
//! received, a value read through `evaluate`, a re-observation), and fails, saying
//! so, when Chromium is not installed. Those that start Chromium are ignored by a bare
//! `cargo test`; `scripts/test.sh` runs them with `--include-ignored`.
//!
//! Topics: `form` (every input kind, submit, exact POST body), `interact` (keys, expand,
//! scroll, hover, focus, read_text, scoped looks), `lifecycle` (several browsers, closed pages,
//! dead browsers), `page` (dynamic content,
//! overlays, iframes), `navigation` (navigate/back/forward/reload, schemes, evaluate, waits),
//! `rustdoc` (real pages nobody here wrote), `outline` (core integration: fold and search) and
//! `dialog` (alert, confirm, prompt: roots of their own, answered, the page never blocked),
//! `upload` (setFiles, multipart bytes), `regressions` (one test per fixed bug), `tabs` (popups and `target=_blank` pages as roots, new tabs, closing, the launch size).

mod support;

mod dialog;
mod form;
mod interact;
mod lifecycle;
mod navigation;
mod outline;
mod page;
mod regressions;
mod rustdoc;
mod tabs;
mod upload;
