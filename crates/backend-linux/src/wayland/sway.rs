//! sway's IPC (i3's protocol over the Unix socket in `$SWAYSOCK`): the window tree, where each
//! window's rectangle, process and focus are, and commands that focus or close one. A Wayland
//! client cannot learn any of this (foreign-toplevel gives titles and states, no geometry), so
//! the compositor's own IPC is the one source of window rectangles here.
//!
//! A message is `i3-ipc`, the payload's length and its type (both u32, native byte order),
//! then the JSON payload; the answer has the same header. Every read and write has a deadline
//! (a stopped compositor must not hold a thread forever).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use uidriver_core::Bounds;

use crate::error::LinuxError;
use crate::x11::ewmh::{Server, XDesktop, XWindow};

const MAGIC: &[u8; 6] = b"i3-ipc";
/// `RUN_COMMAND`.
const RUN_COMMAND: u32 = 0;
/// `GET_TREE`.
const GET_TREE: u32 = 4;
/// `GET_VERSION`.
const GET_VERSION: u32 = 7;
/// Longest wait for one answer.
const IO_TIMEOUT: Duration = Duration::from_secs(2);
/// Largest answer read (a tree of a few hundred windows is well under 1 MB).
const MAX_ANSWER: u32 = 16 << 20;

/// A connection to sway's IPC socket, opened on first use and again after a failure.
pub(crate) struct SwayIpc {
    path: PathBuf,
    stream: Option<UnixStream>,
}

fn ipc_err(path: &Path, e: impl std::fmt::Display) -> LinuxError {
    LinuxError::Wayland(format!("sway IPC {}: {e}", path.display()))
}

impl SwayIpc {
    pub(crate) fn new(path: PathBuf) -> SwayIpc {
        SwayIpc { path, stream: None }
    }

    /// Sends one message and reads its answer; a broken connection is dropped so the next
    /// request opens a new one.
    fn request(&mut self, kind: u32, payload: &str) -> Result<Value, LinuxError> {
        let r = self.exchange(kind, payload);
        if r.is_err() {
            self.stream = None;
        }
        r
    }

    fn exchange(&mut self, kind: u32, payload: &str) -> Result<Value, LinuxError> {
        if self.stream.is_none() {
            let s = UnixStream::connect(&self.path).map_err(|e| {
                LinuxError::NoCompositor(format!("sway IPC {}: {e}", self.path.display()))
            })?;
            s.set_read_timeout(Some(IO_TIMEOUT))
                .and_then(|()| s.set_write_timeout(Some(IO_TIMEOUT)))
                .map_err(|e| ipc_err(&self.path, e))?;
            self.stream = Some(s);
        }
        let path = self.path.clone();
        let s = self
            .stream
            .as_mut()
            .ok_or_else(|| ipc_err(&path, "not connected"))?;
        let mut msg = Vec::with_capacity(14 + payload.len());
        msg.extend_from_slice(MAGIC);
        msg.extend_from_slice(&(payload.len() as u32).to_ne_bytes());
        msg.extend_from_slice(&kind.to_ne_bytes());
        msg.extend_from_slice(payload.as_bytes());
        s.write_all(&msg).map_err(|e| ipc_err(&path, e))?;
        let mut head = [0u8; 14];
        s.read_exact(&mut head).map_err(|e| ipc_err(&path, e))?;
        if &head[..6] != MAGIC {
            return Err(ipc_err(&path, "not an i3-ipc answer"));
        }
        let len = u32::from_ne_bytes([head[6], head[7], head[8], head[9]]);
        if len > MAX_ANSWER {
            return Err(ipc_err(&path, format!("an answer of {len} bytes")));
        }
        let mut body = vec![0u8; len as usize];
        s.read_exact(&mut body).map_err(|e| ipc_err(&path, e))?;
        serde_json::from_slice(&body).map_err(|e| ipc_err(&path, e))
    }

    /// The whole tree (`swaymsg -t get_tree`).
    pub(crate) fn tree(&mut self) -> Result<Value, LinuxError> {
        self.request(GET_TREE, "")
    }

