//! Starting Chromium with a fresh private profile (or a persistent one the user owns, never
//! removed) and finding its DevTools endpoint, stopping
//! it again by pid, and resolving the endpoint of a browser someone else started. What to do
//! with the connection is `browser.rs`'s job.
//!
//! The debugging port is chosen by Chromium (`--remote-debugging-port=0`, loopback only) and
//! read from `<profile>/DevToolsActivePort` (first line the port, second the browser's
//! WebSocket path), so two launches never race for a port.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use uidriver_core::Deadline;

use crate::error::{CdpError, CdpResult};

/// Flags for an automation browser: no first-run UI, no background traffic (there is no
/// network here but loopback), no GPU (none in CI), DevTools on a loopback port it picks.
const FLAGS: &[&str] = &[
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--password-store=basic",
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
];

/// The window size when the caller asks for none.
pub const DEFAULT_SIZE: (u32, u32) = (1280, 720);

/// How to start Chromium.
#[derive(Clone, Debug, Default)]
pub struct LaunchOptions {
    /// No window.
    pub headless: bool,
    /// `--force-renderer-accessibility` (see [`Launched::start`]).
    pub accessibility: bool,
    /// The window's size (`--window-size`).
    pub size: (u32, u32),
    /// A profile the user owns: used as is and never removed. None: a fresh private one.
    pub profile_dir: Option<PathBuf>,
    /// Where downloads go. None: `downloads/` beside a private profile, `Downloads/` inside a
    /// persistent one.
    pub downloads_dir: Option<PathBuf>,
}

/// A Chromium this crate started: its process, its profile directory (a private one is
/// removed when it stops) and its downloads directory.
///
/// Dropping it without [`Launched::stop`] still kills the process (SIGKILL) and removes a
/// private profile, so a failing test or a panicking caller does not leak a browser.
pub struct Launched {
    child: Option<Child>,
    pid: u32,
    /// Ours: the private profile (when there is one), stderr.log, the default downloads.
    dir: Option<tempfile::TempDir>,
    /// How it ended, once reaped.
    exited: Option<std::process::ExitStatus>,
    downloads: PathBuf,
}

