//! Whole-desktop control for `desktop_screenshot` / `desktop_input`: the screen's pixels, the
//! window layout a screenshot was taken with (the frame lease), raw input bound to it, bringing
//! an application to the front (launching it when it is not running), and the clipboard.
//!
//! Raw input carries no window identity, so it never raises or focuses anything by itself; the
//! frame check is what keeps it honest: before coordinate input, the window under each point and
//! its geometry must be what the screenshot showed.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use uidriver_core::{
    Bounds, Deadline, Delivery, Error, ErrorCode, InputLock, RawImage, Result, RootInfo,
    ScreenControl, ScreenFrame, ScreenInput, StepReport,
};

use crate::x11::ewmh::XDesktop;
use crate::{clipboard, LinuxBackend};

/// Longest time `activate_app` waits for a launched application's window.
const LAUNCH_WAIT: Duration = Duration::from_secs(20);

fn visible_windows(d: &XDesktop) -> Vec<(u64, Bounds)> {
    d.windows
        .iter()
        .filter(|w| !w.hidden && w.bounds.is_visible())
        .map(|w| (u64::from(w.id), w.bounds))
        .collect()
}

/// The front-most window of a layout containing a point.
fn top_at(layout: &[(u64, Bounds)], x: i32, y: i32) -> Option<(u64, Bounds)> {
    layout.iter().rev().find(|(_, b)| b.contains(x, y)).copied()
}

/// Compares the windows under `points` in two layouts; the first difference, described.
pub(crate) fn frame_difference(
    then: &ScreenFrame,
    now: &ScreenFrame,
    points: &[(i32, i32)],
) -> Option<String> {
    for &(x, y) in points {
        let (a, b) = (top_at(&then.windows, x, y), top_at(&now.windows, x, y));
        match (a, b) {
            (Some((wa, ba)), Some((wb, bb))) if wa == wb && ba == bb => {}
            (None, None) => {}
            (Some((wa, ba)), Some((wb, bb))) if wa == wb => {
                return Some(format!(
                    "window {wa:#x} under ({x},{y}) moved or resized from {ba} to {bb}"
                ))
            }
            (Some((wa, _)), Some((wb, _))) => {
                return Some(format!(
                    "the window under ({x},{y}) was {wa:#x} and is now {wb:#x}"
                ))
            }
            (Some((wa, _)), None) => {
                return Some(format!("window {wa:#x} under ({x},{y}) is gone"))
            }
            (None, Some((wb, _))) => return Some(format!("window {wb:#x} now covers ({x},{y})")),
        }
    }
    None
}

fn matches_app(info: &RootInfo, spec: &str) -> bool {
    let s = spec.trim().trim_end_matches(".desktop").to_lowercase();
    if info.app.to_lowercase() == s {
        return true;
    }
    let Some(pid) = info.pid else { return false };
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    if comm.trim().to_lowercase() == s {
        return true;
    }
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().to_lowercase()))
        .is_some_and(|n| n == s)
}

/// The command line to launch `spec`: a desktop file (by id or Name), else an executable.
fn launch_command(spec: &str) -> Option<Vec<String>> {
    let wanted = spec.trim().trim_end_matches(".desktop").to_lowercase();
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(h) = std::env::var_os("XDG_DATA_HOME") {
        dirs.push(PathBuf::from(h));
    }
    let sys =
        std::env::var("XDG_DATA_DIRS").unwrap_or_else(|_| "/usr/local/share:/usr/share".into());
    dirs.extend(sys.split(':').filter(|d| !d.is_empty()).map(PathBuf::from));
    for d in &dirs {
        let Ok(entries) = std::fs::read_dir(d.join("applications")) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "desktop") {
                continue;
            }
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let (name, exec) = desktop_entry(&text);
            let exe_base = exec.as_ref().and_then(|e| e.first()).and_then(|p| {
                Path::new(p)
                    .file_name()
                    .map(|n| n.to_string_lossy().to_lowercase())
            });
            let hit = stem == wanted
                || stem.rsplit('.').next() == Some(wanted.as_str())
                || name.as_deref().map(str::to_lowercase).as_deref() == Some(wanted.as_str())
                || exe_base.as_deref() == Some(wanted.as_str());
            if hit {
                if let Some(cmd) = exec {
                    return Some(cmd);
                }
            }
        }
    }
    // A plain executable on PATH.
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .map(|d| Path::new(d).join(spec.trim()))
        .find(|p| p.is_file())
        .map(|p| vec![p.display().to_string()])
}

