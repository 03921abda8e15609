//! One OSWorld task's side of a run: the control API started inside the sandbox (OSWorld's
//! VM server, answered by `osworld_control.py`), the task's `config` run by OSWorld's own
//! `SetupController` through the bridge, and, after the agent, OSWorld's own
//! `DesktopEnv.evaluate` (postconfig, getters, metrics, `conj` and `options` as OSWorld
//! handles them) for the score.
//!
//! Ports: every sandbox on a machine gets its own control, Chrome (OSWorld's 9222), DevTools
//! (1337) and VLC (8080) ports; the control API rewrites those fixed numbers in the commands
//! tasks launch, so side-by-side tasks never share a browser.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use super::bridge::{python, scripts_dir};
use super::OsworldRun;
use crate::setup::{kill_group, run_with_deadline, tail, Prepared};
use crate::task::Task;

/// How long the control API may take to listen.
const CONTROL_START: Duration = Duration::from_secs(20);
/// How long OSWorld's setup may take (its own steps sleep and retry).
const SETUP_TIMEOUT: Duration = Duration::from_secs(900);
/// How long OSWorld's evaluation may take (postconfig steps sleep too).
const EVALUATE_TIMEOUT: Duration = Duration::from_secs(600);
/// OSWorld's home, mapped to the sandbox's when they differ.
const OSWORLD_HOME: &str = "/home/user";

/// A task's control API and the files the bridge reads.
pub struct Session {
    control: Child,
    python: PathBuf,
    bridge: PathBuf,
    spec: Value,
    spec_file: PathBuf,
    code: PathBuf,
    task_file: PathBuf,
    log: PathBuf,
}

impl Session {
    /// Starts the control API in `p`'s sandbox and runs the task's `config` through
    /// OSWorld's setup controller. `screen` is the sandbox's display size.
    pub fn start(p: &Prepared, task: &Task, screen: (u32, u32)) -> Result<Session, String> {
        let run: &OsworldRun = task.osworld.as_ref().ok_or("not an OSWorld task")?;
        let python = python()?;
        let scripts = scripts_dir()?;
        let work = p.sb.state_dir().join("osworld");
        let shims = work.join("bin");
        std::fs::create_dir_all(&shims).map_err(|e| format!("{}: {e}", shims.display()))?;
        let [chrome, devtools, vlc] = [free_port()?, free_port()?, free_port()?];
        let log = work.join("control.log");
        let failures = work.join("setup-failures.jsonl");
        let mut cmd = in_sandbox(p, &python);
        cmd.arg(scripts.join("osworld_control.py"))
            .args(["--listen", "127.0.0.1:0", "--python"])
            .arg(&python)
            .args(["--user-home", OSWORLD_HOME])
            .args(["--chrome-port", &chrome.to_string()])
            .args(["--devtools-port", &devtools.to_string()])
            .args(["--vlc-port", &vlc.to_string()])
            .arg("--shim-dir")
            .arg(&shims)
            .arg("--failures")
            .arg(&failures);
        let (control, port) = start_control(cmd, &log)?;
        let spec = json!({
            "control_port": port,
            "chrome_port": chrome,
            "vlc_port": vlc,
            "cache_dir": work.join("cache").join(&task.id),
            "cached": run.cached,
            "width": screen.0,
            "height": screen.1,
            "last_action": null,
        });
        let s = Session {
            control,
            python,
            bridge: scripts.join("osworld_bridge.py"),
            spec,
            spec_file: work.join("env.json"),
            code: run.code.clone(),
            task_file: task.path.clone(),
            log: work.join("bridge.log"),
        };
        let answer = s.bridge(p, "setup", SETUP_TIMEOUT);
        let failed = first_failure(&failures);
        let _ = std::fs::remove_file(&failures);
        match answer {
            Ok(v) if v["ok"] == true => match failed {
                None => Ok(s),
                Some(why) => {
                    s.stop();
                    Err(format!(
                        "OSWorld's setup: {why}; OSWorld's controller only logs a failed step, \
                         but the desktop is then not the one the task was written for"
                    ))
                }
            },
            Ok(v) => {
                let why = v["error"].as_str().unwrap_or("failed").to_string();
                s.stop();
                Err(format!("OSWorld's setup: {why}"))
            }
            Err(e) => {
                s.stop();
                Err(format!("OSWorld's setup: {e}"))
            }
        }
    }

