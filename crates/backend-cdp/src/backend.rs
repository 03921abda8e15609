//! [`CdpBackend`]: the `Backend` and `BrowserControl` ports for Chromium. It keeps the browsers
//! it launched or attached to, finds the page behind a root key, and delegates: listing to
//! `roots.rs`, observing to `extract.rs`, acting to `act.rs`, page operations to `page.rs`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use uidriver_core::{
    ActRequest, Backend, BrowserControl, Deadline, Download, Error, ErrorCode, LaunchRequest,
    LogEntry, LogKind, Navigation, Node, ObserveRequest, RawImage, Result, RootInfo, Snapshot,
    State, StepReport, TextSlice, TextStyle,
};

use crate::browser::Browser;
use crate::config::CdpConfig;
use crate::dialog;
use crate::doctor::CdpDoctor;
use crate::downloads;
use crate::error::CdpError;
use crate::extract::{self, parse_handle};
use crate::launch::LaunchOptions;
use crate::page::{Page, AFTER_DIALOG, AFTER_INPUT};
use crate::protocol::CreateTarget;
use crate::roots::{self, parse_key, BACKEND};
use crate::storage;
use crate::tabs;

/// Chromium pages as roots, over one DevTools WebSocket per browser.
pub struct CdpBackend {
    config: CdpConfig,
    /// The environment check of this browser (the port's `doctor()`).
    doctor: CdpDoctor,
    // A std mutex: held only to copy out or push an Arc, never across an await.
    browsers: Mutex<Vec<Arc<Browser>>>,
}

impl CdpBackend {
    /// A backend with no browsers yet; `launch` (or attach) adds them.
    pub fn new(config: CdpConfig) -> Self {
        CdpBackend {
            doctor: CdpDoctor::new(config.clone()),
            config,
            browsers: Mutex::new(Vec::new()),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &CdpConfig {
        &self.config
    }

    /// Stops every browser this backend launched and forgets all browsers; browsers it only
    /// attached to keep running.
    pub async fn shutdown(&self) {
        let all: Vec<Arc<Browser>> = self
            .browsers
            .lock()
            .map(|mut b| b.drain(..).collect())
            .unwrap_or_default();
        for b in all {
            b.shutdown().await;
        }
    }

    pub(crate) fn browsers_for_bench(&self) -> Vec<Arc<Browser>> {
        self.browsers()
    }

    fn browsers(&self) -> Vec<Arc<Browser>> {
        self.browsers.lock().map(|b| b.clone()).unwrap_or_default()
    }

    /// The browser and page behind a root.
    async fn page(&self, root: &RootInfo, deadline: Deadline) -> Result<(Arc<Browser>, Arc<Page>)> {
        let (bid, tid) = parse_key(&root.key)
            .ok_or_else(|| Error::new(ErrorCode::RootNotFound, "not a browser page root"))?;
        let browser = self
            .browsers()
            .into_iter()
            .find(|b| b.id == bid)
            .ok_or_else(|| CdpError::NoSuchPage("its browser is no longer connected".into()))?;
        if let Some(why) = browser.closed_reason().await {
            return Err(Error::new(
                ErrorCode::TargetClosed,
                format!("the page is gone: {why}"),
            ));
        }
        let page = browser.page(tid, deadline).await.map_err(|e| {
            browser.forget(tid);
            Error::from(e)
        })?;
        Ok((browser, page))
    }

    /// The page's title as the browser has it now (a root's last known title may be an earlier
    /// page's: the one before a navigation); the last known one when the browser does not say.
    async fn title_now(
        browser: &Browser,
        page: &Page,
        root: &RootInfo,
        deadline: Deadline,
    ) -> String {
        let pages = browser.pages(deadline).await.unwrap_or_default();
        pages
            .into_iter()
            .find(|t| t.target_id == page.target_id)
            .map(|t| t.title)
            .unwrap_or_else(|| root.title.clone())
    }

    /// Maps a failure on a page, forgetting its session when the page is gone.
    fn page_error(browser: &Browser, page: &Page, e: CdpError) -> Error {
        if matches!(e, CdpError::TargetClosed(_)) {
            browser.forget(&page.target_id);
        }
        e.into()
    }

    fn headless_for(&self, req: &LaunchRequest) -> bool {
        let display = std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty());
        req.headless || self.config.headless == Some(true) || !display
    }
}

/// Accepts http, https and file URLs only.
pub fn check_url(url: &str) -> Result<()> {
    let (scheme, rest) = url.split_once(':').unwrap_or(("", ""));
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "https" if rest.starts_with("//") && rest.len() > 2 => Ok(()),
        "file" => Ok(()),
        _ => Err(Error::invalid(
            "url",
            "only http, https and file URLs can be opened",
        )),
    }
}