    /// The compositor's name and version (`sway version 1.7`).
    pub(crate) fn version(&mut self) -> Result<String, LinuxError> {
        let v = self.request(GET_VERSION, "")?;
        Ok(v["human_readable"]
            .as_str()
            .map(|h| format!("sway {h}"))
            .unwrap_or_else(|| "sway (version unknown)".into()))
    }

    /// The windows as a window list ([`desktop_of`]).
    pub(crate) fn desktop(&mut self) -> Result<XDesktop, LinuxError> {
        Ok(desktop_of(&self.tree()?))
    }

    /// Runs one command on window `id` (`[con_id=ID] CMD`); whether sway accepted it.
    pub(crate) fn command_on(&mut self, id: u32, cmd: &str) -> Result<bool, LinuxError> {
        let answer = self.request(RUN_COMMAND, &format!("[con_id={id}] {cmd}"))?;
        Ok(answer
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(|r| r["success"] == true)))
    }
}

fn rect(v: &Value) -> Bounds {
    let n = |k: &str| v[k].as_i64().unwrap_or(0) as i32;
    Bounds::new(n("x"), n("y"), n("width"), n("height"))
}

/// A view's content rectangle on screen: its container's rectangle (border and title bar
/// included) moved by the window rectangle (relative to it; the surface's window geometry).
fn content(node: &Value) -> Bounds {
    let (outer, inner) = (rect(&node["rect"]), rect(&node["window_rect"]));
    Bounds::new(
        outer.x + inner.x,
        outer.y + inner.y,
        inner.width,
        inner.height,
    )
}

/// Whether `node` is a view (a window of a client), not a split or a workspace.
fn is_view(node: &Value) -> bool {
    matches!(node["type"].as_str(), Some("con" | "floating_con"))
        && (node["pid"].is_u64() || node["app_id"].is_string() || node["shell"].is_string())
        && node["nodes"].as_array().is_none_or(Vec::is_empty)
}

/// A window in sway's tree.
pub(crate) struct View {
    /// The window, its content rectangle as `bounds`.
    pub window: XWindow,
    /// Its container's rectangle: the content with border and title bar.
    pub outer: Bounds,
    /// Whether it has the keyboard focus.
    pub focused: bool,
}

/// The tree's windows bottom to top: tiled views in tree order, then floating ones in their
/// stacking order (sway keeps the top-most last).
pub(crate) fn views(tree: &Value) -> Vec<View> {
    let mut tiled = Vec::new();
    let mut floating = Vec::new();
    collect(tree, false, &mut tiled, &mut floating);
    let mut all: Vec<View> = tiled.into_iter().chain(floating).collect();
    for (i, v) in all.iter_mut().enumerate() {
        v.window.stacking = i as u32;
    }
    all
}

/// The tree's windows as a window list ([`views`]) with the focused one. sway has no
/// transient-for; a floating view counts as a dialog (sway floats dialogs).
pub(crate) fn desktop_of(tree: &Value) -> XDesktop {
    let views = views(tree);
    XDesktop {
        active: views.iter().find(|v| v.focused).map(|v| v.window.id),
        windows: views.into_iter().map(|v| v.window).collect(),
        server: Server::Sway,
    }
}

