//! Pages coming and going at the caller's or a page's request: a page opened by a step
//! (`window.open`, a `target=_blank` link, a new-tab shortcut) waited for until it loaded, so
//! the act that opened it lists it with its title; a new tab opened by URL; a page closed as its
//! tab's close button would; the viewport sized by resizing the window around it. Listing
//! pages as roots is `roots.rs`; what happens inside one is `page.rs`.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use tokio::sync::broadcast::{self, error::TryRecvError};
use uidriver_core::{Deadline, Navigation};

use crate::browser::Browser;
use crate::error::{CdpError, CdpResult};
use crate::page::Page;
use crate::protocol::{
    CloseTarget, CreateTarget, Event, GetWindowForTarget, PageClose, SetWindowBounds, TargetInfo,
    WindowSize,
};

/// Longest wait for a page a step opened to finish loading: a popup left at `about:blank`
/// (`window.open()` with no URL) never "loads", and the act must not wait its whole deadline.
const OPENED_LOAD_WAIT: Duration = Duration::from_secs(3);
/// Longest wait for the reply to `Page.close`.
const CLOSE_REPLY_WAIT: Duration = Duration::from_secs(3);
/// How often a loading page is asked whether it is done.
const POLL: Duration = Duration::from_millis(50);

/// Watches for pages a step opens: subscribed before the steps run, so no opening is missed.
pub(crate) struct Openings {
    events: broadcast::Receiver<Arc<Event>>,
    before: Vec<TargetInfo>,
}

impl Openings {
    /// Starts watching; `before` is the browser's pages now.
    pub(crate) async fn watch(browser: &Browser, deadline: Deadline) -> Openings {
        let events = browser.client.events();
        let before = browser.pages(deadline).await.unwrap_or_default();
        Openings { events, before }
    }

    /// Waits (at most [`OPENED_LOAD_WAIT`]) until every page the steps opened is listed and
    /// finished loading, so its title is its document's. A `target=_blank` link's page is
    /// created after the click returns (the browser opens it as a navigation), so the page's
    /// `Page.windowOpen` events say how many to wait for. A page showing a JavaScript dialog
    /// counts as loaded (its dialog is listed beside it).
    pub(crate) async fn settle(mut self, browser: &Browser, opener: &Page, deadline: Deadline) {
        let deadline = deadline.cap(OPENED_LOAD_WAIT);
        let mut announced = 0;
        loop {
            match self.events.try_recv() {
                Ok(ev) => {
                    if ev.method == "Page.windowOpen"
                        && ev.session_id.as_deref() == Some(opener.session())
                    {
                        announced += 1;
                    }
                }
                // Missed events may have announced one: look at what is listed, no more.
                Err(TryRecvError::Lagged(_)) => continue,
                Err(_) => break,
            }
        }
        let opened = loop {
            let Ok(now) = browser.pages(deadline).await else {
                return;
            };
            let opened: Vec<TargetInfo> = now
                .into_iter()
                .filter(|t| !self.before.iter().any(|b| b.target_id == t.target_id))
                .collect();
            if opened.len() >= announced || deadline.expired() {
                break opened;
            }
            tokio::time::sleep(POLL.min(deadline.remaining())).await;
        };
        join_all(
            opened
                .iter()
                .map(|t| loaded(browser, &t.target_id, deadline)),
        )
        .await;
    }
}

/// Whether a page finished loading before the deadline (an initial `about:blank` that is
/// about to be replaced does not count).
async fn loaded(browser: &Browser, target_id: &str, deadline: Deadline) -> bool {
    let Ok(page) = browser.page(target_id, deadline).await else {
        return false;
    };
    while !deadline.expired() {
        if page.dialog().is_some() {
            return true;
        }
        let v = page
            .eval_value(
                "[document.readyState, location.href]",
                deadline.cap(Duration::from_millis(500)),
            )
            .await;
        if let Ok(v) = v {
            let state = v.get(0).and_then(|s| s.as_str()).unwrap_or_default();
            let href = v.get(1).and_then(|s| s.as_str()).unwrap_or_default();
            if state == "complete" && href != "about:blank" {
                return true;
            }
        }
        tokio::time::sleep(POLL.min(deadline.remaining())).await;
    }
    false
}

/// Opens a new tab at `url` and waits for its load; its target id.
pub(crate) async fn open(browser: &Browser, url: &str, deadline: Deadline) -> CdpResult<String> {
    // Created blank, then navigated by its own session, so the load wait cannot miss the
    // load event (it may fire before a session created afterwards listens).
    let created = browser
        .client
        .send(None, &CreateTarget { url: "about:blank" }, deadline)
        .await?;
    let page = browser.page(&created.target_id, deadline).await?;
    page.navigate(&Navigation::Url(url.to_string()), deadline)
        .await?;
    Ok(created.target_id)
}

/// Asks a page to close as its tab's close button would (`Page.close`): its `beforeunload`
/// handler runs, and may keep it open behind a "leave site?" dialog (listed as a root of its
/// own). A browser without `Page.close` is asked with `Target.closeTarget`. Whether the page
/// went is for the caller to list.
pub(crate) async fn close(browser: &Browser, page: &Page, deadline: Deadline) -> CdpResult<()> {
    let deadline = deadline.cap(CLOSE_REPLY_WAIT);
    match page.send(&PageClose {}, deadline).await {
        // The page went before it answered, or a dialog opened and holds the reply.
        Ok(_) | Err(CdpError::TargetClosed(_)) | Err(CdpError::Dialog(_)) => Ok(()),
        Err(CdpError::Protocol { .. }) => {
            let target_id = &page.target_id;
            browser
                .client
                .send(None, &CloseTarget { target_id }, deadline)
                .await
                .map(drop)
                .map_err(|e| match e {
                    CdpError::Protocol { message, .. } => CdpError::TargetClosed(message),
                    e => e,
                })
        }
        Err(e) => Err(e),
    }
}

/// Resizes the window of a page until its viewport is `size` CSS pixels (the window's frame,
/// tab strip and toolbar are measured, not assumed: they differ between headed and headless
/// and between window managers). Returns the viewport reached.
pub(crate) async fn fit_viewport(
    browser: &Browser,
    target_id: &str,
    size: (u32, u32),
    deadline: Deadline,
) -> CdpResult<(i64, i64)> {
    let page = browser.page(target_id, deadline).await?;
    let want = (i64::from(size.0), i64::from(size.1));
    let mut seen = (0, 0);
    // A resize is applied asynchronously, and a window manager may round it: a few rounds,
    // the last only measuring.
    for round in 0..4 {
        let v = page
            .eval_value("[innerWidth, innerHeight]", deadline)
            .await?;
        seen = (
            v.get(0).and_then(|x| x.as_i64()).unwrap_or(0),
            v.get(1).and_then(|x| x.as_i64()).unwrap_or(0),
        );
        if seen == want || round == 3 {
            break;
        }
        let w = browser
            .client
            .send(None, &GetWindowForTarget { target_id }, deadline)
            .await?;
        let (Some(ow), Some(oh)) = (w.bounds.width, w.bounds.height) else {
            break;
        };
        let bounds = WindowSize {
            width: i64::from(ow) + want.0 - seen.0,
            height: i64::from(oh) + want.1 - seen.1,
        };
        let cmd = SetWindowBounds {
            window_id: w.window_id,
            bounds,
        };
        browser.client.send(None, &cmd, deadline).await?;
        tokio::time::sleep(Duration::from_millis(100).min(deadline.remaining())).await;
    }
    if seen != want {
        tracing::warn!(?seen, ?want, "the viewport could not be sized exactly");
    }
    Ok(seen)
}