#[async_trait]
impl Backend for CdpBackend {
    fn name(&self) -> &'static str {
        BACKEND
    }

    async fn list_roots(&self, deadline: Deadline) -> Result<Vec<RootInfo>> {
        let mut out = Vec::new();
        for b in self.browsers() {
            if b.client.is_closed() {
                // Reaps a browser we launched that died, so it does not linger as a zombie.
                let _ = b.closed_reason().await;
                continue;
            }
            match roots::list(&b, deadline).await {
                Ok(r) => out.extend(r),
                // A listing cut short by the deadline is not "this browser has no pages": the
                // caller would take its pages for closed (the conformance suite's
                // `cdp_a_wait_that_runs_out_names_its_last_state` met `target_closed` so).
                Err(e @ CdpError::Timeout(_)) => return Err(e.into()),
                Err(e) => tracing::debug!(browser = %b.id, error = %e, "listing pages failed"),
            }
        }
        Ok(out)
    }

    async fn closed_reason(&self, root: &RootInfo) -> Option<String> {
        let (bid, _) = parse_key(&root.key)?;
        let browser = self.browsers().into_iter().find(|b| b.id == bid)?;
        browser.closed_reason().await
    }

    async fn observe(
        &self,
        root: &RootInfo,
        req: &ObserveRequest,
        deadline: Deadline,
    ) -> Result<Snapshot> {
        let (browser, page) = self.page(root, deadline).await?;
        if let Some(seq) = roots::dialog_seq(&root.key) {
            return match page.dialog().filter(|d| d.seq == seq) {
                Some(d) => Ok(dialog::snapshot(&d)),
                None => Err(Error::new(ErrorCode::TargetClosed, "the dialog closed")),
            };
        }
        // A page behind a dialog cannot be read; it is shown holding the dialog instead
        // (also when the dialog opened during the walk), under the page's title now.
        if let Some(d) = page.dialog() {
            let title = Self::title_now(&browser, &page, root, deadline).await;
            return Ok(dialog::page_snapshot(&title, &d));
        }
        match extract::observe(&page, browser.headless, None, req.max_nodes, deadline).await {
            Err(CdpError::Dialog(_)) if page.dialog().is_some() => {
                let d = page.dialog().ok_or_else(|| Error::internal("dialog"))?;
                let title = Self::title_now(&browser, &page, root, deadline).await;
                Ok(dialog::page_snapshot(&title, &d))
            }
            r => r.map_err(|e| Self::page_error(&browser, &page, e)),
        }
    }

    async fn observe_region(
        &self,
        root: &RootInfo,
        state: &State,
        node: usize,
        req: &ObserveRequest,
        deadline: Deadline,
    ) -> Result<Snapshot> {
        let n = state
            .snapshot
            .nodes
            .get(node)
            .ok_or_else(|| Error::invalid("node", "not a node of the state"))?;
        let handle = parse_handle(&n.handle)
            .ok_or_else(|| Error::new(ErrorCode::StaleRef, "not a browser element"))?;
        let (browser, page) = self.page(root, deadline).await?;
        extract::observe(
            &page,
            browser.headless,
            Some(handle),
            req.max_nodes,
            deadline,
        )
        .await
        .map_err(|e| Self::page_error(&browser, &page, e))
    }

    async fn act(&self, req: ActRequest<'_>, deadline: Deadline) -> Result<Vec<StepReport>> {
        let (browser, page) = self.page(req.root, deadline).await?;
        // A navigation the steps start is waited for, so the successor shows where they led.
        let navigation = page.watch_navigation();
        if dialog::wants(&page, &req) {
            let reports = dialog::act(&page, &req, deadline).await?;
            navigation.settle(AFTER_DIALOG, deadline).await;
            return Ok(reports);
        }
        // The pages before the steps, so a page they open is waited for until it loaded: the
        // caller's listing right after then shows it with its title.
        let openings = tabs::Openings::watch(&browser, deadline).await;
        // Downloads the steps start are waited for too, so the caller can report them.
        let downloads_before = browser.downloads.as_ref().map(|d| d.last());
        let requests_before = page.log().map(|l| l.mark()).unwrap_or(0);
        let reports = crate::act::run(&page, browser.headless, &req, deadline).await?;
        navigation.settle(AFTER_INPUT, deadline).await;
        openings.settle(&browser, &page, deadline).await;
        if let (Some(d), Some(before)) = (&browser.downloads, downloads_before) {
            downloads::after_act(d, page.log(), before, requests_before, deadline).await;
        }
        Ok(reports)
    }

    async fn close_root(&self, root: &RootInfo, deadline: Deadline) -> Result<()> {
        if roots::dialog_seq(&root.key).is_some() {
            return Err(
                Error::invalid("root", "a JavaScript dialog is answered, not closed")
                    .with_hint("observe_ui it and press its OK or Cancel button with act_ui"),
            );
        }
        let (browser, page) = self.page(root, deadline).await?;
        tabs::close(&browser, &page, deadline)
            .await
            .map_err(|e| Self::page_error(&browser, &page, e))
    }

    async fn read_text(
        &self,
        root: &RootInfo,
        node: &Node,
        start: u32,
        end: u32,
        deadline: Deadline,
    ) -> Result<TextSlice> {
        let (browser, page) = self.page(root, deadline).await?;
        if dialog::is_handle(&node.handle) {
            let full = dialog::text_of(&page, node)?;
            return Ok(TextSlice::of(&full, start, end));
        }
        let (nonce, id) = parse_handle(&node.handle)
            .ok_or_else(|| Error::new(ErrorCode::StaleRef, "not a browser element"))?;
        // A text run's text is the node's own name; an element's is read live, with its
        // styled runs.
        let (full, runs): (String, Vec<TextStyle>) = if node
            .handle
            .rsplit(':')
            .next()
            .is_some_and(|s| s.contains('.'))
        {
            (node.name.text().unwrap_or_default().to_string(), Vec::new())
        } else {
            // An element inside a cross-origin frame is read in that frame's world; a frame
            // that went away makes the ref stale, not the page closed.
            let frame = page.doc_page(nonce);
            let p = frame.as_deref().unwrap_or(&page);
            let stale = || Error::new(ErrorCode::StaleRef, "the element is no longer in the page");
            let obj = match p.element(nonce, id, deadline).await {
                Ok(o) => o.ok_or_else(stale)?,
                Err(CdpError::TargetClosed(_)) if frame.is_some() => return Err(stale()),
                Err(e) => return Err(Self::page_error(&browser, &page, e)),
            };
            let v = p.call_on(&obj, READ_TEXT_JS, vec![], deadline).await;
            p.release(&obj).await;
            styled_text(&v.map_err(|e| Self::page_error(&browser, &page, e))?)
        };
        Ok(TextSlice::of_styled(&full, start, end, &runs))
    }

    async fn wait_change(&self, root: &RootInfo, deadline: Deadline) -> Result<()> {
        let (browser, page) = self.page(root, deadline).await?;
        page.wait_change(deadline)
            .await
            .map_err(|e| Self::page_error(&browser, &page, e))
    }

    async fn capture(&self, root: &RootInfo, deadline: Deadline) -> Result<RawImage> {
        let (browser, page) = self.page(root, deadline).await?;
        crate::capture::capture(&page, browser.headless, deadline)
            .await
            .map_err(|e| Self::page_error(&browser, &page, e))
    }

    fn browser(&self) -> Option<&dyn BrowserControl> {
        Some(self)
    }

    fn doctor(&self) -> Option<&dyn uidriver_core::Doctor> {
        Some(&self.doctor)
    }
}

