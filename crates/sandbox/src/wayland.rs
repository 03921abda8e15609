//! Wayland side of the sandbox: a headless sway (wlroots) as compositor and window manager, how
//! it is started (as root only inside a user namespace that maps an ordinary uid: sway refuses
//! uid 0), its generated config, and the few questions asked over sway's IPC socket (the output
//! and its size for readiness, the pids of mapped windows). Starting and recording the process
//! is `sandbox.rs`'s job; stopping it is `stop.rs`'s, like every other component.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::procfs;
use crate::SandboxError;

/// sway's generated config, in the state dir.
pub(crate) const CONFIG_FILE: &str = "sway.config";
/// sway's IPC socket, in the runtime dir (exported as `SWAYSOCK`).
pub(crate) const IPC_SOCKET: &str = "sway-ipc.sock";
/// The one output of wlroots' headless backend.
pub(crate) const OUTPUT: &str = "HEADLESS-1";
/// The uid and gid sway runs as inside its user namespace when we are root. Clients running as
/// root outside connect to its socket (measured on sway 1.7, /work/shared/design/WAYLAND-FACTS.md).
const NAMESPACE_ID: u32 = 1000;
/// How long one IPC request may take (sway answers in well under a millisecond when idle).
const IPC_TIMEOUT: Duration = Duration::from_secs(2);
/// Variables only the compositor gets: wlroots' headless backend, software rendering (no GPU
/// on these machines) and no libinput devices (there is no seat hardware).
const COMPOSITOR_VARS: &[(&str, &str)] = &[
    ("WLR_BACKENDS", "headless"),
    ("WLR_RENDERER", "pixman"),
    ("WLR_LIBINPUT_NO_DEVICES", "1"),
];
/// sway IPC message types (sway-ipc(7)).
const GET_OUTPUTS: u32 = 3;
const GET_TREE: u32 = 4;
/// Every sway IPC message starts with this.
const MAGIC: &[u8; 6] = b"i3-ipc";

/// The generated config: the output's size, XWayland on (lazy: started by the first X client)
/// or off, and nothing else — no bar, no wallpaper process, no key bindings.
pub(crate) fn config_text(width: u32, height: u32, xwayland: bool) -> String {
    format!(
        "# Written by uidriver's sandbox for one headless session.\n\
         output {OUTPUT} resolution {width}x{height}\n\
         xwayland {}\n\
         focus_follows_mouse no\n",
        if xwayland { "enable" } else { "disable" }
    )
}

/// Program and arguments that start sway on `config`: as root through `unshare` into a user
/// namespace mapping our uid to [`NAMESPACE_ID`] (`unshare` execs sway in place without
/// `--fork`, so the recorded pid is sway's), otherwise sway itself.
pub(crate) fn command(
    sway: &Path,
    unshare: Option<&Path>,
    config: &Path,
) -> (PathBuf, Vec<String>) {
    let sway_args = vec!["-c".to_string(), config.to_string_lossy().into_owned()];
    match unshare {
        Some(unshare) => {
            let mut args = vec![
                "--user".to_string(),
                format!("--map-user={NAMESPACE_ID}"),
                format!("--map-group={NAMESPACE_ID}"),
                sway.to_string_lossy().into_owned(),
            ];
            args.extend(sway_args);
            (unshare.to_path_buf(), args)
        }
        None => (sway.to_path_buf(), sway_args),
    }
}

/// Whether sway must be started in a user namespace: it refuses to run as root.
pub(crate) fn needs_namespace() -> bool {
    rustix::process::getuid().is_root()
}

/// The compositor's environment: the sandbox's, without a display of its own to connect to,
/// with `SWAYSOCK` (sway takes the path when nothing is there yet) and the wlroots variables.
pub(crate) fn compositor_env(env: &[(String, String)], ipc: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "WAYLAND_DISPLAY" | "DISPLAY" | "SWAYSOCK"))
        .cloned()
        .collect();
    out.push(("SWAYSOCK".into(), ipc.to_string_lossy().into_owned()));
    out.extend(
        COMPOSITOR_VARS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    out
}

/// The compositor's socket in `runtime` (`wayland-1`: libwayland picks the first free name, and
/// the runtime dir is the sandbox's own).
pub(crate) fn socket_name(runtime: &Path) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(runtime)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(String::from))
        .filter(|n| n.starts_with("wayland-") && !n.ends_with(".lock"))
        .collect();
    names.sort();
    names.into_iter().next()
}

/// The X display number XWayland listens on for the compositor `pid`: wlroots writes the
/// compositor's pid into the `/tmp/.XN-lock` it takes when it opens XWayland's sockets.
pub(crate) fn xwayland_display(pid: u32) -> Option<u32> {
    std::fs::read_dir("/tmp")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let n: u32 = name
                .to_str()?
                .strip_prefix(".X")?
                .strip_suffix("-lock")?
                .parse()
                .ok()?;
            (procfs::lock_file_pid(&e.path()) == Some(pid)).then_some(n)
        })
        .min()
}