impl Launched {
    /// Starts Chromium and waits until its DevTools endpoint is announced; returns the browser
    /// WebSocket URL with it.
    ///
    /// `accessibility` adds `--force-renderer-accessibility`, which makes Chromium expose web
    /// content over AT-SPI (so the desktop backend can read a headed window) at a price: the
    /// renderer builds the full accessibility tree after every load and keeps it updated. On
    /// `std/vec/struct.Vec.html` that blocks the page's main thread for 0.8–2 s after the load
    /// event (measured: `Page.createIsolatedWorld` waits 805–861 ms one second after load with
    /// the flag, 2–11 ms without), which delays the first observation by as much.
    ///
    /// `size` is the window's (`--window-size`); headless, that is the viewport too.
    pub async fn start(
        chromium: &Path,
        opts: &LaunchOptions,
        deadline: Deadline,
    ) -> CdpResult<(Launched, String)> {
        let LaunchOptions {
            headless,
            accessibility,
            size,
            ..
        } = *opts;
        if !chromium.exists() {
            return Err(CdpError::Launch(format!(
                "{} does not exist",
                chromium.display()
            )));
        }
        let dir = tempfile::Builder::new()
            .prefix("uidriver-chromium-")
            .tempdir()?;
        let profile = match &opts.profile_dir {
            Some(p) => {
                std::fs::create_dir_all(p)?;
                // Left by an earlier run: the port it names is not this browser's.
                let _ = std::fs::remove_file(p.join("DevToolsActivePort"));
                p.clone()
            }
            None => dir.path().join("profile"),
        };
        let downloads = match (&opts.downloads_dir, &opts.profile_dir) {
            (Some(d), _) => d.clone(),
            (None, Some(p)) => p.join("Downloads"),
            (None, None) => dir.path().join("downloads"),
        };
        std::fs::create_dir_all(&downloads)?;
        let log = std::fs::File::create(dir.path().join("stderr.log"))?;
        // Chromium leaves its singleton directory in TMPDIR when it is killed: kept in the
        // directory removed with the browser.
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp)?;
        let mut cmd = Command::new(chromium);
        cmd.env("TMPDIR", &tmp);
        cmd.args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={},{}", size.0, size.1))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            // Its own process group, so killing it also ends its helper processes (zygote,
            // renderers, GPU), which otherwise keep writing to the profile being removed.
            .process_group(0)
            // Backstop only: `stop` and `Drop` end it by pid first.
            .kill_on_drop(true);
        if headless {
            cmd.arg("--headless=new");
        }
        if accessibility {
            cmd.arg("--force-renderer-accessibility");
        }
        cmd.arg("about:blank");
        let child = cmd
            .spawn()
            .map_err(|e| CdpError::Launch(format!("spawning {}: {e}", chromium.display())))?;
        let pid = child.id().unwrap_or(0);
        let mut me = Launched {
            child: Some(child),
            pid,
            dir: Some(dir),
            exited: None,
            downloads,
        };
        tracing::debug!(pid, headless, "chromium started");
        let port_file = profile.join("DevToolsActivePort");
        loop {
            if let Ok(s) = tokio::fs::read_to_string(&port_file).await {
                let mut lines = s.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    if !port.is_empty() && path.starts_with("/devtools/browser/") {
                        let url = format!("ws://127.0.0.1:{}{}", port.trim(), path.trim());
                        return Ok((me, url));
                    }
                }
            }
            if let Some(Ok(Some(status))) = me.child.as_mut().map(|c| c.try_wait()) {
                let tail = me.stderr_tail();
                me.child = None;
                return Err(CdpError::Launch(format!(
                    "Chromium exited ({status}) before opening DevTools: {tail}"
                )));
            }
            if deadline.expired() {
                let tail = me.stderr_tail();
                me.stop().await;
                return Err(CdpError::Launch(format!(
                    "Chromium did not open DevTools in time: {tail}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The browser process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// How the browser process ended, once it has (`None` while it runs). Reaps it, and from
    /// then on nothing signals its pid again: the kernel may hand that pid to another process.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        let status = self.child.as_mut()?.try_wait().ok().flatten()?;
        self.child = None;
        self.exited = Some(status);
        Some(status)
    }

    /// The exit status [`Launched::exit_status`] found earlier.
    pub fn exited(&self) -> Option<std::process::ExitStatus> {
        self.exited
    }

    /// Where its downloads go.
    pub fn downloads_dir(&self) -> &Path {
        &self.downloads
    }

    /// The last lines Chromium wrote to stderr (for error messages).
    fn stderr_tail(&self) -> String {
        let Some(dir) = &self.dir else {
            return String::new();
        };
        let text = std::fs::read_to_string(dir.path().join("stderr.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(3)..].join(" | ")
    }

    /// Stops the browser: SIGTERM, up to 5 s to exit, then SIGKILL; then removes our directory
    /// (a private profile with it; a persistent one is the user's and stays).
    pub async fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal(self.pid, rustix::process::Signal::TERM);
            let exited = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            if exited.is_err() {
                signal_group(self.pid, rustix::process::Signal::KILL);
                let _ = child.start_kill();
                let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            }
            // Helpers that outlive the browser process (rare) must not write to the profile.
            signal_group(self.pid, rustix::process::Signal::KILL);
            tracing::debug!(pid = self.pid, "chromium stopped");
        }
        if let Some(dir) = self.dir.take() {
            let path: PathBuf = dir.keep();
            // Removal can race with a helper still flushing; retry briefly.
            for _ in 0..5 {
                if !path.exists() || tokio::fs::remove_dir_all(&path).await.is_ok() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal_group(self.pid, rustix::process::Signal::KILL);
            // Give the kernel a moment so the profile is not written after it is removed.
            for _ in 0..50 {
                if matches!(child.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_path_buf();
            for _ in 0..5 {
                if !path.exists() || std::fs::remove_dir_all(&path).is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            // Keep TempDir from trying again on an already removed path.
            let _ = dir.keep();
        }
    }
}

/// Signals the whole process group Chromium leads (it was started with its own group).
fn signal_group(pid: u32, sig: rustix::process::Signal) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        if let Err(e) = rustix::process::kill_process_group(pid, sig) {
            tracing::debug!(error = %e, "signalling chromium's process group failed");
        }
    }
}

fn signal(pid: u32, sig: rustix::process::Signal) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        if let Err(e) = rustix::process::kill_process(pid, sig) {
            tracing::debug!(error = %e, "signalling chromium failed");
        }
    }
}

/// Resolves an endpoint given by a user to the browser's WebSocket URL: `ws://…` is used as
/// is; `http://host:port` is asked for `/json/version` (a minimal HTTP/1.1 GET, no client
/// library needed for one loopback request).
pub async fn resolve_endpoint(endpoint: &str, deadline: Deadline) -> CdpResult<String> {
    let e = endpoint.trim();
    if e.starts_with("ws://") {
        return Ok(e.to_string());
    }
    let hostport = e
        .strip_prefix("http://")
        .unwrap_or(e)
        .trim_end_matches('/')
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    if hostport.is_empty() {
        return Err(CdpError::Launch(format!("bad CDP endpoint {e:?}")));
    }
    let fetch = async {
        let mut s = tokio::net::TcpStream::connect(&hostport).await?;
        let req =
            format!("GET /json/version HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await?;
        // Chromium keeps the connection open despite `Connection: close`: read the headers,
        // then exactly Content-Length bytes.
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = s.read(&mut chunk).await?;
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok());
                if len.is_some_and(|len| buf.len() >= end + 4 + len) {
                    break;
                }
            }
        }
        Ok::<_, std::io::Error>(buf)
    };
    let buf = tokio::time::timeout(deadline.remaining(), fetch)
        .await
        .map_err(|_| CdpError::Timeout("GET /json/version"))??;
    let text = String::from_utf8_lossy(&buf);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b)
        .unwrap_or_default();
    let v: serde_json::Value =
        serde_json::from_str(body.trim()).map_err(|source| CdpError::Decode {
            method: "GET /json/version",
            source,
        })?;
    v.get("webSocketDebuggerUrl")
        .and_then(|u| u.as_str())
        .map(str::to_string)
        .ok_or_else(|| {
            CdpError::Launch(format!(
                "{hostport} did not announce a webSocketDebuggerUrl"
            ))
        })
}
