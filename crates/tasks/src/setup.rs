//! Preparing a task's desktop: files in the sandbox's private home, the local web server, apps
//! launched and awaited, shell commands; and running programs inside the sandbox's environment
//! with a deadline (used for setup commands, command checkers and the agent). Judging the
//! result is `checkers.rs`'s job.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use uidriver_sandbox::{Sandbox, SANDBOX_ID_VAR};

use super::server::LocalServer;
use super::task::{SetupStep, Task};

/// How long a launched app may take to show its window (LibreOffice's first start: ~10 s).
const APP_TIMEOUT: Duration = Duration::from_secs(45);
/// How long one setup command may run.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// GSettings backend of every task process. The sandbox's default (`memory`) forgets a
/// preference when the app exits and hides it from other processes; the keyfile backend keeps
/// it in `~/.config/glib-2.0/settings/keyfile` (the private home), where checkers read it.
pub const GSETTINGS: (&str, &str) = ("GSETTINGS_BACKEND", "keyfile");
/// Variables of the runner's own environment never passed into a sandbox.
const HOST_ONLY_VARS: &[&str] = &["UIDRIVER_SOCKET", "UIDRIVER_MCP_TOKEN", "UIDRIVER_MCP_URL"];

/// A sandbox prepared for one task.
pub struct Prepared {
    /// The desktop.
    pub sb: Sandbox,
    /// The sandbox's private home (`~`).
    pub home: PathBuf,
    /// The suite's directory (`tasks/`).
    pub tasks_dir: PathBuf,
    /// The `uidriver` binary that agents and the runner start (the binary passes itself).
    pub uidriver: PathBuf,
    /// The local server, when the task started one.
    pub server: Option<LocalServer>,
}

impl Prepared {
    /// Replaces `{server}` and `{home}`, and a leading `~/`, in a task string.
    pub fn expand(&self, s: &str) -> String {
        let url = self.server.as_ref().map(|s| s.url.as_str()).unwrap_or("");
        let s = s
            .replace("{server}", url)
            .replace("{home}", &self.home.display().to_string());
        match s.strip_prefix("~/") {
            Some(rest) => self.home.join(rest).display().to_string(),
            None => s,
        }
    }

    /// A task path (`~/x`, or relative to the home) as an absolute path on this machine.
    pub fn path(&self, p: &str) -> PathBuf {
        let p = self.expand(p);
        let p = Path::new(&p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.home.join(p)
        }
    }

    /// A `sh -c` command inside the sandbox: its env (display, buses, private home), the
    /// directory of [`Prepared::uidriver`] first on PATH, the suite's helpers on PYTHONPATH, and
    /// the sandbox's marker so that `stop` also ends whatever the command leaves behind.
    pub fn shell(&self, line: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(line).current_dir(&self.home);
        for k in HOST_ONLY_VARS.iter().chain(&[
            "DISPLAY",
            "WAYLAND_DISPLAY",
            "SWAYSOCK",
            "XDG_RUNTIME_DIR",
            "DBUS_SESSION_BUS_ADDRESS",
            "AT_SPI_BUS_ADDRESS",
            "XAUTHORITY",
        ]) {
            cmd.env_remove(k);
        }
        for (k, v) in self.sb.env() {
            cmd.env(k, v);
        }
        let path = std::env::var("PATH").unwrap_or_default();
        if let Some(d) = self.uidriver.parent() {
            cmd.env("PATH", format!("{}:{path}", d.display()));
        }
        cmd.env(GSETTINGS.0, GSETTINGS.1)
            .env("PYTHONPATH", self.tasks_dir.join("lib"))
            .env("UIDRIVER_TASKS_DIR", &self.tasks_dir)
            .env(SANDBOX_ID_VAR, self.sb.manifest().marker);
        if let Some(s) = &self.server {
            cmd.env("UIDRIVER_TASK_SERVER", &s.url);
        }
        cmd
    }
}