/// The size of [`OUTPUT`] when it is active (`None` while sway has not made it yet).
pub(crate) fn output_size(ipc: &Path) -> Result<Option<(u32, u32)>, SandboxError> {
    let outputs = request(ipc, GET_OUTPUTS)?;
    Ok(outputs.as_array().and_then(|list| {
        list.iter()
            .find(|o| o["name"] == OUTPUT && o["active"] == true)
            .and_then(|o| {
                let mode = &o["current_mode"];
                Some((
                    u32::try_from(mode["width"].as_u64()?).ok()?,
                    u32::try_from(mode["height"].as_u64()?).ok()?,
                ))
            })
    }))
}

/// Pids of the clients that have a window in sway's tree (tiled or floating).
pub(crate) fn window_pids(ipc: &Path) -> Result<Vec<u32>, SandboxError> {
    let tree = request(ipc, GET_TREE)?;
    let mut pids = Vec::new();
    collect_pids(&tree, &mut pids);
    Ok(pids)
}

fn collect_pids(node: &Value, out: &mut Vec<u32>) {
    if let Some(pid) = node["pid"].as_u64().and_then(|p| u32::try_from(p).ok()) {
        out.push(pid);
    }
    for key in ["nodes", "floating_nodes"] {
        for child in node[key].as_array().into_iter().flatten() {
            collect_pids(child, out);
        }
    }
}

/// One IPC round trip with an empty payload: the reply's JSON.
fn request(ipc: &Path, kind: u32) -> Result<Value, SandboxError> {
    let ctx = || format!("{} request {kind}", ipc.display());
    let err = |e: std::io::Error| SandboxError::compositor(ctx(), e);
    let mut s = UnixStream::connect(ipc).map_err(err)?;
    s.set_read_timeout(Some(IPC_TIMEOUT)).map_err(err)?;
    s.set_write_timeout(Some(IPC_TIMEOUT)).map_err(err)?;
    let mut msg = Vec::with_capacity(14);
    msg.extend_from_slice(MAGIC);
    msg.extend_from_slice(&0u32.to_ne_bytes());
    msg.extend_from_slice(&kind.to_ne_bytes());
    s.write_all(&msg).map_err(err)?;
    let mut head = [0u8; 14];
    s.read_exact(&mut head).map_err(err)?;
    if &head[..6] != MAGIC {
        return Err(SandboxError::compositor(
            ctx(),
            "reply without the i3-ipc magic",
        ));
    }
    let len = u32::from_ne_bytes([head[6], head[7], head[8], head[9]]) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).map_err(err)?;
    serde_json::from_slice(&body).map_err(|e| SandboxError::compositor(ctx(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_sets_the_output_size_and_xwayland() {
        let c = config_text(1024, 768, false);
        assert!(c.contains("output HEADLESS-1 resolution 1024x768\n"), "{c}");
        assert!(c.contains("xwayland disable\n"));
        assert!(config_text(800, 600, true).contains("xwayland enable\n"));
    }

    #[test]
    fn as_root_sway_runs_in_a_user_namespace() {
        let (prog, args) = command(
            Path::new("/usr/bin/sway"),
            Some(Path::new("/usr/bin/unshare")),
            Path::new("/s/sway.config"),
        );
        assert_eq!(prog, Path::new("/usr/bin/unshare"));
        assert_eq!(
            args,
            [
                "--user",
                "--map-user=1000",
                "--map-group=1000",
                "/usr/bin/sway",
                "-c",
                "/s/sway.config"
            ]
        );
        let (prog, args) = command(Path::new("/usr/bin/sway"), None, Path::new("/c"));
        assert_eq!(
            (prog.as_path(), args.as_slice()),
            (
                Path::new("/usr/bin/sway"),
                &["-c".to_string(), "/c".into()][..]
            )
        );
    }

    #[test]
    fn the_compositor_gets_no_display_and_the_wlroots_variables() {
        let env = vec![
            ("WAYLAND_DISPLAY".to_string(), "wayland-1".to_string()),
            ("DISPLAY".into(), ":0".into()),
            ("HOME".into(), "/h".into()),
        ];
        let out = compositor_env(&env, Path::new("/r/sway-ipc.sock"));
        let keys: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "HOME",
                "SWAYSOCK",
                "WLR_BACKENDS",
                "WLR_RENDERER",
                "WLR_LIBINPUT_NO_DEVICES"
            ]
        );
    }

    #[test]
    fn window_pids_come_from_tiled_and_floating_nodes() {
        let tree = serde_json::json!({
            "nodes": [{"nodes": [{"pid": 12, "nodes": []}], "floating_nodes": [{"pid": 34}]}]
        });
        let mut pids = Vec::new();
        collect_pids(&tree, &mut pids);
        assert_eq!(pids, [12, 34]);
    }
}
