//! The downloads of one browser: saved into its downloads directory
//! (`Browser.setDownloadBehavior {allow, downloadPath, eventsEnabled}`), followed from the
//! browser-level `Browser.downloadWillBegin` / `downloadProgress` events by one listener task,
//! and waited for by the act that started one (`settle`) and by `wait_for {download}`.
//!
//! The MIME type is not in the download events: it is the `Network.responseReceived` of the
//! download's URL when a page session saw one (a navigation that became a download), else
//! guessed from the file's extension.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::watch;
use uidriver_core::{Deadline, Download, DownloadState};

use crate::client::Client;
use crate::error::CdpResult;
use crate::log::PageLog;
use crate::protocol::SetDownloadBehavior;

/// Downloads remembered per browser (the oldest are forgotten; their files stay).
const CAP: usize = 200;
/// Response MIME types remembered, by URL.
const MIMES: usize = 64;

#[derive(Default)]
struct Known {
    next: u64,
    list: VecDeque<(String, Download)>,
    mimes: VecDeque<(String, String)>,
}

/// The downloads of a browser (see the module doc).
pub struct Downloads {
    dir: Option<PathBuf>,
    // A watch: readers copy the latest list, waiters wake on every change.
    tx: watch::Sender<Known>,
}

impl Downloads {
    /// Sends the browser's downloads into `dir` (None: where the browser would put them; only
    /// the events are turned on) and starts following them.
    pub(crate) async fn start(
        client: &Arc<Client>,
        dir: Option<PathBuf>,
        deadline: Deadline,
    ) -> CdpResult<Arc<Downloads>> {
        let d = Arc::new(Downloads {
            dir: dir.clone(),
            tx: watch::Sender::new(Known::default()),
        });
        client.listen(None, &d, "download", |d, ev| {
            let params = ev.params.as_deref().map(RawValue::get).unwrap_or("{}");
            d.on_event(&ev.method, params);
            true
        });
        let cmd = SetDownloadBehavior {
            behavior: if dir.is_some() { "allow" } else { "default" },
            download_path: dir.map(|p| p.display().to_string()),
            events_enabled: true,
        };
        client.send(None, &cmd, deadline).await?;
        Ok(d)
    }

    fn on_event(&self, method: &str, params: &str) {
        match method {
            "Network.responseReceived" => {
                let Some(r) = crate::log::response_of(params) else {
                    return;
                };
                if r.mime_type.is_empty() {
                    return;
                }
                self.tx.send_modify(|k| {
                    if k.mimes.len() == MIMES {
                        k.mimes.pop_front();
                    }
                    k.mimes.push_back((r.url, r.mime_type));
                });
            }
            "Browser.downloadWillBegin" => {
                let Ok(b) = serde_json::from_str::<WillBegin>(params) else {
                    return;
                };
                let path = self
                    .dir
                    .as_deref()
                    .map(|d| d.join(&b.suggested_filename))
                    .unwrap_or_else(|| PathBuf::from(&b.suggested_filename));
                self.tx.send_modify(|k| {
                    k.next += 1;
                    let mime = k
                        .mimes
                        .iter()
                        .rev()
                        .find(|(u, _)| *u == b.url)
                        .map(|(_, m)| m.clone())
                        .or_else(|| guess_mime(&path).map(str::to_string));
                    if k.list.len() == CAP {
                        k.list.pop_front();
                    }
                    let d = Download {
                        seq: k.next,
                        url: b.url.chars().take(500).collect(),
                        path: path.display().to_string(),
                        state: DownloadState::Running,
                        bytes: 0,
                        mime,
                    };
                    k.list.push_back((b.guid, d));
                });
            }
            "Browser.downloadProgress" => {
                let Ok(p) = serde_json::from_str::<Progress>(params) else {
                    return;
                };
                self.tx.send_if_modified(|k| {
                    let Some((_, d)) = k.list.iter_mut().find(|(g, _)| *g == p.guid) else {
                        return false;
                    };
                    d.bytes = p.received_bytes.max(0.0) as u64;
                    d.state = match p.state.as_str() {
                        "completed" => DownloadState::Completed,
                        "canceled" => DownloadState::Canceled,
                        _ => DownloadState::Running,
                    };
                    // Chromium names the file when it completes (it may add " (1)" to a name
                    // taken already).
                    if let Some(f) = p.file_path.filter(|f| !f.is_empty()) {
                        d.path = f;
                    }
                    true
                });
            }
            _ => {}
        }
    }

