//! Filling the download cache ([`Cache`](super::Cache)) over the network, once, on a machine
//! that has it: `uidriver tasks osworld-cache fetch`. Each URL's file is written under
//! [`file_name`] (the SHA-256 of the URL, the name the cache tries first) through `NAME.part`,
//! which a later attempt resumes with an HTTP `Range` (and starts over when the server ignores
//! it). At most `jobs` files are fetched at a time; every request is bounded by a connect and
//! an idle-read timeout, so a stalled host costs a timeout, not a hang; a failure that may
//! pass (5xx, 408, 429, a reset, a timeout, a body cut short) is retried with backoff, any
//! other fails the file at once. `manifest.json` in the cache records per URL the file, its
//! size and SHA-256, the HTTP status or the error, and when it was fetched; a file whose size
//! and SHA-256 match its record is not fetched again.
//!
//! Google Drive answers `uc?id=…&export=download` for a file too big to scan for viruses
//! with a web page holding a confirm token: the request is made once more with it. A page
//! without one (over the download quota, not shared) fails, saying so.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::{CONTENT_RANGE, CONTENT_TYPE, RANGE};
use reqwest::{StatusCode, Url};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::cache::file_name;

/// The manifest's name inside the cache.
const MANIFEST: &str = "manifest.json";
/// The most of a web page read to look for Google Drive's confirm token.
const PAGE_LIMIT: usize = 2 << 20;
/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How `fetch` goes about it.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Files fetched at a time.
    pub jobs: usize,
    /// Attempts after the first for a failure that may pass.
    pub retries: u32,
    /// The longest wait to connect, and between two reads of an answer.
    pub timeout: Duration,
    /// The wait before the first retry, doubled for each next one.
    pub backoff: Duration,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            jobs: 4,
            retries: 3,
            timeout: Duration::from_secs(30),
            backoff: Duration::from_millis(500),
        }
    }
}

/// Where a fetch stands, reported as bytes arrive and as each file finishes.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Files finished (fetched, already present, or failed).
    pub done: usize,
    /// Files in all.
    pub total: usize,
    /// Bytes received in this run.
    pub bytes: u64,
    /// The file that just finished, as a line (`fetched URL`, `present URL`,
    /// `failed URL: why`); none for a report of bytes.
    pub finished: Option<String>,
}

/// A URL that could not be fetched.
#[derive(Debug, Clone, Serialize)]
pub struct Failed {
    /// The URL.
    pub url: String,
    /// Why (the HTTP status, or the error of the last attempt).
    pub error: String,
}

/// What `fetch` did, each list in the order the URLs were given.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FetchReport {
    /// URLs fetched in this run.
    pub fetched: Vec<String>,
    /// URLs whose file was already complete.
    pub present: Vec<String>,
    /// URLs that could not be fetched.
    pub failed: Vec<Failed>,
    /// Bytes received.
    pub bytes: u64,
}

/// `manifest.json`: what the cache holds, per URL.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    files: BTreeMap<String, Entry>,
}

/// One URL's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// The file's name in the cache.
    file: String,
    /// Its size in bytes (none when it could not be fetched).
    size: Option<u64>,
    /// Its SHA-256, lowercase hex (none when it could not be fetched).
    sha256: Option<String>,
    /// The HTTP status of the answer that gave the file, or refused it.
    status: Option<u16>,
    /// Why it could not be fetched.
    error: Option<String>,
    /// When it was fetched or refused (RFC 3339, UTC).
    fetched: String,
}

/// A file in the cache: the status of the answer that gave it (none for one found there),
/// its size and SHA-256.
struct Held {
    status: Option<u16>,
    size: u64,
    sha256: String,
}

/// A URL that could not be fetched: the status of the answer that refused it, if any, and why.
struct Refused {
    status: Option<u16>,
    error: String,
}

impl Refused {
    fn new(status: Option<u16>, error: impl Into<String>) -> Refused {
        Refused {
            status,
            error: error.into(),
        }
    }
}

/// How one URL ended.
enum Outcome {
    Fetched,
    Present,
    Failed(String),
}

/// What the fetching tasks share.
struct Shared {
    client: reqwest::Client,
    dir: PathBuf,
    opts: FetchOptions,
    /// A std mutex: it is held only to update the map and write the small file, never across
    /// an await, and the write must not interleave with another task's.
    manifest: Mutex<Manifest>,
    bytes: AtomicU64,
    done: AtomicUsize,
    total: usize,
    progress: Box<dyn Fn(&Progress) + Send + Sync>,
}

