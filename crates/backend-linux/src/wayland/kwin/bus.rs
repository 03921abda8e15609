//! KWin's D-Bus side (its session bus, where it owns `org.kde.KWin`): the window list and the
//! window commands through KWin scripts, screen pixels through `org.kde.KWin.ScreenShot2`, and
//! the compositor's version.
//!
//! KWin 5.27 lists its windows to no client and on no D-Bus method (`getWindowInfo` needs a
//! uuid already known), but its scripts see them all. So each question is a script
//! (`windows.js`, filled in here): written to a temporary file, loaded with
//! `org.kde.kwin.Scripting.loadScript`, started with `org.kde.kwin.Script.run` and unloaded
//! again; the script reports by `callDBus` to this connection's unique name, which is read from
//! the connection's message stream (measured: about 10 ms for the round trip). `print` output
//! goes to KWin's log, where a client cannot read it.
//!
//! The desk's jobs are synchronous and run on the Wayland thread; zbus here is async on Tokio.
//! [`KwinBus`] owns a current-thread runtime of its own and blocks on it, so no runtime
//! worker is ever blocked; it is shut down in the background when dropped (dropping a runtime
//! inside another one would panic).

use std::collections::HashMap;
use std::io::Read as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use serde_json::Value;
use uidriver_core::{Bounds, RawImage};
use zbus::zvariant::{OwnedValue, Value as ZValue};

use crate::error::LinuxError;
use crate::x11::ewmh::{Server, XDesktop, XWindow};

const KWIN: &str = "org.kde.KWin";
/// Longest wait for one D-Bus answer or script report.
const CALL_LIMIT: Duration = Duration::from_secs(3);
/// Where the script's report is sent, on this connection.
const REPORT_PATH: &str = "/org/uidriver/KWinScript";
const SCRIPT: &str = include_str!("windows.js");

/// What a script does before it reports the windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// Nothing.
    List,
    /// Makes the window active (`workspace.activeClient`).
    Activate(u32),
    /// Asks the window to close (`closeWindow()`, as its close button).
    Close(u32),
}

/// A window as the script reports it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KwinWindow {
    /// The window, its content rectangle as `bounds`.
    pub window: XWindow,
    /// Its frame: the content with KWin's decoration, if any.
    pub frame: Bounds,
}

/// What one script saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Report {
    /// Whether the command found its window.
    pub done: bool,
    /// The windows bottom to top.
    pub windows: Vec<KwinWindow>,
    /// The active one.
    pub active: Option<u32>,
    /// Popup surfaces (menus, lists) KWin knows of: their process and rectangle.
    pub popups: Vec<(Option<u32>, Bounds)>,
}

impl Report {
    /// The windows as a window list.
    pub(crate) fn desktop(&self) -> XDesktop {
        XDesktop {
            windows: self.windows.iter().map(|w| w.window.clone()).collect(),
            active: self.active,
            server: Server::Kwin,
        }
    }
}

/// The window id uidriver uses for a KWin window: the first 32 bits of its uuid (random,
/// version 4), so every connection, thread and process names a window alike without a table.
pub(crate) fn window_id(uuid: &str) -> Option<u32> {
    let hex = uuid.trim_start_matches('{');
    u32::from_str_radix(hex.get(..8)?, 16).ok()
}

fn rect(v: &Value) -> Bounds {
    let n = |i: usize| v[i].as_i64().unwrap_or(0) as i32;
    Bounds::new(n(0), n(1), n(2), n(3))
}

/// The script's JSON as a report. A window's content is where its frame and its buffer
/// overlap: with KWin's decoration the buffer lies inside the frame; with client-side
/// decorations the frame (the toplevel's window geometry) lies inside the buffer, whose rest
/// is shadow.
pub(crate) fn parse_report(v: &Value) -> Report {
    let mut windows: Vec<KwinWindow> = v["windows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| {
            let id = window_id(w["id"].as_str()?)?;
            let frame = rect(&w["frame"]);
            let buffer = rect(&w["buffer"]);
            let bounds = frame.intersect(&buffer).unwrap_or(frame);
            Some(KwinWindow {
                window: XWindow {
                    id,
                    pid: w["pid"].as_u64().filter(|p| *p > 0).map(|p| p as u32),
                    title: w["title"].as_str().unwrap_or_default().to_string(),
                    class: w["class"].as_str().unwrap_or_default().to_string(),
                    stacking: w["stacking"].as_u64().unwrap_or(0) as u32,
                    hidden: w["hidden"] == true,
                    modal: w["modal"] == true,
                    dialog: w["dialog"] == true,
                    transient_for: w["transientFor"].as_str().and_then(window_id),
                    bounds,
                    // The script does not say; KWin sandboxes run without XWayland.
                    xwayland: false,
                },
                frame,
            })
        })
        .collect();
    windows.sort_by_key(|w| w.window.stacking);
    let popups = v["popups"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let pid = p["pid"].as_u64().filter(|p| *p > 0).map(|p| p as u32);
            (pid, rect(&p["frame"]))
        })
        .collect();
    Report {
        popups,
        done: v["done"] == true,
        active: v["active"].as_str().and_then(window_id),
        windows,
    }
}