/// An element's full text: a field's value (passwords redacted), else its rendered text.
const READ_TEXT_JS: &str = include_str!("js/read_text.js");

/// The text and styled runs `read_text.js` answers (`{text, runs: [[start, end, [style]]]}`);
/// a malformed run is left out, not trusted.
fn styled_text(v: &serde_json::Value) -> (String, Vec<TextStyle>) {
    let text = v["text"].as_str().unwrap_or_default().to_string();
    let runs = v["runs"]
        .as_array()
        .map(|runs| {
            runs.iter()
                .filter_map(|r| {
                    let start = u32::try_from(r[0].as_u64()?).ok()?;
                    let end = u32::try_from(r[1].as_u64()?).ok()?;
                    let style: Vec<String> = r[2]
                        .as_array()?
                        .iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect();
                    (start < end && !style.is_empty()).then_some(TextStyle { start, end, style })
                })
                .collect()
        })
        .unwrap_or_default();
    (text, runs)
}

#[async_trait]
impl BrowserControl for CdpBackend {
    async fn launch(&self, req: LaunchRequest, deadline: Deadline) -> Result<Vec<RootInfo>> {
        if let Some(u) = &req.url {
            check_url(u)?;
        }
        if let Some(state) = &req.storage_state {
            storage::check(state)
                .map_err(|e| Error::invalid("storageState", format!("the file: {e}")))?;
        }
        let browser = match &req.endpoint {
            Some(ep) => Browser::attach(ep, req.downloads_dir.clone(), deadline).await?,
            None => {
                let headless = self.headless_for(&req);
                let opts = LaunchOptions {
                    headless,
                    accessibility: self.config.renderer_accessibility.unwrap_or(!headless),
                    size: req.size.unwrap_or(crate::launch::DEFAULT_SIZE),
                    profile_dir: req.profile_dir.clone(),
                    downloads_dir: req.downloads_dir.clone(),
                };
                Browser::launch(&self.config.chromium, &opts, deadline).await?
            }
        };
        let browser = Arc::new(browser);
        if let Ok(mut b) = self.browsers.lock() {
            b.push(browser.clone());
        }
        tracing::info!(browser = %browser.id, launched = req.endpoint.is_none(), "browser connected");
        if let Some(state) = &req.storage_state {
            storage::load(&browser, state, deadline).await?;
        }
        if req.url.is_some() || req.size.is_some() {
            let pages = browser.pages(deadline).await?;
            let target = match pages.first() {
                Some(t) => t.target_id.clone(),
                None => {
                    browser
                        .client
                        .send(None, &CreateTarget { url: "about:blank" }, deadline)
                        .await?
                        .target_id
                }
            };
            if let Some(url) = &req.url {
                let page = browser.page(&target, deadline).await?;
                page.navigate(&Navigation::Url(url.clone()), deadline)
                    .await?;
            }
            // Headed, the window holds the tab strip and toolbar too: resize it around the
            // viewport asked for (headless, `--window-size` alone gives it).
            if let Some(size) = req.size {
                tabs::fit_viewport(&browser, &target, size, deadline).await?;
            }
        }
        Ok(roots::list(&browser, deadline).await?)
    }

