//! Running tasks: for each one a fresh sandbox, its setup, an MCP endpoint over loopback HTTP
//! (besides `uidriver mcp` on stdio), the agent with the instruction in its environment and the
//! task on stdin, a deadline, the evaluation, and the teardown; `--jobs` sandboxes at a time.
//! Formatting results is `report.rs`'s job.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use uidriver_sandbox::{DisplayServer, Sandbox, SandboxConfig};

use super::checkers::evaluate;
use super::osworld::Session;
use super::setup::{finish, kill_group, prepare, run_with_deadline, tail, Prepared, GSETTINGS};
use super::task::Task;

/// How long `uidriver mcp --http` may take to say where it listens.
const HTTP_START: Duration = Duration::from_secs(20);
/// Pause between the agent's exit and the evaluation: some apps write their settings on a
/// timer after a change (xfce4-terminal's terminalrc appears ~0.5 s after the dialog closes).
const SETTLE: Duration = Duration::from_millis(1500);
/// Screen of every task's desktop (LibreOffice's toolbars need the width).
const SCREEN: (u32, u32) = (1440, 900);
/// Screen of an OSWorld task's desktop: OSWorld's own, which its pyautogui steps assume.
const OSWORLD_SCREEN: (u32, u32) = (1920, 1080);

/// How to run the suite.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The suite's directory.
    pub tasks_dir: PathBuf,
    /// A shell command line to run as the agent instead of each task's scripted solution.
    pub agent: Option<String>,
    /// Leave a failing task's sandbox running.
    pub keep: bool,
    /// Sandboxes at a time.
    pub jobs: usize,
    /// The display server of every task's desktop (`--wayland`: a headless sway).
    pub display_server: DisplayServer,
    /// Where agent logs go.
    pub log_dir: PathBuf,
    /// The `uidriver` binary: first on the agents' `PATH` (`uidriver mcp`), and the one the
    /// runner starts for MCP over HTTP and to stop a task's daemon. The binary passes itself.
    pub uidriver: PathBuf,
}

/// The outcome of one task.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskResult {
    /// The task's id.
    pub id: String,
    /// Its domain.
    pub domain: String,
    /// Whether the evaluator accepted the result.
    pub passed: bool,
    /// Why (the evaluator's reason, or what went wrong before it).
    pub reason: String,
    /// Wall time from sandbox start to the verdict, seconds.
    pub seconds: f64,
    /// The agent's exit code (None: killed at the deadline or not started).
    pub agent_exit: Option<i32>,
    /// Tool calls the agent reported making (None: it reported nothing).
    pub tool_calls: Option<u64>,
    /// Characters of text the tools returned to the agent.
    pub text_chars: Option<u64>,
    /// Images the tools returned to the agent.
    pub images: Option<u64>,
    /// The agent's output, for a failing task.
    pub log: Option<PathBuf>,
    /// A kept sandbox's state dir (`--keep`).
    pub kept_sandbox: Option<PathBuf>,
    /// What the agent asked the user instead of finishing (its verdict `ask_user`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
}

/// What an agent says of its task in `$UIDRIVER_TASK_RESULT` (the runner contract).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing, or words the contract does not know: the evaluator decides.
    None,
    /// `done`: the agent believes the task is complete.
    Done,
    /// `infeasible`: the task cannot be done, and the agent refused.
    Infeasible,
    /// `ask_user` with the question (`ask_user: …`, or on the lines after it): the agent needs
    /// the user. The task fails, with the question recorded.
    AskUser(String),
}

impl Verdict {
    /// Reads the verdict file's text: the first word decides, case aside.
    pub fn parse(text: &str) -> Verdict {
        let text = text.trim();
        let (first, rest) = text.split_once(['\n', ':']).unwrap_or((text, ""));
        match first.trim().to_ascii_lowercase().as_str() {
            "done" => Verdict::Done,
            "infeasible" => Verdict::Infeasible,
            "ask_user" => Verdict::AskUser(rest.trim().to_string()),
            _ => Verdict::None,
        }
    }
}

