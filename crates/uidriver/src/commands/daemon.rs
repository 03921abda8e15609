//! `uidriver daemon run|stop|status`, and how clients find or start the daemon.

use std::sync::Arc;
use std::time::Duration;

use uidriver_service::{FileAccess, Policy};
use uidriver_transports::{
    bind_socket, default_socket_path, runtime_dir, serve_daemon, ClientError, DaemonClient,
    DaemonOptions, SpawnOptions,
};

use super::exit;
use crate::backends::build_service;
use crate::cli::{DaemonArgs, ServiceFlags};

fn socket(flags: &ServiceFlags) -> std::path::PathBuf {
    flags.socket.clone().unwrap_or_else(default_socket_path)
}

/// How a client starts a daemon for this desktop; it exits after `idle` seconds alone. The
/// client's policy is not given to the daemon (it travels with each call, binding only this
/// client); a policy that turns evaluate on starts the daemon with `--allow-evaluate`.
pub fn spawn_options(flags: &ServiceFlags, policy: Option<&Policy>, idle: u64) -> SpawnOptions {
    let mut args = vec![
        "daemon".to_string(),
        "run".into(),
        "--idle-timeout".into(),
        idle.to_string(),
        "--socket".into(),
        socket(flags).display().to_string(),
    ];
    if flags.allow_evaluate || policy.is_some_and(Policy::enables_evaluate) {
        args.push("--allow-evaluate".into());
    }
    SpawnOptions {
        exe: std::env::current_exe().unwrap_or_else(|_| "uidriver".into()),
        args,
        log: runtime_dir().join("daemon.log"),
        wait: Duration::from_secs(15),
    }
}

/// Connects to the daemon of this desktop, starting it when absent; every call carries
/// `policy`.
pub async fn connect(
    flags: &ServiceFlags,
    policy: Option<Arc<Policy>>,
    idle: u64,
    who: &str,
) -> Result<DaemonClient, ClientError> {
    let spawn = spawn_options(flags, policy.as_deref(), idle);
    let client = DaemonClient::connect_or_spawn(&socket(flags), &spawn).await?;
    let files = file_access(flags, policy.as_deref(), who);
    Ok(client.with_policy(policy).with_files(files))
}

/// Makes uidriver's state and runtime directories owner-only again where an older version
/// or a permissive umask left them readable by others (a warning says so).
pub fn tighten_private_state() {
    let mut dirs: Vec<std::path::PathBuf> =
        uidriver_service::private::state_dir().into_iter().collect();
    dirs.push(uidriver_transports::runtime_dir());
    uidriver_service::private::tighten_at_start(&dirs);
}

/// The file roots of `who`'s calls (`uidriver mcp`, `uidriver call`): unrestricted under
/// `--allow-unrestricted-file-access`, else the policy's, else its working directory.
pub fn file_access(flags: &ServiceFlags, policy: Option<&Policy>, who: &str) -> FileAccess {
    FileAccess::for_caller(policy, flags.allow_unrestricted_file_access, who)
}

pub async fn run(a: DaemonArgs) -> u8 {
    let path = socket(&a.service);
    match a.action.as_str() {
        "stop" => match DaemonClient::connect(&path).await {
            Ok(c) => match c.shutdown().await {
                Ok(()) => exit::OK,
                Err(e) => {
                    eprintln!("uidriver daemon stop: {e}");
                    exit::UNAVAILABLE
                }
            },
            Err(_) => {
                eprintln!(
                    "uidriver daemon stop: no daemon listens on {}",
                    path.display()
                );
                exit::OK
            }
        },
        "status" => match DaemonClient::connect(&path).await {
            Ok(c) => match c.ping().await {
                Ok(p) => {
                    super::say(&format!("daemon running on {}: {p}", path.display()));
                    exit::OK
                }
                Err(e) => {
                    eprintln!("uidriver daemon status: {e}");
                    exit::UNAVAILABLE
                }
            },
            Err(_) => {
                super::say(&format!("no daemon listens on {}", path.display()));
                exit::UNAVAILABLE
            }
        },
        _ => {
            let listener = match bind_socket(&path).await {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("uidriver daemon: cannot listen on {}: {e}", path.display());
                    return exit::UNAVAILABLE;
                }
            };
            let policy = match super::policy::load("daemon", &a.service) {
                Ok(p) => p,
                Err(code) => return code,
            };
            tracing::info!(socket = %path.display(), policy = ?a.service.policy, "daemon listening");
            tighten_private_state();
            let service = Arc::new(build_service(&a.service, policy).await);
            let opts = DaemonOptions {
                idle_timeout: (a.idle_timeout > 0).then(|| Duration::from_secs(a.idle_timeout)),
            };
            let shutdown = async {
                let mut term =
                    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
                }
            };
            let r = serve_daemon(listener, service.clone(), opts, shutdown).await;
            service.shutdown().await;
            let _ = std::fs::remove_file(&path);
            match r {
                Ok(()) => exit::OK,
                Err(e) => {
                    eprintln!("uidriver daemon: {e}");
                    exit::UNAVAILABLE
                }
            }
        }
    }
}