    async fn new_page(
        &self,
        near: Option<&RootInfo>,
        url: &str,
        deadline: Deadline,
    ) -> Result<RootInfo> {
        check_url(url)?;
        let browser = match near {
            Some(root) => self.page(root, deadline).await?.0,
            None => self
                .browsers()
                .into_iter()
                .find(|b| !b.client.is_closed())
                .ok_or_else(|| {
                    Error::new(ErrorCode::RootNotFound, "no browser is connected")
                        .with_hint("launch_browser first")
                })?,
        };
        let target = tabs::open(&browser, url, deadline).await?;
        let listed = roots::list(&browser, deadline.cap(Duration::from_secs(5))).await?;
        let key = roots::key(&browser.id, &target);
        listed
            .into_iter()
            .find(|r| r.key == key)
            .ok_or_else(|| Error::new(ErrorCode::TargetClosed, "the new page closed at once"))
    }

    async fn navigate(
        &self,
        root: &RootInfo,
        nav: Navigation,
        deadline: Deadline,
    ) -> Result<RootInfo> {
        if let Navigation::Url(u) = &nav {
            check_url(u)?;
        }
        let (browser, page) = self.page(root, deadline).await?;
        page.navigate(&nav, deadline)
            .await
            .map_err(|e| Self::page_error(&browser, &page, e))?;
        let listed = roots::list(&browser, deadline.cap(Duration::from_secs(5))).await?;
        listed
            .into_iter()
            .find(|r| r.key == root.key)
            .ok_or_else(|| Error::new(ErrorCode::TargetClosed, "the page closed after navigating"))
    }