/// The state directories of the sandboxes tasks are running in now, for [`stop_running`].
static RUNNING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Stops every sandbox a task is running in now, with all it holds (the agent, the control
/// API, the apps): what `uidriver tasks run` does when it is interrupted, so that nothing it
/// started outlives it. Returns how many were stopped.
pub fn stop_running() -> usize {
    let dirs: Vec<PathBuf> = RUNNING
        .lock()
        .map(|mut r| r.drain(..).collect())
        .unwrap_or_default();
    let mut stopped = 0;
    for dir in dirs {
        if let Ok(sb) = Sandbox::attach(&dir) {
            stopped += usize::from(sb.stop().is_ok());
        }
    }
    stopped
}

fn running(dir: &Path, on: bool) {
    if let Ok(mut r) = RUNNING.lock() {
        r.retain(|d| d != dir);
        if on {
            r.push(dir.to_path_buf());
        }
    }
}

/// Runs `tasks` with `opts.jobs` at a time; `progress` hears each result as it comes.
pub fn run_all(
    tasks: Vec<Task>,
    opts: &RunOptions,
    progress: &(dyn Fn(&TaskResult) + Sync),
) -> Vec<TaskResult> {
    let order: Vec<String> = tasks.iter().map(|t| t.id.clone()).collect();
    let queue = Arc::new(Mutex::new(VecDeque::from(tasks)));
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            s.spawn(|| {
                while let Some(task) = queue.lock().ok().and_then(|mut q| q.pop_front()) {
                    let r = run_one(&task, opts);
                    progress(&r);
                    if let Ok(mut all) = results.lock() {
                        all.push(r);
                    }
                }
            });
        }
    });
    let mut all = results.into_inner().unwrap_or_default();
    all.sort_by_key(|r| order.iter().position(|id| *id == r.id));
    all
}

/// What the agent left behind.
struct AgentRun {
    exit: Option<i32>,
    verdict: Verdict,
    stats: serde_json::Value,
    log: PathBuf,
    error: Option<String>,
    /// The last line of the agent's stderr, when it exited unsuccessfully.
    complaint: Option<String>,
}

fn run_one(task: &Task, opts: &RunOptions) -> TaskResult {
    let t0 = Instant::now();
    let mut r = TaskResult {
        id: task.id.clone(),
        domain: task.domain.clone(),
        passed: false,
        reason: String::new(),
        seconds: 0.0,
        agent_exit: None,
        tool_calls: None,
        text_chars: None,
        images: None,
        log: None,
        kept_sandbox: None,
        question: None,
    };
    if task.osworld.is_some() && opts.display_server != DisplayServer::X11 {
        r.reason = "OSWorld tasks run on X11, as OSWorld's desktops are (its setups use \
                    wmctrl and pyautogui): run them without --wayland"
            .into();
        return r;
    }
    let screen = if task.osworld.is_some() {
        OSWORLD_SCREEN
    } else {
        SCREEN
    };
    let sb = match Sandbox::start(SandboxConfig {
        width: screen.0,
        height: screen.1,
        display_server: opts.display_server,
        // What the runner starts uses the keyfile backend (setup.rs); so does what the agent
        // starts from the desktop, or a preference it sets would be lost to the checker.
        env: vec![(GSETTINGS.0.into(), GSETTINGS.1.into())],
        ..SandboxConfig::default()
    }) {
        Ok(sb) => {
            running(sb.state_dir(), true);
            sb
        }
        Err(e) => {
            r.reason = format!("sandbox: {e}");
            r.seconds = t0.elapsed().as_secs_f64();
            return r;
        }
    };
    let (mut prepared, ready) = prepare(sb, task, &opts.tasks_dir, &opts.uidriver);
    let osworld = match ready {
        Ok(()) if task.osworld.is_some() => Session::start(&prepared, task, screen).map(Some),
        Ok(()) => Ok(None),
        Err(e) => Err(e),
    };
    let mut osworld = match osworld {
        Ok(s) => s,
        Err(e) => {
            r.reason = e;
            teardown(prepared, opts.keep, &mut r);
            r.seconds = t0.elapsed().as_secs_f64();
            return r;
        }
    };
    let agent = run_agent(&prepared, task, opts);
    std::thread::sleep(SETTLE);
    r.agent_exit = agent.exit;
    let count = |k: &str| agent.stats.get(k).and_then(serde_json::Value::as_u64);
    (r.tool_calls, r.text_chars, r.images) =
        (count("toolCalls"), count("textChars"), count("images"));
    if let Verdict::AskUser(q) = &agent.verdict {
        r.question = Some(q.clone());
    }
    let verdict = match osworld.as_mut() {
        Some(session) => judge_osworld(&prepared, session, &agent),
        None => finish(&mut prepared, task).and_then(|()| judge(&prepared, task, &agent)),
    };
    // Seconds from sandbox start to verdict (teardown is not the task's).
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(session) = osworld {
        session.stop();
    }
    r.passed = verdict.is_ok();
    r.reason = verdict.unwrap_or_else(|e| e);
    if !r.passed {
        append_logs(&agent.log, &logs_of(&prepared.sb));
        r.log = Some(agent.log.clone());
        if let Some(c) = &agent.complaint {
            r.reason = format!(
                "{} · agent exited {:?}: {c}",
                r.reason,
                agent.exit.unwrap_or(-1)
            );
        }
    }
    teardown(prepared, opts.keep, &mut r);
    r.seconds = seconds;
    r
}

