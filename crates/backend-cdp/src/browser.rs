//! One browser this backend talks to: its connection, whether we launched it (and so may stop
//! it), and the page sessions attached over its socket. Listing its pages as roots is
//! `roots.rs`; what is done inside a page is `page.rs`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use uidriver_core::Deadline;

use crate::autoattach::{self, Pages};
use crate::client::Client;
use crate::dialog_state::{Dialogs, Peers};
use crate::downloads::Downloads;
use crate::error::{CdpError, CdpResult};
use crate::launch::{resolve_endpoint, LaunchOptions, Launched};
use crate::page::Page;
use crate::protocol::{
    AttachToTarget, CloseBrowser, GetProcessInfo, GetTargets, GetVersion, TargetInfo,
};

/// A connected browser.
pub struct Browser {
    /// The browser's id (the last segment of its WebSocket path); part of every root key.
    pub id: String,
    /// The socket.
    pub client: Arc<Client>,
    /// Whether it runs without windows (known when launched; from `Browser.getVersion` when attached).
    pub headless: bool,
    /// The browser process, when known (always for launched ones).
    pub pid: Option<u32>,
    /// Set when this backend started the browser; only then may it stop it.
    launched: tokio::sync::Mutex<Option<Launched>>,
    // A std mutex: held only to look up or insert a session, never across an await. Shared
    // with the auto-attach listener (`autoattach.rs`).
    pages: Pages,
    /// The dialogs open in any of its pages (see `dialog_state.rs`).
    peers: Arc<Peers>,
    /// Its downloads (see `downloads.rs`); None for an attached browser without the events.
    pub downloads: Option<Arc<Downloads>>,
    // Serializes attaching so two callers do not open two sessions for one page.
    attaching: tokio::sync::Mutex<()>,
}

impl Browser {
    /// Launches Chromium and connects to it, its downloads going to its downloads directory.
    pub async fn launch(
        chromium: &Path,
        opts: &LaunchOptions,
        deadline: Deadline,
    ) -> CdpResult<Browser> {
        let (mut launched, url) = Launched::start(chromium, opts, deadline).await?;
        let connected = async {
            let client = Arc::new(Client::connect(&url, deadline).await?);
            let dir = launched.downloads_dir().to_path_buf();
            let downloads = Downloads::start(&client, Some(dir), deadline).await?;
            Ok::<_, CdpError>((client, downloads))
        };
        match connected.await {
            Ok((client, downloads)) => {
                let pid = Some(launched.pid());
                let b = Browser::new(
                    url_id(&url),
                    client,
                    opts.headless,
                    pid,
                    Some(launched),
                    Some(downloads),
                );
                b.auto_attach(deadline).await;
                Ok(b)
            }
            Err(e) => {
                launched.stop().await;
                Err(e)
            }
        }
    }

    /// Attaches to a browser someone else started (`ws://…` or `http://host:port`); its
    /// downloads go where it puts them unless `downloads_dir` says otherwise.
    pub async fn attach(
        endpoint: &str,
        downloads_dir: Option<PathBuf>,
        deadline: Deadline,
    ) -> CdpResult<Browser> {
        let url = resolve_endpoint(endpoint, deadline).await?;
        let client = Client::connect(&url, deadline).await?;
        let version = client.send(None, &GetVersion {}, deadline).await?;
        let headless = version.product.starts_with("HeadlessChrome");
        // The pid lets the service pair a headed page with its X11 window; optional.
        let pid = client
            .send(None, &GetProcessInfo {}, deadline)
            .await
            .ok()
            .and_then(|p| p.process_info.into_iter().find(|p| p.kind == "browser"))
            .map(|p| p.id);
        let client = Arc::new(client);
        // Followed without moving them, unless asked; an older browser without the events
        // still attaches.
        let downloads = match Downloads::start(&client, downloads_dir.clone(), deadline).await {
            Ok(d) => Some(d),
            Err(e) if downloads_dir.is_none() => {
                tracing::debug!(error = %e, "downloads not followed");
                None
            }
            Err(e) => return Err(e),
        };
        let b = Browser::new(url_id(&url), client, headless, pid, None, downloads);
        b.auto_attach(deadline).await;
        Ok(b)
    }