/// `Name=` and `Exec=` of the `[Desktop Entry]` group, with field codes (%U, %f …) removed.
fn desktop_entry(text: &str) -> (Option<String>, Option<Vec<String>>) {
    let mut in_entry = false;
    let (mut name, mut exec) = (None, None);
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_entry = line == "[Desktop Entry]";
            continue;
        }
        if !in_entry {
            continue;
        }
        if let Some(v) = line.strip_prefix("Name=") {
            name.get_or_insert_with(|| v.to_string());
        } else if let Some(v) = line.strip_prefix("Exec=") {
            let args: Vec<String> = v
                .split_whitespace()
                .filter(|a| !(a.starts_with('%') && a.len() == 2))
                .map(|a| a.trim_matches('"').to_string())
                .collect();
            if !args.is_empty() {
                exec.get_or_insert(args);
            }
        }
    }
    (name, exec)
}

impl LinuxBackend {
    fn desk(&self) -> Result<&crate::desk::DeskThread> {
        self.inner
            .desk
            .as_ref()
            .ok_or_else(|| self.no_desk("whole-screen control"))
    }

    fn display_name(&self) -> Result<String> {
        self.inner.config.display.clone().ok_or_else(|| {
            Error::new(
                ErrorCode::BackendUnavailable,
                "no X display: the clipboard needs one",
            )
        })
    }

