//! The logs of one page session, kept from the moment it is attached: console calls
//! (`Runtime.consoleAPICalled`), uncaught exceptions (`Runtime.exceptionThrown`) and network
//! requests (`Network.*`), each in a bounded ring ([`CAP`] entries: a chatty page loses its
//! oldest, never memory). One listener task per page reads the browser's event stream, as
//! `dialog_state.rs` does; the domains are turned on by `Page::enable`. Showing the entries (fenced:
//! their text is the page's) is the service's job.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use uidriver_core::{LogEntry, LogKind};

use crate::client::Client;
use crate::protocol::Event;

/// Entries kept per kind and page.
pub const CAP: usize = 500;
/// Longest message or URL kept, in characters.
const TEXT_CAP: usize = 500;
/// Requests in flight remembered per page (a page that never finishes its requests must not
/// grow the map without end).
const PENDING_CAP: usize = 1000;

/// A request seen starting, waiting for its end.
struct Pending {
    /// The value of `Rings::started` when it began.
    order: u64,
    /// A document (a navigation, which may turn into a download).
    document: bool,
    method: String,
    url: String,
    start: f64,
    status: Option<u16>,
}

#[derive(Default)]
struct Rings {
    next: u64,
    /// Requests begun so far.
    started: u64,
    console: VecDeque<LogEntry>,
    errors: VecDeque<LogEntry>,
    network: VecDeque<LogEntry>,
    pending: HashMap<String, Pending>,
}

impl Rings {
    fn push(&mut self, kind: LogKind, mut e: LogEntry) {
        self.next += 1;
        e.seq = self.next;
        let ring = match kind {
            LogKind::Console => &mut self.console,
            LogKind::Errors => &mut self.errors,
            LogKind::Network => &mut self.network,
        };
        if ring.len() == CAP {
            ring.pop_front();
        }
        ring.push_back(e);
    }
}

/// The logs of a page (see the module doc).
pub struct PageLog {
    // A std mutex: held to push or copy entries, never across an await.
    rings: Mutex<Rings>,
}

impl PageLog {
    /// The log of a session and its listener task, which ends when the log is dropped or the
    /// connection closes.
    pub(crate) fn start(client: &Client, session: &str) -> Arc<PageLog> {
        let log = Arc::new(PageLog {
            rings: Mutex::new(Rings::default()),
        });
        client.listen(Some(session), &log, "page log", |log, ev| {
            if ev.method == "Inspector.detached" {
                return false;
            }
            log.on_event(ev);
            true
        });
        log
    }

    /// The entries of one kind after `since`, oldest first.
    pub fn entries(&self, kind: LogKind, since: u64) -> Vec<LogEntry> {
        let Ok(r) = self.rings.lock() else {
            return Vec::new();
        };
        let ring = match kind {
            LogKind::Console => &r.console,
            LogKind::Errors => &r.errors,
            LogKind::Network => &r.network,
        };
        ring.iter().filter(|e| e.seq > since).cloned().collect()
    }

    /// A mark for [`PageLog::document_pending_after`]: the requests begun so far.
    pub fn mark(&self) -> u64 {
        self.rings.lock().map(|r| r.started).unwrap_or(0)
    }

    /// Whether a document request (a navigation) begun after `mark` has not ended yet.
    pub fn document_pending_after(&self, mark: u64) -> bool {
        self.rings
            .lock()
            .map(|r| r.pending.values().any(|p| p.document && p.order > mark))
            .unwrap_or(false)
    }