    /// Attaches new pages as they are created (see `autoattach.rs`); without it (an older
    /// browser) pages are attached on first use only.
    async fn auto_attach(&self, deadline: Deadline) {
        if let Err(e) = autoattach::start(&self.client, &self.pages, &self.peers, deadline).await {
            tracing::debug!(browser = %self.id, error = %e, "no auto-attach");
        }
    }

    fn new(
        id: String,
        client: Arc<Client>,
        headless: bool,
        pid: Option<u32>,
        launched: Option<Launched>,
        downloads: Option<Arc<Downloads>>,
    ) -> Self {
        Browser {
            id,
            client,
            downloads,
            headless,
            pid,
            launched: tokio::sync::Mutex::new(launched),
            pages: Pages::default(),
            peers: Arc::default(),
            attaching: tokio::sync::Mutex::new(()),
        }
    }

    /// The page targets, in the browser's order (tabs and windows; not iframes, workers or
    /// browser UI such as the omnibox popup).
    pub async fn pages(&self, deadline: Deadline) -> CdpResult<Vec<TargetInfo>> {
        let t = self.client.send(None, &GetTargets {}, deadline).await?;
        Ok(t.target_infos
            .into_iter()
            .filter(|t| t.kind == "page")
            .collect())
    }

    /// The session of a page, attaching on first use.
    pub async fn page(&self, target_id: &str, deadline: Deadline) -> CdpResult<Arc<Page>> {
        if let Some(p) = self.cached(target_id) {
            return Ok(p);
        }
        let _guard = self.attaching.lock().await;
        if let Some(p) = self.cached(target_id) {
            return Ok(p);
        }
        let attach = AttachToTarget {
            target_id,
            flatten: true,
        };
        let attached = self
            .client
            .send(None, &attach, deadline)
            .await
            .map_err(|e| match e {
                CdpError::Protocol { message, .. } => CdpError::TargetClosed(message),
                e => e,
            })?;
        // The dialog listener starts before Page.enable, so no dialog event is missed.
        let dialogs = Dialogs::start(&self.client, &attached.session_id, &self.peers);
        let page = Arc::new(
            Page::new(self.client.clone(), target_id, attached.session_id, dialogs).with_log(),
        );
        page.enable(deadline).await?;
        // The auto-attach listener may have kept a session for the page meanwhile.
        let kept = self.pages.lock().map(|mut m| {
            m.entry(target_id.to_string())
                .or_insert(page.clone())
                .clone()
        });
        Ok(kept.unwrap_or(page))
    }

    fn cached(&self, target_id: &str) -> Option<Arc<Page>> {
        self.pages.lock().ok()?.get(target_id).cloned()
    }

    /// Forgets a page session (after its target closed).
    pub fn forget(&self, target_id: &str) {
        if let Ok(mut m) = self.pages.lock() {
            m.remove(target_id);
        }
    }

    /// Why this browser's socket closed, once it has: how the process we launched ended
    /// (reaping it), or that the DevTools connection closed for one we only attached to.
    pub async fn closed_reason(&self) -> Option<String> {
        if !self.client.is_closed() {
            return None;
        }
        let mut launched = self.launched.lock().await;
        let Some(l) = launched.as_mut() else {
            return Some("the DevTools connection to its browser closed".into());
        };
        // The socket closes a moment before the kernel reports the exit.
        for _ in 0..20 {
            if let Some(status) = l.exited().or_else(|| l.exit_status()) {
                return Some(format!("its browser (pid {}) exited ({status})", l.pid()));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Some(format!(
            "its browser (pid {}) closed the DevTools connection",
            l.pid()
        ))
    }

    /// Stops the browser if this backend launched it (politely first: `Browser.close`, then
    /// SIGTERM, then SIGKILL); a browser we only attached to is left running.
    pub async fn shutdown(&self) {
        let mut launched = self.launched.lock().await;
        if let Some(l) = launched.as_mut() {
            let d = Deadline::after(Duration::from_secs(2));
            let _ = self.client.send(None, &CloseBrowser {}, d).await;
            l.stop().await;
        }
        *launched = None;
    }
}

/// The browser id: the last path segment of `ws://host:port/devtools/browser/<id>`.
fn url_id(url: &str) -> String {
    url.rsplit('/').next().unwrap_or(url).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn browser_id_is_the_last_segment() {
        assert_eq!(
            super::url_id("ws://127.0.0.1:1/devtools/browser/ab-cd"),
            "ab-cd"
        );
    }
}
