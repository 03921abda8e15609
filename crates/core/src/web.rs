//! What a browser keeps beside its pages, as the port returns it: the files it downloaded
//! ([`Download`]) and the page's logs ([`LogEntry`]: console messages, page errors, network
//! requests). Recording them is a backend's job; showing them (fenced: their text is the page's,
//! not ours) is the service's.

use schemars::JsonSchema;
use serde::Serialize;

use crate::vocab::vocabulary;

vocabulary!(
    /// Which log of a page.
    LogKind {
        /// `console.*` calls: level, text, source.
        Console = "console",
        /// Network requests: method, URL, status, size, time.
        Network = "network",
        /// Uncaught exceptions and unhandled rejections.
        Errors = "errors",
    }
);

vocabulary!(
    /// Where a download is.
    DownloadState {
        /// Still receiving bytes.
        Running = "running",
        /// Every byte is in the file.
        Completed = "completed",
        /// Stopped before the end (by the page, the user or an error).
        Canceled = "canceled",
    }
);

/// One file a browser downloads, into its downloads directory.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Download {
    /// Order of starting in its browser (1, 2, …).
    pub seq: u64,
    /// Where it came from.
    pub url: String,
    /// The file (absolute).
    pub path: String,
    /// running, completed, canceled.
    pub state: DownloadState,
    /// Bytes received.
    pub bytes: u64,
    /// MIME type, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
}

/// One entry of a page's log. Which fields are set depends on the kind: console entries have
/// `level`, `text`, `source`; errors `text`, `source`; requests `method`, `url`, `status` (or
/// `failed`), `bytes`, `ms`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    /// Cursor (pass as since).
    pub seq: u64,
    /// log, info, warn, error, debug.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Message (page text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// url:line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// HTTP method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Request URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Why it failed (net::ERR_…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Bytes received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
}

impl LogEntry {
    /// One line for the text a model reads (the caller fences it: the text is the page's).
    pub fn line(&self) -> String {
        let mut s = format!("#{}", self.seq);
        if let Some(m) = &self.method {
            s.push_str(&format!(" {m}"));
        }
        if let Some(u) = &self.url {
            s.push_str(&format!(" {u}"));
        }
        if let Some(st) = self.status {
            s.push_str(&format!(" → {st}"));
        }
        if let Some(f) = &self.failed {
            s.push_str(&format!(" failed {f}"));
        }
        if let Some(b) = self.bytes {
            s.push_str(&format!(" {b} B"));
        }
        if let Some(ms) = self.ms {
            s.push_str(&format!(" {ms:.0} ms"));
        }
        if let Some(l) = &self.level {
            s.push_str(&format!(" [{l}]"));
        }
        if let Some(t) = &self.text {
            s.push_str(&format!(" {t}"));
        }
        if let Some(src) = &self.source {
            s.push_str(&format!(" ({src})"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_as_one_line_each() {
        let warn = LogEntry {
            seq: 3,
            level: Some("warn".into()),
            text: Some("low stock".into()),
            source: Some("http://h/a.js:4".into()),
            ..LogEntry::default()
        };
        assert_eq!(warn.line(), "#3 [warn] low stock (http://h/a.js:4)");
        let failed = LogEntry {
            seq: 4,
            method: Some("GET".into()),
            url: Some("http://127.0.0.1:1/x".into()),
            failed: Some("net::ERR_CONNECTION_REFUSED".into()),
            ms: Some(2.4),
            ..LogEntry::default()
        };
        assert_eq!(
            failed.line(),
            "#4 GET http://127.0.0.1:1/x failed net::ERR_CONNECTION_REFUSED 2 ms"
        );
        assert_eq!(LogKind::from_wire("errors"), Some(LogKind::Errors));
        assert_eq!(DownloadState::Completed.as_str(), "completed");
    }
}