    /// OSWorld's verdict: its `evaluate` with the agent's last action (`FAIL` when it said
    /// the task is infeasible, as OSWorld's agents do, else `DONE`). Passed only at score 1.
    pub fn evaluate(&mut self, p: &Prepared, said_infeasible: bool) -> Result<String, String> {
        self.spec["last_action"] = if said_infeasible { "FAIL" } else { "DONE" }.into();
        let v = self
            .bridge(p, "evaluate", EVALUATE_TIMEOUT)
            .map_err(|e| format!("OSWorld's evaluation: {e}"))?;
        let Some(score) = v["score"].as_f64() else {
            let why = v["error"].as_str().unwrap_or("no score");
            return Err(format!("OSWorld's evaluation failed: {why}"));
        };
        let details = describe(&v["details"]);
        if score >= 1.0 {
            Ok(format!("OSWorld score {score}{details}"))
        } else {
            Err(format!("OSWorld score {score}{details}"))
        }
    }

    /// Stops the control API and whatever it launched in its process group.
    pub fn stop(mut self) {
        kill_group(self.control.id());
        let _ = self.control.wait();
    }

    /// Runs the bridge's `command` for this task; its one JSON answer, or why there is none.
    fn bridge(&self, p: &Prepared, command: &str, limit: Duration) -> Result<Value, String> {
        std::fs::write(&self.spec_file, self.spec.to_string()).map_err(|e| e.to_string())?;
        let mut cmd = in_sandbox(p, &self.python);
        cmd.arg(&self.bridge)
            .arg(command)
            .arg("--code")
            .arg(&self.code)
            .arg("--task")
            .arg(&self.task_file)
            .arg("--env")
            .arg(&self.spec_file);
        let out = run_with_deadline(cmd, None, limit)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let _ = append(&self.log, &format!("--- {command}\n{stderr}\n"));
        serde_json::from_slice(&out.stdout).map_err(|_| {
            format!(
                "the bridge exited {:?} without an answer: {}",
                out.status.code(),
                tail(&stderr, 400)
            )
        })
    }
}

/// The first setup command the control API saw fail (none: the file is empty or absent).
fn first_failure(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let v: Value = serde_json::from_str(text.lines().next()?).ok()?;
    let command = v["command"].as_str().unwrap_or("?");
    let shown = match command.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &command[..i]),
        None => command.to_string(),
    };
    Some(format!(
        "`{shown}` {}",
        v["failure"].as_str().unwrap_or("failed")
    ))
}

/// `program` run with the sandbox's environment (display, buses, private home, marker).
fn in_sandbox(p: &Prepared, program: &Path) -> Command {
    let mut cmd = p.shell("exec \"$0\" \"$@\"");
    cmd.arg(program);
    cmd
}

/// Starts the control API and reads the port it listens on from its first line.
fn start_control(mut cmd: Command, log: &Path) -> Result<(Child, u16), String> {
    let err = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(err);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("starting the control API: {e}"))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let port = rx
        .recv_timeout(CONTROL_START)
        .ok()
        .and_then(|l| l.trim().rsplit(':').next()?.parse::<u16>().ok());
    match port {
        Some(port) => Ok((child, port)),
        None => {
            kill_group(child.id());
            let _ = child.wait();
            let said = std::fs::read_to_string(log).unwrap_or_default();
            Err(format!(
                "the control API did not start: {}",
                tail(&said, 400)
            ))
        }
    }
}

/// A loopback port nobody listens on now.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("finding a free port: {e}"))
}

fn append(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// OSWorld's evaluation details in a few words: why it failed, and each metric's score.
fn describe(details: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(why) = details["failure_reason"].as_str() {
        parts.push(why.to_string());
    }
    for m in details["metric_details"].as_array().into_iter().flatten() {
        let name = m["func_name"].as_str().unwrap_or("?");
        parts.push(format!("{name}: {}", m["score"]));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}