/// Fetches each of `urls` (duplicates once) into the cache `dir` (created if missing),
/// reporting to `progress` as it goes. An error is a cache that cannot be used at all; a URL
/// that fails is in the report's `failed`.
///
/// # Errors
/// `dir` cannot be created, or the HTTP client cannot be built.
pub async fn fetch(
    urls: &[String],
    dir: &Path,
    opts: &FetchOptions,
    progress: impl Fn(&Progress) + Send + Sync + 'static,
) -> Result<FetchReport, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let client = reqwest::Client::builder()
        .connect_timeout(opts.timeout)
        .read_timeout(opts.timeout)
        .user_agent(concat!("uidriver/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {}", describe(&e)))?;
    let mut seen = HashSet::new();
    let urls: Vec<String> = urls
        .iter()
        .filter(|u| seen.insert(u.as_str()))
        .cloned()
        .collect();
    let shared = Arc::new(Shared {
        client,
        dir: dir.to_path_buf(),
        opts: opts.clone(),
        manifest: Mutex::new(read_manifest(&dir.join(MANIFEST))),
        bytes: AtomicU64::new(0),
        done: AtomicUsize::new(0),
        total: urls.len(),
        progress: Box::new(progress),
    });
    let permits = Arc::new(tokio::sync::Semaphore::new(opts.jobs.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for (i, url) in urls.iter().enumerate() {
        let (sh, permits, url) = (shared.clone(), permits.clone(), url.clone());
        set.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let outcome = one(&sh, &url).await;
            let line = match &outcome {
                Outcome::Fetched => format!("fetched {url}"),
                Outcome::Present => format!("present {url}"),
                Outcome::Failed(e) => format!("failed {url}: {e}"),
            };
            let done = sh.done.fetch_add(1, Ordering::Relaxed) + 1;
            (sh.progress)(&Progress {
                done,
                total: sh.total,
                bytes: sh.bytes.load(Ordering::Relaxed),
                finished: Some(line),
            });
            (i, outcome)
        });
    }
    let mut ends = Vec::new();
    while let Some(end) = set.join_next().await {
        ends.push(end.map_err(|e| format!("a download task died: {e}"))?);
    }
    ends.sort_by_key(|(i, _)| *i);
    let mut report = FetchReport {
        bytes: shared.bytes.load(Ordering::Relaxed),
        ..FetchReport::default()
    };
    for (i, outcome) in ends {
        let url = urls[i].clone();
        match outcome {
            Outcome::Fetched => report.fetched.push(url),
            Outcome::Present => report.present.push(url),
            Outcome::Failed(error) => report.failed.push(Failed { url, error }),
        }
    }
    Ok(report)
}

/// One URL: already complete, or fetched and recorded, or the failure recorded.
async fn one(sh: &Shared, url: &str) -> Outcome {
    let name = file_name(url);
    let path = sh.dir.join(&name);
    // A record of a failure says nothing of a file put there since.
    let known = lock(&sh.manifest)
        .files
        .get(url)
        .filter(|k| k.sha256.is_some())
        .cloned();
    if let Ok(meta) = tokio::fs::metadata(&path).await {
        let size_fits = known.as_ref().is_none_or(|k| k.size == Some(meta.len()));
        if size_fits {
            match hash_file(&path).await {
                // A file under this name was complete when it got it (written to `.part`
                // first), or was put there by hand: recorded as it is.
                Ok((size, sha256)) if known.is_none() => {
                    let held = Held {
                        status: None,
                        size,
                        sha256,
                    };
                    record(sh, url, entry(&name, Ok(held)));
                    return Outcome::Present;
                }
                Ok((_, sha)) if known.as_ref().and_then(|k| k.sha256.as_ref()) == Some(&sha) => {
                    return Outcome::Present
                }
                _ => {}
            }
        }
        let _ = tokio::fs::remove_file(&path).await;
    }
    let got = download(sh, url, &name).await;
    let failed = got.as_ref().err().map(|r| r.error.clone());
    record(sh, url, entry(&name, got));
    match failed {
        None => Outcome::Fetched,
        Some(e) => Outcome::Failed(e),
    }
}