/// A JSON string literal of `s`, for the script's placeholders.
fn js_string(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    quoted[1..quoted.len() - 1].to_string()
}

/// The session-bus side of one desk thread.
pub(crate) struct KwinBus {
    /// The session bus address; `None` for the default one.
    address: Option<String>,
    runtime: Option<tokio::runtime::Runtime>,
    conn: Option<zbus::Connection>,
    /// Scripts loaded so far (their plugin names must differ while loaded).
    scripts: u64,
}

impl Drop for KwinBus {
    fn drop(&mut self) {
        self.conn = None;
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

fn dbus_err(what: &str) -> impl Fn(zbus::Error) -> LinuxError + '_ {
    move |e| match e {
        zbus::Error::MethodError(name, msg, _)
            if name.as_str() == "org.freedesktop.DBus.Error.ServiceUnknown" =>
        {
            LinuxError::NoCompositor(format!(
                "KWin is not on the session bus ({what}: {})",
                msg.unwrap_or_default()
            ))
        }
        e => LinuxError::Wayland(format!("KWin {what}: {e}")),
    }
}

impl KwinBus {
    pub(crate) fn new(address: Option<String>) -> KwinBus {
        KwinBus {
            address,
            runtime: None,
            conn: None,
            scripts: 0,
        }
    }

    /// Runs `f` with the connection (opened on first use, again after a failure), at most
    /// [`CALL_LIMIT`] per call it makes.
    fn block<R, F, Fut>(&mut self, f: F) -> Result<R, LinuxError>
    where
        F: FnOnce(zbus::Connection) -> Fut,
        Fut: std::future::Future<Output = Result<R, LinuxError>>,
    {
        if self.runtime.is_none() {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| LinuxError::Wayland(format!("cannot start a runtime: {e}")))?;
            self.runtime = Some(rt);
        }
        let address = self.address.clone();
        let existing = self.conn.clone();
        let rt = self
            .runtime
            .as_ref()
            .ok_or_else(|| LinuxError::Wayland("no runtime".into()))?;
        let result = rt.block_on(async move {
            let conn = match existing {
                Some(c) => c,
                None => {
                    let open = async {
                        match address.as_deref().filter(|a| !a.is_empty()) {
                            Some(a) => zbus::connection::Builder::address(a)?.build().await,
                            None => zbus::Connection::session().await,
                        }
                    };
                    tokio::time::timeout(CALL_LIMIT, open)
                        .await
                        .map_err(|_| {
                            LinuxError::NoCompositor("the session bus does not answer".into())
                        })?
                        .map_err(|e| {
                            LinuxError::NoCompositor(format!("cannot reach the session bus: {e}"))
                        })?
                }
            };
            let r = f(conn.clone()).await;
            Ok::<_, LinuxError>((conn, r))
        });
        match result {
            Ok((conn, r)) => {
                self.conn = match &r {
                    Err(LinuxError::NoCompositor(_)) => None,
                    _ => Some(conn),
                };
                r
            }
            Err(e) => {
                self.conn = None;
                Err(e)
            }
        }
    }

    /// Runs the window script with `command`; what it reported.
    pub(crate) fn script(&mut self, command: Command) -> Result<Report, LinuxError> {
        self.scripts += 1;
        let plugin = format!("uidriver-{}-{}", std::process::id(), self.scripts);
        let (cmd, target) = match command {
            Command::List => ("list", String::new()),
            Command::Activate(w) => ("activate", format!("{w:08x}")),
            Command::Close(w) => ("close", format!("{w:08x}")),
        };
        let file = std::env::temp_dir().join(format!("{plugin}.js"));
        let result = self.block(|conn| run_script(conn, file.clone(), plugin, cmd, target));
        let _ = std::fs::remove_file(&file);
        result
    }

