//! `uidriver sandbox`: an isolated desktop for demos, tests, and agents kept off the user's own
//! screen. Without an action it runs the command after `--` inside and tears everything down.

use std::path::PathBuf;
use std::time::Duration;

use uidriver_sandbox::{DisplayServer, Sandbox, SandboxConfig};
use uidriver_transports::DaemonClient;

use super::{exit, say};
use crate::cli::SandboxArgs;

/// How long an app may take to show a window on the accessibility bus (gnome-calculator: ~3 s).
const APP_TIMEOUT: Duration = Duration::from_secs(30);

fn named_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("uidriver-sandbox-{name}"))
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once('x').ok_or("expected WIDTHxHEIGHT")?;
    let w: u32 = w.parse().map_err(|_| "bad width")?;
    let h: u32 = h.parse().map_err(|_| "bad height")?;
    if !(200..=8192).contains(&w) || !(200..=8192).contains(&h) {
        return Err("size must be between 200x200 and 8192x8192".into());
    }
    Ok((w, h))
}

/// Starts the apps (each through `sh -c exec`, so quoting works) and waits for their windows.
pub fn start_apps(sb: &Sandbox, apps: &[String]) -> Result<Vec<u32>, String> {
    let mut pids = Vec::new();
    for app in apps {
        let argv = vec!["sh".to_string(), "-c".into(), format!("exec {app}")];
        let pid = sb
            .spawn(&argv)
            .map_err(|e| format!("starting {app:?}: {e}"))?;
        sb.wait_for_app_window(pid, APP_TIMEOUT)
            .map_err(|e| format!("{app:?} did not show a window: {e}"))?;
        pids.push(pid);
    }
    Ok(pids)
}

/// The sandbox's environment as `export K='V'` lines.
pub fn env_lines(sb: &Sandbox) -> String {
    sb.env()
        .iter()
        .map(|(k, v)| format!("export {k}='{}'", v.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How long a daemon in a stopping sandbox has to answer its shutdown.
const DAEMON_SHUTDOWN: Duration = Duration::from_secs(5);

/// Asks every uidriver daemon serving the sandbox's desktop (its sockets are in the sandbox's
/// runtime directory) to shut down before the sandbox stops. A daemon a client started after
/// `eval "$(uidriver sandbox env)"` carries no sandbox marker: it would outlive its desktop and
/// wait out its idle timeout. One that does not answer is left to the sandbox's stop.
fn stop_daemons(sb: &Sandbox) {
    let Some(dir) = sb
        .env()
        .iter()
        .find(|(k, _)| k == "XDG_RUNTIME_DIR")
        .map(|(_, v)| PathBuf::from(v).join("uidriver"))
    else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let rt = tokio::runtime::Handle::current();
    for path in entries.flatten().map(|e| e.path()) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !(name.starts_with("daemon-") && name.ends_with(".sock")) {
            continue;
        }
        let shut = async {
            match DaemonClient::connect(&path).await {
                Ok(c) => c.shutdown().await.is_ok(),
                Err(_) => false,
            }
        };
        let done = rt.block_on(tokio::time::timeout(DAEMON_SHUTDOWN, shut));
        tracing::debug!(socket = %path.display(), ?done, "daemon of a stopping sandbox");
    }
}

/// Starts an X11 sandbox of `size` (WIDTHxHEIGHT).
pub fn start(size: &str, state_dir: Option<PathBuf>) -> Result<Sandbox, String> {
    start_on(size, DisplayServer::X11, false, state_dir)
}

/// Starts a sandbox of `size` on `display_server` (`--wayland`), with XWayland when `xwayland`.
pub fn start_on(
    size: &str,
    display_server: DisplayServer,
    xwayland: bool,
    state_dir: Option<PathBuf>,
) -> Result<Sandbox, String> {
    let (width, height) = parse_size(size)?;
    Sandbox::start(SandboxConfig {
        width,
        height,
        display_server,
        xwayland,
        state_dir,
        ..SandboxConfig::default()
    })
    .map_err(|e| e.to_string())
}

/// The display server the flags ask for.
fn display_server(a: &SandboxArgs) -> DisplayServer {
    if a.wayland && a.compositor == "kwin" {
        DisplayServer::Kwin
    } else if a.wayland {
        DisplayServer::Wayland
    } else {
        DisplayServer::X11
    }
}

pub async fn run(a: SandboxArgs) -> u8 {
    tokio::task::spawn_blocking(move || run_blocking(a))
        .await
        .unwrap_or(exit::UNAVAILABLE)
}

fn run_blocking(a: SandboxArgs) -> u8 {
    match a.action.as_deref() {
        Some("start") => {
            let sb = match start_on(
                &a.size,
                display_server(&a),
                a.xwayland,
                Some(named_dir(&a.name)),
            ) {
                Ok(sb) => sb,
                Err(e) => {
                    eprintln!("uidriver sandbox start: {e}");
                    return exit::UNAVAILABLE;
                }
            };
            if let Err(e) = start_apps(&sb, &a.apps) {
                eprintln!("uidriver sandbox start: {e}");
                let _ = sb.stop();
                return exit::UNAVAILABLE;
            }
            say(&env_lines(&sb));
            let dir = sb.detach();
            eprintln!(
                "sandbox {:?} running (state {}); stop it with `uidriver sandbox stop --name {}`",
                a.name,
                dir.display(),
                a.name
            );
            exit::OK
        }
        Some(action @ ("env" | "stop")) => {
            let sb = match Sandbox::attach(&named_dir(&a.name)) {
                Ok(sb) => sb,
                Err(e) => {
                    eprintln!(
                        "uidriver sandbox {action}: no sandbox named {:?}: {e}",
                        a.name
                    );
                    return exit::UNAVAILABLE;
                }
            };
            if action == "env" {
                say(&env_lines(&sb));
                return exit::OK;
            }
            stop_daemons(&sb);
            match sb.stop() {
                Ok(r) if r.survivors.is_empty() => exit::OK,
                Ok(r) => {
                    eprintln!(
                        "uidriver sandbox stop: processes survived: {:?}",
                        r.survivors
                    );
                    exit::TOOL_ERROR
                }
                Err(e) => {
                    eprintln!("uidriver sandbox stop: {e}");
                    exit::TOOL_ERROR
                }
            }
        }
        _ => {
            if a.command.is_empty() {
                eprintln!("uidriver sandbox: give a command after `--`, or start|env|stop");
                return exit::USAGE;
            }
            let sb = match start_on(&a.size, display_server(&a), a.xwayland, None) {
                Ok(sb) => sb,
                Err(e) => {
                    eprintln!("uidriver sandbox: {e}");
                    return exit::UNAVAILABLE;
                }
            };
            let code = match start_apps(&sb, &a.apps) {
                Err(e) => {
                    eprintln!("uidriver sandbox: {e}");
                    exit::UNAVAILABLE
                }
                Ok(_) => match sb.run(&a.command) {
                    Ok(status) => status.code().map(|c| c as u8).unwrap_or(exit::TOOL_ERROR),
                    Err(e) => {
                        eprintln!("uidriver sandbox: {e}");
                        exit::UNAVAILABLE
                    }
                },
            };
            stop_daemons(&sb);
            if let Err(e) = sb.stop() {
                eprintln!("uidriver sandbox: stopping: {e}");
            }
            code
        }
    }
}