/// A failure of one attempt: worth another, or not.
enum Try {
    /// With the HTTP status, when an answer came.
    Transient(Option<u16>, String),
    Permanent(Option<u16>, String),
}

/// What one attempt ended with.
enum Attempt {
    /// The whole body is in the `.part` file; the status that gave it.
    Done(u16),
    /// Google Drive's confirm page: ask again at this URL.
    Confirm(Url),
}

/// Fetches `url` into `NAME.part`, then renames it `NAME`: the status, size and SHA-256, or
/// the status (if any) and why not.
async fn download(sh: &Shared, url: &str, name: &str) -> Result<Held, Refused> {
    let part = sh.dir.join(format!("{name}.part"));
    let mut target = Url::parse(url).map_err(|e| Refused::new(None, format!("not a URL: {e}")))?;
    let mut confirmed = false;
    let mut failures = 0u32;
    let status = loop {
        match attempt(sh, &target, &part).await {
            Ok(Attempt::Done(status)) => break status,
            Ok(Attempt::Confirm(next)) if !confirmed => {
                confirmed = true;
                target = next;
            }
            Ok(Attempt::Confirm(_)) => {
                return Err(Refused::new(
                    Some(200),
                    "Google Drive asked to confirm the download again after its confirm token",
                ))
            }
            Err(Try::Permanent(status, why)) => return Err(Refused::new(status, why)),
            Err(Try::Transient(status, why)) if failures >= sh.opts.retries => {
                return Err(Refused::new(
                    status,
                    format!("{why} ({} attempts)", failures + 1),
                ))
            }
            Err(Try::Transient(_, why)) => {
                let wait = sh.opts.backoff.saturating_mul(1 << failures.min(16));
                tracing::debug!(url, why, ?wait, "retrying");
                tokio::time::sleep(wait.min(MAX_BACKOFF)).await;
                failures += 1;
            }
        }
    };
    let fail = |e: String| Refused::new(Some(status), e);
    let (size, sha256) = hash_file(&part)
        .await
        .map_err(|e| fail(format!("cannot read {}: {e}", part.display())))?;
    tokio::fs::rename(&part, sh.dir.join(name))
        .await
        .map_err(|e| fail(format!("cannot rename {}: {e}", part.display())))?;
    Ok(Held {
        status: Some(status),
        size,
        sha256,
    })
}

/// One request for `target`, resuming `part` when it holds something.
async fn attempt(sh: &Shared, target: &Url, part: &Path) -> Result<Attempt, Try> {
    let offset = tokio::fs::metadata(part).await.map_or(0, |m| m.len());
    let mut req = sh.client.get(target.clone());
    if offset > 0 {
        req = req.header(RANGE, format!("bytes={offset}-"));
    }
    let wait = sh.opts.timeout;
    let resp = tokio::time::timeout(wait, req.send())
        .await
        .map_err(|_| Try::Transient(None, format!("no answer within {} s", wait.as_secs_f64())))?
        .map_err(|e| Try::Transient(None, describe(&e)))?;
    let status = resp.status();
    let why = format!("HTTP {status}");
    if status == StatusCode::RANGE_NOT_SATISFIABLE && offset > 0 {
        let _ = tokio::fs::remove_file(part).await;
        return Err(Try::Transient(
            Some(status.as_u16()),
            format!("{why} to a resume; starting over"),
        ));
    }
    if status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
    {
        return Err(Try::Transient(Some(status.as_u16()), why));
    }
    if !status.is_success() {
        return Err(Try::Permanent(Some(status.as_u16()), why));
    }
    let html = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"));
    if html && is_drive(target) {
        let page = read_page(resp, wait).await?;
        return match confirm_url(target, &page) {
            Some(next) => Ok(Attempt::Confirm(next)),
            None => Err(Try::Permanent(
                Some(status.as_u16()),
                "Google Drive answered with a web page, not the file, and no confirm token in \
                 it (over its download quota, or not shared publicly?)"
                    .into(),
            )),
        };
    }
    let resumes = status == StatusCode::PARTIAL_CONTENT && starts_at(&resp, offset);
    if offset > 0 && !resumes {
        tracing::debug!(%target, offset, %status, "the server did not resume; starting over");
    }
    let mut file = tokio::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(resumes)
        .truncate(!resumes)
        .open(part)
        .await
        .map_err(|e| Try::Permanent(None, format!("cannot write {}: {e}", part.display())))?;
    let length = resp.content_length();
    let mut resp = resp;
    let mut got = 0u64;
    loop {
        let chunk = next_chunk(&mut resp, wait).await?;
        let Some(chunk) = chunk else { break };
        file.write_all(&chunk)
            .await
            .map_err(|e| Try::Permanent(None, format!("cannot write {}: {e}", part.display())))?;
        got += chunk.len() as u64;
        let bytes = sh.bytes.fetch_add(chunk.len() as u64, Ordering::Relaxed) + chunk.len() as u64;
        (sh.progress)(&Progress {
            done: sh.done.load(Ordering::Relaxed),
            total: sh.total,
            bytes,
            finished: None,
        });
    }
    file.flush()
        .await
        .map_err(|e| Try::Permanent(None, format!("cannot write {}: {e}", part.display())))?;
    match length {
        Some(n) if n != got => Err(Try::Transient(
            None,
            format!("the body ended after {got} of {n} bytes"),
        )),
        _ => Ok(Attempt::Done(status.as_u16())),
    }
}