    async fn downloads(&self, root: &RootInfo, deadline: Deadline) -> Result<Vec<Download>> {
        let (browser, _) = self.page(root, deadline).await?;
        Ok(browser
            .downloads
            .as_ref()
            .map(|d| d.list())
            .unwrap_or_default())
    }

    async fn settle_downloads(
        &self,
        root: &RootInfo,
        after: u64,
        deadline: Deadline,
    ) -> Result<Vec<Download>> {
        let (browser, _) = self.page(root, deadline).await?;
        let d = browser.downloads.as_ref().ok_or_else(|| {
            Error::unsupported("this browser does not report downloads (attached, too old?)")
        })?;
        Ok(d.settle(after, deadline).await)
    }

    async fn log(
        &self,
        root: &RootInfo,
        kind: LogKind,
        since: u64,
        deadline: Deadline,
    ) -> Result<Vec<LogEntry>> {
        let (_, page) = self.page(root, deadline).await?;
        Ok(page
            .log()
            .map(|l| l.entries(kind, since))
            .unwrap_or_default())
    }

    async fn storage_state(&self, root: &RootInfo, deadline: Deadline) -> Result<Value> {
        let (browser, page) = self.page(root, deadline).await?;
        storage::save(&browser, &page, deadline)
            .await
            .map_err(|e| Self::page_error(&browser, &page, e))
    }

    // Without it `Service::shutdown` stopped nothing: the browsers lived until the backend was
    // dropped, and a persistent profile stayed locked for the next launch on it.
    async fn shutdown(&self) {
        CdpBackend::shutdown(self).await
    }

    async fn print_pdf(&self, root: &RootInfo, deadline: Deadline) -> Result<Vec<u8>> {
        let (browser, page) = self.page(root, deadline).await?;
        crate::capture::print_pdf(&page, deadline)
            .await
            .map_err(|e| Self::page_error(&browser, &page, e))
    }

    async fn evaluate(
        &self,
        root: &RootInfo,
        expression: &str,
        deadline: Deadline,
    ) -> Result<Value> {
        let (browser, page) = self.page(root, deadline).await?;
        let v = page
            .evaluate(expression, deadline)
            .await
            .map_err(|e| Self::page_error(&browser, &page, e))?;
        let size = serde_json::to_string(&v)
            .map(|s| s.len())
            .unwrap_or(usize::MAX);
        if size > self.config.max_evaluate_bytes {
            return Err(Error::invalid(
                "expression",
                format!(
                    "the result is {size} bytes of JSON, above the {} byte cap",
                    self.config.max_evaluate_bytes
                ),
            )
            .with_hint("Return less: pick fields, or slice strings and arrays (e.g. JSON.stringify(x).slice(0, 2000)).")
            .delivered(uidriver_core::Delivery::Delivered));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_and_file_urls() {
        assert!(check_url("http://127.0.0.1:8000/x").is_ok());
        assert!(check_url("HTTPS://example.org").is_ok());
        assert!(check_url("file:///tmp/a.html").is_ok());
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "chrome://settings",
            "about:blank",
            "ftp://x",
            "http:x",
            "nope",
        ] {
            assert_eq!(
                check_url(bad).unwrap_err().code,
                ErrorCode::InvalidArgs,
                "{bad}"
            );
        }
    }
}