    /// The compositor's name and version, from `org.kde.KWin.supportInformation`.
    pub(crate) fn version(&mut self) -> Result<String, LinuxError> {
        self.block(|conn| async move {
            let msg = call(
                &conn,
                "/KWin",
                "org.kde.KWin",
                "supportInformation",
                &(),
                "supportInformation",
            )
            .await?;
            let info: String = msg
                .body()
                .deserialize()
                .map_err(dbus_err("supportInformation"))?;
            Ok(info
                .lines()
                .find_map(|l| l.trim().strip_prefix("KWin version:"))
                .map(|v| format!("KWin {}", v.trim()))
                .unwrap_or_else(|| "KWin (version unknown)".into()))
        })
    }

    /// Pixels of `bounds` (screen coordinates) through `ScreenShot2.CaptureArea`.
    pub(crate) fn capture(&mut self, bounds: Bounds) -> Result<RawImage, LinuxError> {
        self.block(|conn| capture_area(conn, bounds))
    }
}

async fn call<B>(
    conn: &zbus::Connection,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
    what: &str,
) -> Result<zbus::Message, LinuxError>
where
    B: serde::ser::Serialize + zbus::zvariant::DynamicType,
{
    tokio::time::timeout(
        CALL_LIMIT,
        conn.call_method(Some(KWIN), path, Some(iface), method, body),
    )
    .await
    .map_err(|_| LinuxError::Wayland(format!("KWin did not answer {what} within {CALL_LIMIT:?}")))?
    .map_err(dbus_err(what))
}

async fn run_script(
    conn: zbus::Connection,
    file: PathBuf,
    plugin: String,
    cmd: &str,
    target: String,
) -> Result<Report, LinuxError> {
    let service = conn
        .unique_name()
        .map(|n| n.to_string())
        .ok_or_else(|| LinuxError::Wayland("the session bus gave no unique name".into()))?;
    let text = SCRIPT
        .replace("@SERVICE@", &js_string(&service))
        .replace("@PATH@", REPORT_PATH)
        .replace("@PLUGIN@", &js_string(&plugin))
        .replace("@COMMAND@", cmd)
        .replace("@TARGET@", &js_string(&target));
    std::fs::write(&file, text)
        .map_err(|e| LinuxError::Wayland(format!("writing {}: {e}", file.display())))?;
    // The stream exists before the script runs, so its report cannot be missed.
    let mut stream = zbus::MessageStream::from(&conn);
    let path = file.to_string_lossy().into_owned();
    let msg = call(
        &conn,
        "/Scripting",
        "org.kde.kwin.Scripting",
        "loadScript",
        &(path.as_str(), plugin.as_str()),
        "loadScript",
    )
    .await?;
    let id: i32 = msg.body().deserialize().map_err(dbus_err("loadScript"))?;
    if id < 0 {
        return Err(LinuxError::Wayland(format!(
            "KWin did not load the script {path} ({id})"
        )));
    }
    let ran = run_loaded(&conn, id).await;
    let report = match ran {
        Ok(()) => wait_report(&conn, &mut stream, &plugin).await,
        Err(e) => Err(e),
    };
    let _ = call(
        &conn,
        "/Scripting",
        "org.kde.kwin.Scripting",
        "unloadScript",
        &(plugin.as_str(),),
        "unloadScript",
    )
    .await;
    report
}

/// Starts a loaded script: KWin 5.27 serves it at `/ID`, KWin 6 at `/Scripting/ScriptID`.
async fn run_loaded(conn: &zbus::Connection, id: i32) -> Result<(), LinuxError> {
    let mut last = None;
    for path in [format!("/{id}"), format!("/Scripting/Script{id}")] {
        match call(conn, &path, "org.kde.kwin.Script", "run", &(), "Script.run").await {
            Ok(_) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| LinuxError::Wayland("no script object".into())))
}

/// Waits for the `report` call of the script `plugin`, answers it, and parses its JSON.
async fn wait_report(
    conn: &zbus::Connection,
    stream: &mut zbus::MessageStream,
    plugin: &str,
) -> Result<Report, LinuxError> {
    let end = tokio::time::Instant::now() + CALL_LIMIT;
    loop {
        let next = tokio::time::timeout_at(end, stream.next())
            .await
            .map_err(|_| {
                LinuxError::Wayland(format!(
                    "KWin's script did not report within {CALL_LIMIT:?} (see KWin's log for \
                     kwin_scripting errors)"
                ))
            })?;
        let Some(Ok(msg)) = next else {
            return Err(LinuxError::NoCompositor(
                "the session bus connection closed".into(),
            ));
        };
        let header = msg.header();
        if header.message_type() != zbus::message::Type::MethodCall
            || header.path().map(|p| p.as_str()) != Some(REPORT_PATH)
            || header.member().map(|m| m.as_str()) != Some("report")
        {
            continue;
        }
        let Ok((from, json)) = msg.body().deserialize::<(String, String)>() else {
            continue;
        };
        let _ = conn.reply(&header, &()).await;
        if from != plugin {
            continue;
        }
        let v: Value = serde_json::from_str(&json)
            .map_err(|e| LinuxError::Wayland(format!("KWin's script reported bad JSON: {e}")))?;
        return Ok(parse_report(&v));
    }
}