/// The next piece of a body (none at its end), or a failure worth retrying: nothing within
/// `wait` (the client's idle-read timeout or this one, whichever fires first) or a cut.
async fn next_chunk(
    resp: &mut reqwest::Response,
    wait: Duration,
) -> Result<Option<bytes::Bytes>, Try> {
    let idle = || Try::Transient(None, format!("no data for {} s", wait.as_secs_f64()));
    match tokio::time::timeout(wait, resp.chunk()).await {
        Err(_) => Err(idle()),
        Ok(Err(e)) if e.is_timeout() => Err(idle()),
        Ok(Err(e)) => Err(Try::Transient(None, describe(&e))),
        Ok(Ok(chunk)) => Ok(chunk),
    }
}

/// A 206 answer's `Content-Range` starts where the part file ends.
fn starts_at(resp: &reqwest::Response, offset: u64) -> bool {
    resp.headers()
        .get(CONTENT_RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes "))
        .and_then(|v| v.split('-').next())
        .and_then(|v| v.trim().parse::<u64>().ok())
        == Some(offset)
}

/// Google Drive, or a URL shaped like its download links (`export=download`).
fn is_drive(url: &Url) -> bool {
    url.host_str()
        .is_some_and(|h| h == "google.com" || h.ends_with(".google.com"))
        || url
            .query_pairs()
            .any(|(k, v)| k == "export" && v == "download")
}

/// At most [`PAGE_LIMIT`] bytes of a web page, as text.
async fn read_page(mut resp: reqwest::Response, wait: Duration) -> Result<String, Try> {
    let mut page = Vec::new();
    while page.len() < PAGE_LIMIT {
        let chunk = next_chunk(&mut resp, wait).await?;
        let Some(chunk) = chunk else { break };
        page.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&page).into_owned())
}

/// Where Google Drive's confirm page says the file is: its `download-form` (action plus hidden
/// inputs as the query), or else `from` with the `confirm=TOKEN` a link of the page carries.
fn confirm_url(from: &Url, page: &str) -> Option<Url> {
    if let Some(at) = page.find("id=\"download-form\"") {
        let start = page[..at].rfind("<form")?;
        let form = &page[start..];
        let form = &form[..form.find("</form>").unwrap_or(form.len())];
        let open = &form[..form.find('>')?];
        let mut url = from.join(&attr(open, "action")?).ok()?;
        {
            let mut query = url.query_pairs_mut();
            for input in form.split("<input").skip(1) {
                let tag = &input[..input.find('>').unwrap_or(input.len())];
                if attr(tag, "type").as_deref() != Some("hidden") {
                    continue;
                }
                if let (Some(name), Some(value)) = (attr(tag, "name"), attr(tag, "value")) {
                    query.append_pair(&name, &value);
                }
            }
        }
        return Some(url);
    }
    let re = regex::Regex::new(r"confirm=([0-9A-Za-z_-]+)").ok()?;
    let token = re.captures(page)?.get(1)?.as_str();
    let mut url = from.clone();
    let kept: Vec<(String, String)> = from
        .query_pairs()
        .filter(|(k, _)| k != "confirm")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .append_pair("confirm", token);
    Some(url)
}