    fn on_event(&self, ev: &Event) {
        let params = ev.params.as_deref().map(RawValue::get).unwrap_or("{}");
        let Ok(mut r) = self.rings.lock() else {
            return;
        };
        match ev.method.as_str() {
            "Runtime.consoleAPICalled" => {
                if let Ok(c) = serde_json::from_str::<ConsoleCalled>(params) {
                    r.push(LogKind::Console, c.entry());
                }
            }
            "Runtime.exceptionThrown" => {
                if let Ok(x) = serde_json::from_str::<ExceptionThrown>(params) {
                    r.push(LogKind::Errors, x.exception_details.entry());
                }
            }
            "Network.requestWillBeSent" => {
                if let Ok(q) = serde_json::from_str::<RequestWillBeSent>(params) {
                    if r.pending.len() >= PENDING_CAP {
                        r.pending.clear();
                    }
                    r.started += 1;
                    let order = r.started;
                    r.pending.insert(
                        q.request_id,
                        Pending {
                            order,
                            document: q.kind.as_deref() == Some("Document"),
                            method: q.request.method,
                            url: cap(&q.request.url),
                            start: q.timestamp,
                            status: None,
                        },
                    );
                }
            }
            "Network.responseReceived" => {
                if let Ok(q) = serde_json::from_str::<ResponseReceived>(params) {
                    if let Some(p) = r.pending.get_mut(&q.request_id) {
                        p.status = Some(q.response.status);
                    }
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                if let Ok(q) = serde_json::from_str::<LoadingEnded>(params) {
                    if let Some(p) = r.pending.remove(&q.request_id) {
                        let entry = LogEntry {
                            method: Some(p.method),
                            url: Some(p.url),
                            status: p.status,
                            failed: q.error_text.map(|t| cap(&t)),
                            bytes: q.encoded_data_length.map(|b| b.max(0.0) as u64),
                            ms: Some(((q.timestamp - p.start) * 1000.0).max(0.0)),
                            ..LogEntry::default()
                        };
                        r.push(LogKind::Network, entry);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Cuts page text to [`TEXT_CAP`] characters.
fn cap(s: &str) -> String {
    if s.chars().count() <= TEXT_CAP {
        return s.to_string();
    }
    let mut t: String = s.chars().take(TEXT_CAP).collect();
    t.push('…');
    t
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RemoteObject {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    unserializable_value: Option<String>,
    #[serde(default)]
    description: Option<String>,
}

impl RemoteObject {
    /// As `console.log` would print it, roughly: strings bare, other values as JSON, objects
    /// by their description.
    fn text(&self) -> String {
        match (&self.value, &self.unserializable_value, &self.description) {
            (Some(Value::String(s)), _, _) => s.clone(),
            (Some(v), _, _) => v.to_string(),
            (None, Some(u), _) => u.clone(),
            (None, None, Some(d)) => d.clone(),
            _ => self.kind.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallFrame {
    #[serde(default)]
    url: String,
    #[serde(default)]
    line_number: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StackTrace {
    #[serde(default)]
    call_frames: Vec<CallFrame>,
}

/// `url:line` (1-based) of a script position, None without a URL.
fn source(url: &str, line: i64) -> Option<String> {
    (!url.is_empty()).then(|| cap(&format!("{url}:{}", line + 1)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConsoleCalled {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    args: Vec<RemoteObject>,
    #[serde(default)]
    stack_trace: Option<StackTrace>,
}

impl ConsoleCalled {
    fn entry(&self) -> LogEntry {
        let level = match self.kind.as_str() {
            "warning" => "warn",
            k => k,
        };
        let text: Vec<String> = self.args.iter().map(RemoteObject::text).collect();
        let at = self
            .stack_trace
            .as_ref()
            .and_then(|s| s.call_frames.first())
            .and_then(|f| source(&f.url, f.line_number));
        LogEntry {
            level: Some(level.to_string()),
            text: Some(cap(&text.join(" "))),
            source: at,
            ..LogEntry::default()
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExceptionThrown {
    exception_details: ExceptionDetails,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExceptionDetails {
    #[serde(default)]
    text: String,
    #[serde(default)]
    line_number: i64,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    fn entry(&self) -> LogEntry {
        // "Uncaught" + the error's first line ("TypeError: x is not a function"); the stack
        // that follows it is left out.
        let what = self
            .exception
            .as_ref()
            .map(|e| e.text())
            .and_then(|t| t.lines().next().map(str::to_string));
        let text = match what {
            Some(w) if !w.is_empty() => format!("{} {w}", self.text),
            _ => self.text.clone(),
        };
        LogEntry {
            level: Some("error".into()),
            text: Some(cap(text.trim())),
            source: self
                .url
                .as_deref()
                .and_then(|u| source(u, self.line_number)),
            ..LogEntry::default()
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestWillBeSent {
    request_id: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    request: Request,
    timestamp: f64,
}

#[derive(Deserialize)]
struct Request {
    url: String,
    method: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResponseReceived {
    request_id: String,
    response: Response,
}

#[derive(Deserialize)]
pub(crate) struct Response {
    pub status: u16,
    #[serde(rename = "mimeType", default)]
    pub mime_type: String,
    #[serde(default)]
    pub url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoadingEnded {
    request_id: String,
    timestamp: f64,
    #[serde(default)]
    encoded_data_length: Option<f64>,
    #[serde(default)]
    error_text: Option<String>,
}

/// A response's URL and MIME type (`Network.responseReceived`), for `downloads.rs`.
pub(crate) fn response_of(params: &str) -> Option<Response> {
    serde_json::from_str::<ResponseReceived>(params)
        .ok()
        .map(|r| r.response)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(method: &str, params: Value) -> Event {
        Event {
            method: method.into(),
            session_id: Some("S".into()),
            params: Some(RawValue::from_string(params.to_string()).unwrap()),
        }
    }

    #[test]
    fn console_errors_and_requests_become_entries() {
        let log = PageLog {
            rings: Mutex::new(Rings::default()),
        };
        log.on_event(&ev(
            "Runtime.consoleAPICalled",
            serde_json::json!({"type": "warning", "args": [{"type": "string", "value": "low"}, {"type": "number", "value": 3}],
                "stackTrace": {"callFrames": [{"url": "http://h/p.html", "lineNumber": 9}]}}),
        ));
        log.on_event(&ev(
            "Runtime.exceptionThrown",
            serde_json::json!({"exceptionDetails": {"text": "Uncaught", "lineNumber": 0, "url": "http://h/p.html",
                "exception": {"type": "object", "description": "TypeError: boom\n    at x"}}}),
        ));
        log.on_event(&ev(
            "Network.requestWillBeSent",
            serde_json::json!({"requestId": "1", "timestamp": 1.0, "request": {"url": "http://127.0.0.1:1/x", "method": "GET"}}),
        ));
        log.on_event(&ev(
            "Network.loadingFailed",
            serde_json::json!({"requestId": "1", "timestamp": 1.25, "errorText": "net::ERR_CONNECTION_REFUSED"}),
        ));
        let c = log.entries(LogKind::Console, 0);
        assert_eq!(c[0].line(), "#1 [warn] low 3 (http://h/p.html:10)");
        let e = log.entries(LogKind::Errors, 0);
        assert_eq!(e[0].text.as_deref(), Some("Uncaught TypeError: boom"));
        let n = log.entries(LogKind::Network, 0);
        assert_eq!(n[0].failed.as_deref(), Some("net::ERR_CONNECTION_REFUSED"));
        assert_eq!(n[0].ms, Some(250.0));
        assert!(log.entries(LogKind::Network, n[0].seq).is_empty());
        // The ring is bounded.
        for _ in 0..CAP + 5 {
            log.on_event(&ev(
                "Runtime.consoleAPICalled",
                serde_json::json!({"type": "log", "args": []}),
            ));
        }
        assert_eq!(log.entries(LogKind::Console, 0).len(), CAP);
    }
}