    /// Every download remembered, oldest first.
    pub fn list(&self) -> Vec<Download> {
        self.tx
            .borrow()
            .list
            .iter()
            .map(|(_, d)| d.clone())
            .collect()
    }

    /// The highest `seq` so far (0: none yet).
    pub fn last(&self) -> u64 {
        self.tx.borrow().next
    }

    /// Waits until a download after `after` has begun and none of those is running, or the
    /// deadline; those downloads.
    pub async fn settle(&self, after: u64, deadline: Deadline) -> Vec<Download> {
        let mut rx = self.tx.subscribe();
        let done = rx.wait_for(|k| {
            k.next > after
                && !k
                    .list
                    .iter()
                    .any(|(_, d)| d.seq > after && d.state == DownloadState::Running)
        });
        let _ = tokio::time::timeout(deadline.remaining(), done).await;
        self.list().into_iter().filter(|d| d.seq > after).collect()
    }
}

/// Longest wait after a step for a navigation it started to end or turn into a download.
const NAVIGATION_WAIT: Duration = Duration::from_secs(1);
/// Longest wait after a step for the downloads it started to complete (the act then reports
/// them still running; `wait_for {download: true}` waits longer).
const SETTLE_WAIT: Duration = Duration::from_secs(5);

/// After an act's steps: when a navigation they started is still pending, waits (at most
/// [`NAVIGATION_WAIT`]) for it to end or become a download; then for the downloads begun
/// since `before` to complete (at most [`SETTLE_WAIT`]).
pub(crate) async fn after_act(
    downloads: &Downloads,
    log: Option<&PageLog>,
    before: u64,
    mark: u64,
    deadline: Deadline,
) {
    let nav = deadline.cap(NAVIGATION_WAIT);
    while downloads.last() <= before
        && log.is_some_and(|l| l.document_pending_after(mark))
        && !nav.expired()
    {
        tokio::time::sleep(Duration::from_millis(25).min(nav.remaining())).await;
    }
    if downloads.last() > before {
        downloads.settle(before, deadline.cap(SETTLE_WAIT)).await;
    }
}

/// A MIME type from a file's extension (the common ones; None for the rest).
fn guess_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "txt" => "text/plain",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "json" => "application/json",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "xml" => "application/xml",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        _ => return None,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WillBegin {
    guid: String,
    url: String,
    #[serde(default)]
    suggested_filename: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Progress {
    guid: String,
    #[serde(default)]
    received_bytes: f64,
    state: String,
    #[serde(default)]
    file_path: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_is_followed_from_its_start_to_its_file() {
        let d = Downloads {
            dir: Some(PathBuf::from("/tmp/dl")),
            tx: watch::Sender::new(Known::default()),
        };
        d.on_event(
            "Network.responseReceived",
            r#"{"requestId":"1","response":{"url":"http://h/r.bin","status":200,"mimeType":"application/x-thing"}}"#,
        );
        d.on_event(
            "Browser.downloadWillBegin",
            r#"{"guid":"g","url":"http://h/r.bin","suggestedFilename":"r.bin","frameId":"F"}"#,
        );
        assert_eq!(d.list()[0].state, DownloadState::Running);
        assert_eq!(d.list()[0].mime.as_deref(), Some("application/x-thing"));
        d.on_event(
            "Browser.downloadProgress",
            r#"{"guid":"g","totalBytes":9,"receivedBytes":9,"state":"completed","filePath":"/tmp/dl/r (1).bin"}"#,
        );
        let l = d.list();
        assert_eq!(
            (l[0].seq, l[0].state, l[0].bytes, l[0].path.as_str()),
            (1, DownloadState::Completed, 9, "/tmp/dl/r (1).bin")
        );
        assert_eq!(d.last(), 1);
        assert_eq!(guess_mime(Path::new("/a/B.CSV")), Some("text/csv"));
    }
}