async fn capture_area(conn: zbus::Connection, bounds: Bounds) -> Result<RawImage, LinuxError> {
    if bounds.width <= 0 || bounds.height <= 0 {
        return Err(LinuxError::InvalidArgs(format!(
            "rectangle {bounds} is empty"
        )));
    }
    let (reader, writer) =
        std::io::pipe().map_err(|e| LinuxError::Wayland(format!("cannot make a pipe: {e}")))?;
    let mut options: HashMap<&str, ZValue<'_>> = HashMap::new();
    options.insert("include-cursor", ZValue::from(false));
    options.insert("native-resolution", ZValue::from(true));
    // The pipe is read while KWin writes (a screen is far more than a pipe holds), on a
    // thread of its own: it learns how much to read from the answer, and stops there (KWin
    // may keep its end open, so no end of file comes).
    let (size_tx, size_rx) = std::sync::mpsc::channel::<usize>();
    let read = std::thread::spawn(move || read_pipe(reader, size_rx));
    let writer_fd: std::os::fd::OwnedFd = writer.into();
    let answer = call(
        &conn,
        "/org/kde/KWin/ScreenShot2",
        "org.kde.KWin.ScreenShot2",
        "CaptureArea",
        &(
            bounds.x,
            bounds.y,
            bounds.width as u32,
            bounds.height as u32,
            options,
            zbus::zvariant::Fd::from(&writer_fd),
        ),
        "ScreenShot2.CaptureArea",
    )
    .await;
    drop(writer_fd);
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            let _ = size_tx.send(0);
            return Err(e);
        }
    };
    let results: HashMap<String, OwnedValue> = answer
        .body()
        .deserialize()
        .map_err(dbus_err("ScreenShot2.CaptureArea"))?;
    let num = |k: &str| -> Option<u32> {
        results.get(k).and_then(|v| {
            u32::try_from(v)
                .ok()
                .or_else(|| i32::try_from(v).ok().map(|n| n as u32))
        })
    };
    let (Some(width), Some(height), Some(stride), Some(format)) =
        (num("width"), num("height"), num("stride"), num("format"))
    else {
        let _ = size_tx.send(0);
        return Err(LinuxError::Wayland(format!(
            "ScreenShot2 answered without the image's size: {:?}",
            results.keys().collect::<Vec<_>>()
        )));
    };
    let size = stride as usize * height as usize;
    let _ = size_tx.send(size);
    let bytes = tokio::task::spawn_blocking(move || read.join())
        .await
        .map_err(|e| LinuxError::Wayland(format!("the pipe reader: {e}")))?
        .map_err(|_| LinuxError::Wayland("the pipe reader panicked".into()))??;
    let rgb = to_rgb(&bytes, format, width, height, stride)?;
    Ok(RawImage {
        width,
        height,
        rgb,
        screen: Bounds::new(bounds.x, bounds.y, width as i32, height as i32),
        maybe_occluded: true,
    })
}

/// Reads the pipe until it holds the size sent on `size` (0: give up), at most
/// [`CALL_LIMIT`] after the size is known.
fn read_pipe(
    mut reader: std::io::PipeReader,
    size: std::sync::mpsc::Receiver<usize>,
) -> Result<Vec<u8>, LinuxError> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let mut buf = Vec::new();
    let mut want: Option<usize> = None;
    let mut chunk = vec![0u8; 1 << 16];
    let mut end: Option<Instant> = None;
    loop {
        if want.is_none() {
            match size.try_recv() {
                Ok(0) | Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    return Err(LinuxError::Wayland("no capture".into()))
                }
                Ok(n) => {
                    want = Some(n);
                    end = Some(Instant::now() + CALL_LIMIT);
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
            }
        }
        if let Some(n) = want {
            if buf.len() >= n {
                buf.truncate(n);
                return Ok(buf);
            }
        }
        if end.is_some_and(|t| Instant::now() >= t) {
            return Err(LinuxError::Wayland(format!(
                "ScreenShot2 sent {} of {} bytes",
                buf.len(),
                want.unwrap_or(0)
            )));
        }
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: 20_000_000,
        };
        let mut fds = [PollFd::new(&reader, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => {}
            Err(e) => return Err(LinuxError::Wayland(format!("poll: {e}"))),
        }
        match reader.read(&mut chunk) {
            Ok(0) => {
                if want.is_some_and(|n| buf.len() < n) {
                    return Err(LinuxError::Wayland(format!(
                        "ScreenShot2 closed the pipe after {} bytes",
                        buf.len()
                    )));
                }
                // The size may still be on its way.
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(LinuxError::Wayland(format!("reading the capture: {e}"))),
        }
    }
}