fn collect(node: &Value, in_floating: bool, tiled: &mut Vec<View>, floating: &mut Vec<View>) {
    if is_view(node) {
        let floats = in_floating || node["type"] == "floating_con";
        let window = XWindow {
            id: node["id"].as_u64().unwrap_or(0) as u32,
            pid: node["pid"].as_u64().map(|p| p as u32),
            title: node["name"].as_str().unwrap_or_default().to_string(),
            class: node["app_id"]
                .as_str()
                .or(node["window_properties"]["class"].as_str())
                .unwrap_or_default()
                .to_string(),
            stacking: 0,
            // On a workspace not shown (or in the scratchpad): not on screen.
            hidden: node["visible"] == false,
            modal: false,
            dialog: floats,
            transient_for: None,
            bounds: content(node),
            xwayland: node["shell"] == "xwayland",
        };
        let view = View {
            window,
            outer: rect(&node["rect"]),
            focused: node["focused"] == true,
        };
        if floats {
            floating.push(view);
        } else {
            tiled.push(view);
        }
        return;
    }
    for child in node["nodes"].as_array().into_iter().flatten() {
        collect(child, in_floating, tiled, floating);
    }
    for child in node["floating_nodes"].as_array().into_iter().flatten() {
        collect(child, true, tiled, floating);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of `swaymsg -t get_tree` on the headless sandbox: a tiled mousepad and
    /// featherpad, a floating dialog, and the scratchpad workspace.
    fn sample() -> Value {
        serde_json::json!({"id": 1, "type": "root", "rect": {"x":0,"y":0,"width":1280,"height":720},
          "nodes": [
            {"id": 2147483647, "type": "output", "name": "__i3", "nodes": [
              {"id": 2147483646, "type": "workspace", "name": "__i3_scratch", "nodes": [], "floating_nodes": []}]},
            {"id": 3, "type": "output", "name": "HEADLESS-1", "nodes": [
              {"id": 4, "type": "workspace", "name": "1", "nodes": [
                {"id": 5, "type": "con", "name": "notes.txt - Mousepad", "pid": 2284, "app_id": "mousepad",
                 "shell": "xdg_shell", "focused": false, "visible": true, "nodes": [],
                 "rect": {"x":0,"y":25,"width":640,"height":695}, "window_rect": {"x":2,"y":0,"width":636,"height":693}},
                {"id": 6, "type": "con", "name": "Untitled", "pid": 4570, "app_id": "featherpad",
                 "shell": "xdg_shell", "focused": false, "visible": true, "nodes": [],
                 "rect": {"x":640,"y":25,"width":640,"height":695}, "window_rect": {"x":2,"y":0,"width":636,"height":693}}],
               "floating_nodes": [
                {"id": 8, "type": "floating_con", "name": "Save As", "pid": 2284, "app_id": "mousepad",
                 "shell": "xdg_shell", "focused": true, "visible": true, "nodes": [],
                 "rect": {"x":300,"y":100,"width":600,"height":400}, "window_rect": {"x":2,"y":25,"width":596,"height":373}}]}]}]})
    }

    #[test]
    fn the_tree_gives_windows_with_content_rects_bottom_to_top_and_the_focus() {
        let d = desktop_of(&sample());
        assert_eq!(d.server, Server::Sway);
        let ids: Vec<u32> = d.windows.iter().map(|w| w.id).collect();
        assert_eq!(ids, [5, 6, 8], "tiled first, floating on top");
        assert_eq!(d.active, Some(8));
        let m = &d.windows[0];
        assert_eq!((m.pid, m.class.as_str()), (Some(2284), "mousepad"));
        assert_eq!(m.bounds, Bounds::new(2, 25, 636, 693));
        assert!(!m.dialog && !m.hidden);
        let dialog = &d.windows[2];
        assert!(dialog.dialog);
        assert_eq!(dialog.bounds, Bounds::new(302, 125, 596, 373));
        assert_eq!(
            d.windows.iter().map(|w| w.stacking).collect::<Vec<_>>(),
            [0, 1, 2]
        );
    }

    #[test]
    fn views_on_hidden_workspaces_are_hidden_and_splits_are_not_views() {
        let mut t = sample();
        t["nodes"][1]["nodes"][0]["nodes"][1]["visible"] = false.into();
        let split = serde_json::json!({"id": 9, "type": "con", "name": null, "nodes": [
            {"id": 10, "type": "con", "name": "inner", "pid": 7, "app_id": "foot", "visible": true,
             "nodes": [], "rect": {"x":0,"y":0,"width":10,"height":10},
             "window_rect": {"x":0,"y":0,"width":10,"height":10}}]});
        t["nodes"][1]["nodes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .push(split);
        let d = desktop_of(&t);
        assert!(d.windows.iter().find(|w| w.id == 6).unwrap().hidden);
        assert!(d.windows.iter().any(|w| w.id == 10));
        assert!(
            !d.windows.iter().any(|w| w.id == 9),
            "a split is not a window"
        );
    }
}