/// Why the agent's run fails the task whatever the desktop holds: it did not finish, or it
/// asked the user.
fn agent_failed(agent: &AgentRun) -> Result<(), String> {
    if let Some(e) = &agent.error {
        return Err(format!("agent: {e}"));
    }
    if let Verdict::AskUser(q) = &agent.verdict {
        return Err(format!(
            "the agent asked the user instead of finishing: {}",
            crate::checkers::short(q)
        ));
    }
    Ok(())
}

fn judge(p: &Prepared, task: &Task, agent: &AgentRun) -> Result<String, String> {
    agent_failed(agent)?;
    let said_infeasible = agent.verdict == Verdict::Infeasible;
    if task.infeasible {
        if agent.verdict == Verdict::Done {
            return Err("the task is infeasible, but the agent reported it done".into());
        }
        return match &task.evaluator {
            Some(c) => evaluate(p, c).map(|why| format!("not claimed done; {why}")),
            None => Ok("infeasible, and the agent did not claim it done".into()),
        };
    }
    if said_infeasible {
        return Err("the agent declared a feasible task infeasible".into());
    }
    let checker = task.evaluator.as_ref().ok_or("no evaluator")?;
    evaluate(p, checker)
}

/// An OSWorld task's verdict: OSWorld's own evaluation, told the agent's last action as
/// OSWorld's agents report it (`FAIL` for "infeasible"). Asking the user fails the task.
fn judge_osworld(p: &Prepared, session: &mut Session, agent: &AgentRun) -> Result<String, String> {
    agent_failed(agent)?;
    session.evaluate(p, agent.verdict == Verdict::Infeasible)
}