/// RGB bytes from a QImage buffer of `format` (QImage::Format numbers): 32-bit pixels, native
/// (little-endian) words 0xAARRGGBB for RGB32/ARGB32 (4, 5, 6), bytes R, G, B, A for the
/// RGBA8888 family (16, 17, 18).
pub(crate) fn to_rgb(
    bytes: &[u8],
    format: u32,
    width: u32,
    height: u32,
    stride: u32,
) -> Result<Vec<u8>, LinuxError> {
    let order: [usize; 3] = match format {
        4..=6 => [2, 1, 0],
        16..=18 => [0, 1, 2],
        f => {
            return Err(LinuxError::Wayland(format!(
                "ScreenShot2 sent an image of QImage format {f}, which uidriver does not read"
            )))
        }
    };
    let (w, h, stride) = (width as usize, height as usize, stride as usize);
    let mut rgb = Vec::with_capacity(w * h * 3);
    for row in 0..h {
        let line = bytes
            .get(row * stride..row * stride + w * 4)
            .ok_or_else(|| LinuxError::Wayland("short ScreenShot2 image".into()))?;
        for px in line.chunks_exact(4) {
            rgb.extend_from_slice(&[px[order[0]], px[order[1]], px[order[2]]]);
        }
    }
    Ok(rgb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_uuids_first_32_bits() {
        assert_eq!(
            window_id("{bfa5a85e-a240-4d0a-bb92-a4c08ebb30b8}"),
            Some(0xbfa5_a85e)
        );
        assert_eq!(window_id("{xyz}"), None);
        assert_eq!(window_id(""), None);
    }

    #[test]
    fn a_report_gives_content_rects_bottom_to_top_and_the_active_window() {
        let v = serde_json::json!({"done": true, "active": "{00000002-0000-4000-8000-000000000000}",
          "windows": [
            {"id": "{00000002-0000-4000-8000-000000000000}", "pid": 20, "title": "About",
             "class": "mousepad", "frame": [300, 100, 400, 300], "buffer": [280, 80, 440, 340],
             "stacking": 5, "hidden": false, "dialog": true, "modal": false,
             "transientFor": "{00000001-0000-4000-8000-000000000000}"},
            {"id": "{00000001-0000-4000-8000-000000000000}", "pid": 20, "title": "notes.txt - Mousepad",
             "class": "mousepad", "frame": [0, 0, 640, 480], "buffer": [5, 30, 630, 445],
             "stacking": 2, "hidden": false, "dialog": false, "modal": false, "transientFor": null}]});
        let r = parse_report(&v);
        assert!(r.done);
        let d = r.desktop();
        assert_eq!(d.server, Server::Kwin);
        assert_eq!(d.active, Some(2));
        assert_eq!(d.windows.iter().map(|w| w.id).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(
            d.windows[0].bounds,
            Bounds::new(5, 30, 630, 445),
            "a decorated window: its buffer"
        );
        assert_eq!(
            d.windows[1].bounds,
            Bounds::new(300, 100, 400, 300),
            "client-side decorations: the frame, without the shadow"
        );
        assert_eq!(d.windows[1].transient_for, Some(1));
        assert!(d.windows[1].dialog);
        assert_eq!(r.windows[0].frame, Bounds::new(0, 0, 640, 480));
    }

    #[test]
    fn qimage_formats_convert_to_rgb() {
        // RGB32: the word 0xffRRGGBB, little-endian bytes B, G, R, A; stride padding skipped.
        let px = [0x33, 0x22, 0x11, 0xff, 9, 9, 9, 9];
        assert_eq!(to_rgb(&px, 4, 1, 1, 8).unwrap(), vec![0x11, 0x22, 0x33]);
        assert_eq!(to_rgb(&[1, 2, 3, 4], 17, 1, 1, 4).unwrap(), vec![1, 2, 3]);
        assert!(to_rgb(&[0; 4], 3, 1, 1, 4).is_err());
        assert!(to_rgb(&[0; 3], 4, 1, 1, 4).is_err());
    }

    #[test]
    fn placeholders_become_json_string_bodies() {
        assert_eq!(js_string(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(js_string(":1.42"), ":1.42");
    }
}