    /// Asks the window manager to activate `window` and waits until it is the active window.
    async fn activate_window(&self, window: u32, deadline: Deadline) -> Result<bool> {
        let x = self.desk()?;
        x.run(deadline.cap(Duration::from_secs(2)), move |c| {
            c.request_activate(window)
        })
        .await
        .map_err(Error::from)?;
        let until = deadline.cap(Duration::from_secs(3));
        loop {
            let active = x
                .run(until, |c| c.desktop().map(|d| d.active))
                .await
                .map_err(Error::from)?;
            if active == Some(window) {
                return Ok(true);
            }
            if until.expired() {
                return Ok(false);
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }
}

#[async_trait]
impl ScreenControl for LinuxBackend {
    async fn screenshot(&self, deadline: Deadline) -> Result<RawImage> {
        let x = self.desk()?;
        let img = x
            .run(deadline, |c| {
                let full = c.screen()?;
                c.capture(None, full)
            })
            .await
            .map_err(Error::from)?;
        // The whole screen is what was asked for: nothing can cover it.
        Ok(RawImage {
            maybe_occluded: false,
            ..img
        })
    }

    async fn frame(&self, deadline: Deadline) -> Result<ScreenFrame> {
        let d = self
            .desk()?
            .run(deadline, |c| c.desktop())
            .await
            .map_err(Error::from)?;
        Ok(ScreenFrame {
            windows: visible_windows(&d),
        })
    }

    async fn check_frame(
        &self,
        frame: &ScreenFrame,
        points: &[(i32, i32)],
        deadline: Deadline,
    ) -> Result<()> {
        let now = self.frame(deadline).await?;
        match frame_difference(frame, &now, points) {
            None => Ok(()),
            Some(why) => Err(Error::new(
                ErrorCode::GuiFrameStale,
                format!("the screen changed since the screenshot: {why}; nothing was sent"),
            )),
        }
    }

    async fn input(
        &self,
        events: &[ScreenInput],
        lock: &InputLock,
        deadline: Deadline,
    ) -> Result<Vec<StepReport>> {
        crate::screen_input::send(self, events, lock, deadline).await
    }

    async fn activate_app(&self, spec: &str, deadline: Deadline) -> Result<RootInfo> {
        if spec.trim().is_empty() {
            return Err(Error::invalid("activateApp", "name an application"));
        }
        let find = |roots: Vec<RootInfo>| {
            let mut hits: Vec<RootInfo> = roots
                .into_iter()
                .filter(|r| r.window_id.is_some() && !r.hidden && matches_app(r, spec))
                .collect();
            hits.sort_by_key(|r| std::cmp::Reverse(r.stacking.unwrap_or(0)));
            hits.into_iter().next()
        };
        let mut launched = false;
        let mut found = find(uidriver_core::Backend::list_roots(self, deadline).await?);
        if found.is_none() {
            let cmd = launch_command(spec).ok_or_else(|| {
                Error::new(
                    ErrorCode::RootNotFound,
                    "no running window, desktop file or executable matches that name",
                )
                .with_hint(
                    "give the desktop file id (org.gnome.Calculator), its Name, or the executable",
                )
            })?;
            let mut c = std::process::Command::new(&cmd[0]);
            c.args(&cmd[1..])
                .envs(self.inner.config.launch_env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            std::os::unix::process::CommandExt::process_group(&mut c, 0);
            let mut child = c.spawn().map_err(|e| {
                Error::new(
                    ErrorCode::RootNotFound,
                    format!("cannot start {}: {e}", cmd[0]),
                )
            })?;
            // Reap it whenever it exits, without blocking.
            std::thread::spawn(move || child.wait());
            launched = true;
            let until = deadline.cap(LAUNCH_WAIT);
            while found.is_none() {
                if until.expired() {
                    return Err(Error::new(
                        ErrorCode::Timeout,
                        "the application started but showed no window in time",
                    )
                    .delivered(Delivery::Delivered));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                found = find(uidriver_core::Backend::list_roots(self, until).await?);
            }
        }
        let mut root = found.ok_or_else(|| Error::internal("no window after launch"))?;
        // A freshly launched app shows its X11 window before its accessibility tree (GTK4
        // gnome-calculator: ~2 s); give the tree a bounded moment so the root is usable.
        if launched && !root.has_tree {
            let until = deadline.cap(Duration::from_secs(8));
            while !until.expired() {
                tokio::time::sleep(Duration::from_millis(200)).await;
                let roots = uidriver_core::Backend::list_roots(self, until).await?;
                if let Some(r) = roots.into_iter().find(|r| r.key == root.key && r.has_tree) {
                    root = r;
                    break;
                }
            }
        }
        let window = root
            .window_id
            .and_then(|w| u32::try_from(w).ok())
            .ok_or_else(|| Error::internal("window id out of range"))?;
        let active = self.activate_window(window, deadline).await?;
        if !active {
            return Err(Error::new(
                ErrorCode::ForegroundRequired,
                "the window manager did not make the window active",
            )
            .delivered(Delivery::Delivered)
            .with_details(serde_json::json!({ "launched": launched })));
        }
        root.focused = true;
        Ok(root)
    }

    async fn clipboard_read(&self, deadline: Deadline) -> Result<String> {
        let display = self.display_name()?;
        let timeout = deadline.remaining().min(Duration::from_secs(3));
        tokio::task::spawn_blocking(move || clipboard::read(&display, timeout))
            .await
            .map_err(|e| Error::internal(format!("clipboard task: {e}")))?
            .map(Option::unwrap_or_default)
            .map_err(Error::from)
    }

    async fn clipboard_write(&self, text: &str, _deadline: Deadline) -> Result<()> {
        let display = self.display_name()?;
        let text = text.to_string();
        let owner = tokio::task::spawn_blocking(move || clipboard::write(&display, text))
            .await
            .map_err(|e| Error::internal(format!("clipboard task: {e}")))?
            .map_err(Error::from)?;
        let previous = self
            .inner
            .clipboard
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .replace(owner);
        if let Some(p) = previous {
            p.release();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_differences_are_named() {
        let then = ScreenFrame {
            windows: vec![
                (1, Bounds::new(0, 0, 100, 100)),
                (2, Bounds::new(50, 50, 100, 100)),
            ],
        };
        assert_eq!(frame_difference(&then, &then, &[(10, 10), (60, 60)]), None);
        let moved = ScreenFrame {
            windows: vec![
                (1, Bounds::new(0, 0, 100, 100)),
                (2, Bounds::new(60, 50, 100, 100)),
            ],
        };
        assert!(frame_difference(&then, &moved, &[(70, 70)])
            .unwrap()
            .contains("moved"));
        assert_eq!(frame_difference(&then, &moved, &[(10, 10)]), None);
        let covered = ScreenFrame {
            windows: vec![
                (1, Bounds::new(0, 0, 100, 100)),
                (3, Bounds::new(0, 0, 20, 20)),
            ],
        };
        assert!(frame_difference(&then, &covered, &[(10, 10)])
            .unwrap()
            .contains("is now"));
    }

    #[test]
    fn desktop_entries_parse() {
        let (n, e) = desktop_entry("[Desktop Entry]\nName=Calculator\nExec=gnome-calculator %U\n[Desktop Action x]\nExec=no\n");
        assert_eq!(n.as_deref(), Some("Calculator"));
        assert_eq!(e, Some(vec!["gnome-calculator".to_string()]));
    }
}