fn run_agent(p: &Prepared, task: &Task, opts: &RunOptions) -> AgentRun {
    let log = opts.log_dir.join(format!("{}.log", task.id));
    // The agent's own files live in its task's sandbox, not the shared log directory: two
    // runs writing to one log directory (or one task twice) must not read each other's verdict.
    let stats_file = p.sb.state_dir().join("task.stats.json");
    let verdict_file = p.sb.state_dir().join("task.result");
    let _ = std::fs::remove_file(&stats_file);
    let _ = std::fs::remove_file(&verdict_file);
    let mut run = AgentRun {
        exit: None,
        verdict: Verdict::None,
        stats: serde_json::Value::Null,
        log: log.clone(),
        error: None,
        complaint: None,
    };
    let line = match (&opts.agent, task.solution()) {
        (Some(cmd), _) => cmd.clone(),
        (None, Some(py)) => {
            let python = std::env::var("UIDRIVER_PYTHON").unwrap_or_else(|_| "python3".into());
            format!("exec {python} '{}'", py.display())
        }
        (None, None) => {
            run.error = Some(format!(
                "no scripted solution ({}.py) and no --agent",
                task.id
            ));
            return run;
        }
    };
    let token = new_token();
    let http = start_http(p, &token);
    let instruction = p.expand(&task.instruction);
    let mut cmd = p.shell(&line);
    cmd.env("UIDRIVER_TASK_INSTRUCTION", &instruction)
        .env("UIDRIVER_TASK_ID", &task.id)
        .env("UIDRIVER_TASK_STATS", &stats_file)
        .env("UIDRIVER_TASK_RESULT", &verdict_file)
        .env("UIDRIVER_MCP_TOKEN", &token);
    if let Ok((_, url)) = &http {
        cmd.env("UIDRIVER_MCP_URL", url);
    }
    let mut spec = serde_json::to_value(task).unwrap_or_default();
    spec["instruction"] = instruction.into();
    spec["domain"] = task.domain.clone().into();
    let input = serde_json::to_vec_pretty(&spec).unwrap_or_default();
    let limit = Duration::from_secs(task.timeout.max(5));
    let out = run_with_deadline(cmd, Some(&input), limit);
    if let Ok((child, _)) = http {
        stop_child(child);
    }
    match out {
        Ok(o) => {
            run.exit = o.status.code();
            if !o.status.success() {
                let err = String::from_utf8_lossy(&o.stderr);
                run.complaint = err
                    .lines()
                    .rev()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(|l| tail(l, 300).to_string());
            }
            let text = format!(
                "--- stdout\n{}\n--- stderr\n{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            let _ = std::fs::write(&log, text);
        }
        Err(e) => {
            let _ = std::fs::write(&log, &e);
            run.error = Some(format!("did not finish: {}", tail(&e, 300)));
        }
    }
    run.verdict = std::fs::read_to_string(&verdict_file)
        .map(|s| Verdict::parse(&s))
        .unwrap_or(Verdict::None);
    run.stats = std::fs::read(&stats_file)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    run
}

/// Starts `uidriver mcp --http 127.0.0.1:0` inside the sandbox and reads its URL from stderr.
fn start_http(p: &Prepared, token: &str) -> Result<(Child, String), String> {
    let mut cmd = p.shell(&format!(
        "exec '{}' mcp --http 127.0.0.1:0",
        p.uidriver.display()
    ));
    use std::os::unix::process::CommandExt;
    cmd.process_group(0)
        .env("UIDRIVER_MCP_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| e.to_string())?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("serving MCP at ").nth(1) {
                let url = rest.split_whitespace().next().unwrap_or("").to_string();
                let _ = tx.send(url);
            }
        }
    });
    match rx.recv_timeout(HTTP_START) {
        Ok(url) => Ok((child, url)),
        Err(_) => {
            stop_child(child);
            Err("uidriver mcp --http did not start".into())
        }
    }
}

fn stop_child(mut child: Child) {
    kill_group(child.id());
    let _ = child.wait();
}

/// 32 hex characters from the kernel's random source.
fn new_token() -> String {
    let mut buf = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut buf);
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Stops the local server, the daemon the agent started and the sandbox, or keeps a failing
/// task's sandbox with `--keep`.
fn teardown(p: Prepared, keep: bool, r: &mut TaskResult) {
    let Prepared {
        sb,
        server,
        uidriver,
        ..
    } = p;
    drop(server);
    running(sb.state_dir(), false);
    if keep && !r.passed {
        let dir = sb.detach();
        r.kept_sandbox = Some(dir);
        return;
    }
    stop_daemon(&sb, &uidriver);
    if let Err(e) = sb.stop() {
        tracing::warn!(error = %e, "stopping a task sandbox");
    }
}

/// Lines of each app's (and the daemon's) log a failed task's agent log gets.
const APP_LOG_TAIL: usize = 40;