/// The value of the attribute `name="…"` in an HTML tag, its entities for `&` and `"` undone.
fn attr(tag: &str, name: &str) -> Option<String> {
    let re = regex::Regex::new(&format!(r#"(?:^|\s){name}\s*=\s*"([^"]*)""#)).ok()?;
    let v = re.captures(tag)?.get(1)?.as_str();
    Some(v.replace("&quot;", "\"").replace("&amp;", "&"))
}

/// The size and SHA-256 (lowercase hex) of a file, read off the runtime's workers.
async fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        use std::io::Read;
        let mut f = std::fs::File::open(&path)?;
        let mut h = Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut size = 0u64;
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            size += n as u64;
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok((size, hex))
    })
    .await
    .map_err(std::io::Error::other)?
}

/// The record of one URL: its file held, or why not.
fn entry(name: &str, got: Result<Held, Refused>) -> Entry {
    let (status, size, sha256, error) = match got {
        Ok(h) => (h.status, Some(h.size), Some(h.sha256), None),
        Err(r) => (r.status, None, None, Some(r.error)),
    };
    Entry {
        file: name.to_string(),
        size,
        sha256,
        status,
        error,
        fetched: rfc3339(SystemTime::now()),
    }
}

/// Records `entry` for `url` and writes the manifest (through a temporary file, so a reader
/// never sees half of it).
fn record(sh: &Shared, url: &str, entry: Entry) {
    let mut m = lock(&sh.manifest);
    m.files.insert(url.to_string(), entry);
    let text = serde_json::to_string_pretty(&*m).unwrap_or_default();
    let path = sh.dir.join(MANIFEST);
    let tmp = sh.dir.join(format!("{MANIFEST}.tmp"));
    let written = std::fs::write(&tmp, text + "\n").and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        tracing::warn!("cannot write {}: {e}", path.display());
    }
}

/// The manifest at `path`; an empty one when it is missing or unreadable (every file present
/// is then hashed and recorded again).
fn read_manifest(path: &Path) -> Manifest {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

fn lock(m: &Mutex<Manifest>) -> std::sync::MutexGuard<'_, Manifest> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A reqwest error as one line: what failed and its causes, without the URL (the report
/// names it).
fn describe(e: &reqwest::Error) -> String {
    let mut line = if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        "cannot connect".to_string()
    } else if e.is_body() || e.is_decode() {
        "the body was cut off".to_string()
    } else {
        "the request failed".to_string()
    };
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        line.push_str(&format!(": {c}"));
        cause = c.source();
    }
    line
}

/// `2026-12-03T01:42:11Z`: the civil date from days since the epoch (Howard Hinnant's
/// algorithm; the same as the trace store's, which this crate cannot import).
fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drive_confirm_pages_give_the_url_to_ask_again() {
        let from = Url::parse("https://drive.google.com/uc?id=ABC&export=download").unwrap();
        let form = r#"<html><body><form id="download-form" action="https://drive.usercontent.google.com/download" method="get">
            <input type="submit" id="uc-download-link" value="Download anyway"/>
            <input type="hidden" name="id" value="ABC"><input type="hidden" name="export" value="download">
            <input type="hidden" name="confirm" value="t"><input type="hidden" name="uuid" value="u-1&amp;2"></form></body></html>"#;
        assert_eq!(
            confirm_url(&from, form).unwrap().as_str(),
            "https://drive.usercontent.google.com/download?id=ABC&export=download&confirm=t&uuid=u-1%262"
        );
        let link = r#"<a id="uc-download-link" href="/uc?export=download&amp;confirm=Xy_9&amp;id=ABC">Download anyway</a>"#;
        assert_eq!(
            confirm_url(&from, link).unwrap().as_str(),
            "https://drive.google.com/uc?id=ABC&export=download&confirm=Xy_9"
        );
        assert!(confirm_url(&from, "<html>Quota exceeded</html>").is_none());
        assert!(is_drive(&from));
        assert!(is_drive(
            &Url::parse("http://127.0.0.1:9/uc?id=x&export=download").unwrap()
        ));
        assert!(!is_drive(
            &Url::parse("https://huggingface.co/a/resolve/main/b.xlsx").unwrap()
        ));
    }

    #[test]
    fn times_are_rfc3339_utc() {
        let t = UNIX_EPOCH + Duration::from_secs(1_764_905_000);
        assert_eq!(rfc3339(t), "2025-12-05T03:23:20Z");
    }
}