/// Runs every setup step of `task` in `sb`; the sandbox comes back prepared as far as it got,
/// with the step that failed, if one did. `uidriver` is the binary agents start.
pub fn prepare(
    sb: Sandbox,
    task: &Task,
    tasks_dir: &Path,
    uidriver: &Path,
) -> (Prepared, Result<(), String>) {
    let home = sb
        .env_var("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| sb.state_dir().join("home"));
    let mut p = Prepared {
        sb,
        home,
        tasks_dir: tasks_dir.to_path_buf(),
        uidriver: uidriver.to_path_buf(),
        server: None,
    };
    for (i, step) in task.setup.iter().enumerate() {
        if let Err(e) = apply(&mut p, step) {
            let why = format!("setup step {} ({}): {e}", i + 1, kind(step));
            return (p, Err(why));
        }
    }
    (p, Ok(()))
}

/// Runs the task's `postconfig` steps (after the agent, before the evaluator).
pub fn finish(p: &mut Prepared, task: &Task) -> Result<(), String> {
    for (i, step) in task.postconfig.iter().enumerate() {
        apply(p, step).map_err(|e| format!("postconfig step {} ({}): {e}", i + 1, kind(step)))?;
    }
    Ok(())
}

fn kind(step: &SetupStep) -> &'static str {
    match step {
        SetupStep::File { .. } => "file",
        SetupStep::Server { .. } => "server",
        SetupStep::Launch { .. } => "launch",
        SetupStep::Command { .. } => "command",
        SetupStep::Sleep { .. } => "sleep",
    }
}

fn apply(p: &mut Prepared, step: &SetupStep) -> Result<(), String> {
    match step {
        SetupStep::File {
            path,
            content,
            from,
        } => {
            let dest = p.path(path);
            if let Some(dir) = dest.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            match (content, from) {
                (Some(c), None) => std::fs::write(&dest, p.expand(c)),
                (None, Some(f)) => {
                    std::fs::copy(p.tasks_dir.join("files").join(f), &dest).map(|_| ())
                }
                (None, None) => std::fs::create_dir_all(&dest),
                _ => return Err("give content or from, not both".into()),
            }
            .map_err(|e| format!("{}: {e}", dest.display()))
        }
        SetupStep::Server { root } => {
            let dir = p.tasks_dir.join("files").join(root);
            if !dir.is_dir() {
                return Err(format!("{} is not a directory", dir.display()));
            }
            p.server = Some(LocalServer::start(dir).map_err(|e| e.to_string())?);
            Ok(())
        }
        SetupStep::Launch { command, wait } => {
            let argv = vec![
                "sh".into(),
                "-c".into(),
                format!(
                    "cd ~ && {}={} exec {}",
                    GSETTINGS.0,
                    GSETTINGS.1,
                    p.expand(command)
                ),
            ];
            let pid = p.sb.spawn(&argv).map_err(|e| e.to_string())?;
            if *wait {
                p.sb.wait_for_app_window(pid, APP_TIMEOUT)
                    .map_err(|e| format!("{command:?} showed no window: {e}"))?;
            }
            Ok(())
        }
        SetupStep::Command { command } => {
            let out = run_with_deadline(p.shell(&p.expand(command)), None, COMMAND_TIMEOUT)?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "{command:?} failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            }
        }
        SetupStep::Sleep { seconds } => {
            std::thread::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 30.0)));
            Ok(())
        }
    }
}

/// Runs `cmd` (stdin from `input`, stdout and stderr captured) in its own process group; past
/// `limit` the whole group is killed and the output so far is an error.
pub fn run_with_deadline(
    mut cmd: Command,
    input: Option<&[u8]>,
    limit: Duration,
) -> Result<Output, String> {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    cmd.process_group(0)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    if let (Some(data), Some(mut stdin)) = (input, child.stdin.take()) {
        let _ = stdin.write_all(data);
    }
    // Drain the pipes on threads so a chatty child never blocks on a full pipe.
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as _));
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(s);
        }
        if t0.elapsed() > limit {
            kill_group(child.id());
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    match status {
        Some(status) => Ok(Output {
            status,
            stdout,
            stderr,
        }),
        None => Err(format!(
            "timed out after {} s; stderr: {}",
            limit.as_secs(),
            tail(&String::from_utf8_lossy(&stderr), 400)
        )),
    }
}

/// Ends the process group `pgid` (SIGTERM, then SIGKILL after a grace second).
pub fn kill_group(pgid: u32) {
    use rustix::process::{kill_process_group, Pid, Signal};
    let Some(pid) = Pid::from_raw(pgid as i32) else {
        return;
    };
    let _ = kill_process_group(pid, Signal::TERM);
    std::thread::sleep(Duration::from_secs(1));
    let _ = kill_process_group(pid, Signal::KILL);
}

/// The last `n` bytes of `s` (at a char boundary).
pub fn tail(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    s[start..].trim()
}