/// The logs a failed task's agent log quotes, as the sandbox's manifest records them: what each
/// app the sandbox started wrote, the Wayland compositor's (it names a protocol error it
/// disconnected an app for), then the log of the daemon the agent's calls went through
/// (`$XDG_RUNTIME_DIR/uidriver/daemon.log`), each with what it is.
fn logs_of(sb: &Sandbox) -> Vec<(PathBuf, &'static str)> {
    use uidriver_sandbox::roles;
    let records = sb.processes();
    let of = |role: &'static str, what: &'static str| {
        records
            .iter()
            .filter(move |p| p.role == role)
            .filter_map(move |p| p.log.clone().map(|log| (log, what)))
    };
    let mut logs: Vec<(PathBuf, &str)> = of(roles::APP, "the app's output")
        .chain(of(roles::COMPOSITOR, "the compositor's log"))
        .collect();
    if let Some(runtime) = sb.env_var("XDG_RUNTIME_DIR") {
        let daemon = Path::new(runtime).join("uidriver").join("daemon.log");
        if daemon.exists() {
            logs.push((daemon, "the uidriver daemon's log"));
        }
    }
    logs
}

/// Appends the last lines of each of `logs` to a failed task's agent log: a crash, a toolkit's
/// warning or the daemon's account is then beside the calls that met it, after the sandbox and
/// its directory are gone.
fn append_logs(agent_log: &Path, logs: &[(PathBuf, &str)]) {
    use std::io::Write;
    let Ok(mut out) = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(agent_log)
    else {
        return;
    };
    for (log, what) in logs {
        let text = std::fs::read(log).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let lines: Vec<&str> = text.lines().collect();
        let tail = &lines[lines.len().saturating_sub(APP_LOG_TAIL)..];
        let name = log.file_name().and_then(|n| n.to_str()).unwrap_or("log");
        let _ = writeln!(
            out,
            "\n--- {name} ({what}, last {} of {} lines)\n{}",
            tail.len(),
            lines.len(),
            tail.join("\n")
        );
    }
}

fn stop_daemon(sb: &Sandbox, uidriver: &Path) {
    let mut cmd = std::process::Command::new(uidriver);
    cmd.args(["daemon", "stop"]).env_remove("UIDRIVER_SOCKET");
    for (k, v) in sb.env() {
        cmd.env(k, v);
    }
    let _ = run_with_deadline(cmd, None, Duration::from_secs(10));
}

/// Where agent logs of this run go: `$TMPDIR/uidriver-tasks-<pid>`.
pub fn default_log_dir() -> PathBuf {
    std::env::temp_dir().join(format!("uidriver-tasks-{}", std::process::id()))
}

/// The suite directory: `--dir`, else `$UIDRIVER_TASKS_DIR` (the image sets it), else
/// `./tasks`, else the one in this source tree.
pub fn find_tasks_dir(given: Option<&Path>) -> PathBuf {
    if let Some(d) = given {
        return d.to_path_buf();
    }
    if let Some(d) = std::env::var_os("UIDRIVER_TASKS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let here = PathBuf::from("tasks");
    if here.join("lib").is_dir() {
        return std::fs::canonicalize(&here).unwrap_or(here);
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks"))
}

#[cfg(test)]
mod tests {
    use super::Verdict;

    #[test]
    fn a_verdict_is_its_first_word_and_a_question_follows_ask_user() {
        assert_eq!(Verdict::parse("done\n"), Verdict::Done);
        assert_eq!(Verdict::parse(" INFEASIBLE "), Verdict::Infeasible);
        assert_eq!(
            Verdict::parse("ask_user: Which file?\n"),
            Verdict::AskUser("Which file?".into())
        );
        assert_eq!(
            Verdict::parse("ask_user\nWhich file?\nThe second one?"),
            Verdict::AskUser("Which file?\nThe second one?".into())
        );
        assert_eq!(Verdict::parse("finished"), Verdict::None);
        assert_eq!(Verdict::parse(""), Verdict::None);
    }
}
