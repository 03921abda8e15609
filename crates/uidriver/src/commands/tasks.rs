//! `uidriver tasks list|show|run|merge|osworld-deps|osworld-cache fetch`: the command line of the task
//! suite. Loading, running and judging tasks, and fetching OSWorld's downloads, is
//! `uidriver-tasks`'s job; this file turns the flags into its calls, prints what it returns
//! and picks the exit status.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uidriver_tasks::{
    FetchOptions, FetchReport, Progress, RunOptions, Selection, Shard, Skipped, Task, TaskResult,
};

use crate::cli::{OsworldCacheAction, TasksAction, TasksArgs};
use crate::commands::{exit, say};

pub async fn run(a: TasksArgs) -> u8 {
    match a.action {
        TasksAction::OsworldDeps {
            heavy,
            venv,
            python,
        } => tokio::task::spawn_blocking(move || install_deps(heavy, venv, python, a.json))
            .await
            .unwrap_or(exit::UNAVAILABLE),
        TasksAction::OsworldCache { action } => {
            fetch_cache(action, a.only, a.domain, a.quick, a.json, a.shard).await
        }
        action => {
            let a = TasksArgs { action, ..a };
            let work = tokio::task::spawn_blocking(move || run_blocking(a));
            tokio::select! {
                done = work => done.unwrap_or(exit::UNAVAILABLE),
                signal = interrupted() => {
                    // Nothing a run started outlives it: its sandboxes are stopped with all
                    // they hold (agents, control APIs, apps).
                    let n = tokio::task::spawn_blocking(uidriver_tasks::stop_running)
                        .await
                        .unwrap_or(0);
                    eprintln!("uidriver tasks: {signal}: stopped {n} running task sandboxes");
                    exit::INTERRUPTED
                }
            }
        }
    }
}

/// Waits for SIGINT or SIGTERM; says which came.
async fn interrupted() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        let _ = tokio::signal::ctrl_c().await;
        return "interrupted";
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => "interrupted",
        _ = term.recv() => "terminated",
    }
}

/// `tasks osworld-deps`: the Python environment of OSWorld's evaluators, pip's output on
/// stderr, what it holds on stdout.
fn install_deps(heavy: bool, venv: Option<PathBuf>, python: PathBuf, json: bool) -> u8 {
    let venv = venv.unwrap_or_else(uidriver_tasks::osworld_venv);
    eprintln!(
        "uidriver tasks osworld-deps: installing OSWorld's evaluator packages{} into {}",
        if heavy { " (with the heavy ones)" } else { "" },
        venv.display()
    );
    match uidriver_tasks::install_osworld_deps(&venv, &python, heavy) {
        Ok(r) if json => {
            say(&serde_json::to_value(&r).unwrap_or_default().to_string());
            exit::OK
        }
        Ok(r) => {
            say(&format!(
                "{} packages, {} in {} ({:.0} s); OSWorld tasks run with {}",
                r.packages,
                human_bytes(r.bytes),
                r.venv.display(),
                r.seconds,
                r.python.display()
            ));
            exit::OK
        }
        Err(e) => {
            eprintln!("uidriver tasks osworld-deps: {e}");
            exit::UNAVAILABLE
        }
    }
}

/// `tasks osworld-cache fetch`: every download of the selected OSWorld tasks into the cache,
/// progress on stderr, the summary on stdout; 0 when every file is there, 1 when some failed.
async fn fetch_cache(
    action: OsworldCacheAction,
    only: Option<String>,
    domain: Option<String>,
    quick: bool,
    json: bool,
    shard: Option<Shard>,
) -> u8 {
    const WHO: &str = "uidriver tasks osworld-cache fetch";
    let OsworldCacheAction::Fetch {
        dir,
        cache,
        jobs,
        retries,
        timeout,
    } = action;
    if shard.is_some() {
        eprintln!(
            "{WHO}: --shard does not apply (a run's shards are dealt from its runnable tasks)"
        );
        return exit::USAGE;
    }
    if jobs == 0 || !timeout.is_finite() || timeout <= 0.0 {
        eprintln!("{WHO}: --jobs and --timeout must be above 0");
        return exit::USAGE;
    }
    let selection = Selection {
        only,
        domain,
        quick,
        ..Selection::default()
    };
    let urls = match uidriver_tasks::osworld_downloads(&selection, &dir) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("{WHO}: {e}");
            return exit::USAGE;
        }
    };
    eprintln!(
        "{WHO}: {} files for {} into {}",
        urls.len(),
        dir.display(),
        cache.display()
    );
    let opts = FetchOptions {
        jobs,
        retries,
        timeout: Duration::from_secs_f64(timeout),
        ..FetchOptions::default()
    };
    let line = ProgressLine::new(std::io::stderr().is_terminal());
    let report = uidriver_tasks::fetch_osworld(&urls, &cache, &opts, move |p| line.show(p)).await;
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{WHO}: {e}");
            return exit::USAGE;
        }
    };
    if json {
        let mut v = serde_json::to_value(&report).unwrap_or_default();
        v["cache"] = cache.display().to_string().into();
        say(&v.to_string());
    } else {
        say(&fetch_summary(&report, &cache));
    }
    if report.failed.is_empty() {
        exit::OK
    } else {
        exit::TOOL_ERROR
    }
}

/// The end of a fetch: counts, then each failed URL with its error.
fn fetch_summary(r: &FetchReport, cache: &std::path::Path) -> String {
    let mut out = format!(
        "fetched {} ({}), already present {}, failed {}; cache {}",
        r.fetched.len(),
        human_bytes(r.bytes),
        r.present.len(),
        r.failed.len(),
        cache.display()
    );
    for f in &r.failed {
        out.push_str(&format!("\nFAILED {}: {}", f.url, f.error));
    }
    out
}

/// The fetch's progress on stderr: on a terminal, a bar redrawn in place (at most 10 times a
/// second) under the lines of finished files; otherwise one plain line per finished file.
struct ProgressLine {
    tty: bool,
    drawn: Mutex<Option<Instant>>,
}

impl ProgressLine {
    fn new(tty: bool) -> ProgressLine {
        ProgressLine {
            tty,
            drawn: Mutex::new(None),
        }
    }

    fn show(&self, p: &Progress) {
        let counts = format!("{}/{} files, {}", p.done, p.total, human_bytes(p.bytes));
        let mut err = std::io::stderr().lock();
        if !self.tty {
            if let Some(line) = &p.finished {
                let _ = writeln!(err, "[{counts}] {line}");
            }
            return;
        }
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        let due = drawn.is_none_or(|t| t.elapsed() >= Duration::from_millis(100));
        if p.finished.is_none() && !due {
            return;
        }
        *drawn = Some(Instant::now());
        const WIDTH: usize = 30;
        let filled = (p.done * WIDTH).checked_div(p.total).unwrap_or(WIDTH);
        let bar = format!("{}{}", "=".repeat(filled), " ".repeat(WIDTH - filled));
        let _ = write!(err, "\r\x1b[K");
        if let Some(line) = &p.finished {
            let _ = writeln!(err, "{line}");
        }
        let _ = write!(err, "[{bar}] {counts}");
        if p.done == p.total {
            let _ = writeln!(err);
        }
        let _ = err.flush();
    }
}

/// `1.5 MB`: bytes in powers of 1000, one decimal past the first unit.
fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["kB", "MB", "GB", "TB"];
    if n < 1000 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1000.0;
    let mut unit = 0;
    while v >= 1000.0 && unit < UNITS.len() - 1 {
        v /= 1000.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

fn run_blocking(a: TasksArgs) -> u8 {
    let TasksArgs {
        action,
        only,
        domain,
        quick,
        json,
        dir,
        osworld,
        osworld_cache,
        shard,
    } = a;
    if let TasksAction::Merge { reports } = &action {
        return merge(reports, json);
    }
    let selection = Selection {
        dir: uidriver_tasks::find_tasks_dir(dir.as_deref()),
        osworld,
        osworld_cache,
        only,
        domain,
        quick,
        shard,
    };
    let (selected, skipped) = match uidriver_tasks::select(&selection) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("uidriver tasks: {e}");
            return exit::USAGE;
        }
    };
    let osworld = selection.osworld.is_some();
    match action {
        TasksAction::List if json => {
            say(&uidriver_tasks::list_json(&selected, &skipped, osworld).to_string());
            exit::OK
        }
        TasksAction::List => {
            say(&uidriver_tasks::list_text(&selected, &skipped, osworld));
            exit::OK
        }
        TasksAction::Show { id } => {
            let Some(t) = selected.iter().find(|t| t.id == id) else {
                eprintln!("uidriver tasks show: no task {id:?}");
                return exit::USAGE;
            };
            if json {
                say(&serde_json::to_string_pretty(t).unwrap_or_default());
            } else {
                say(&uidriver_tasks::show_text(t));
            }
            exit::OK
        }
        TasksAction::Merge { .. }
        | TasksAction::OsworldCache { .. }
        | TasksAction::OsworldDeps { .. } => exit::USAGE,
        TasksAction::Run {
            agent,
            keep,
            jobs,
            wayland,
            log_dir,
            report,
        } => {
            // Agents reach the tools through this very binary (`uidriver mcp`).
            let uidriver = match std::env::current_exe() {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("uidriver tasks run: where is this binary? {e}");
                    return exit::UNAVAILABLE;
                }
            };
            let opts = RunOptions {
                tasks_dir: selection.dir,
                agent,
                keep,
                jobs,
                display_server: if wayland {
                    uidriver_tasks::DisplayServer::Wayland
                } else {
                    uidriver_tasks::DisplayServer::X11
                },
                log_dir: log_dir.unwrap_or_else(uidriver_tasks::default_log_dir),
                uidriver,
            };
            let out = Output {
                json,
                report,
                shard,
            };
            run_tasks(selected, &skipped, &opts, &out)
        }
    }
}

/// Where a run's report goes: stdout as text or JSON, and the JSON also to a file.
struct Output {
    json: bool,
    report: Option<PathBuf>,
    shard: Option<Shard>,
}

/// `tasks merge`: the shards' reports as one run's; exit as `run` would have.
fn merge(reports: &[PathBuf], json: bool) -> u8 {
    let m = match uidriver_tasks::merge_reports(reports) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("uidriver tasks merge: {e}");
            return exit::USAGE;
        }
    };
    eprintln!("uidriver tasks merge: {} reports", m.reports);
    if json {
        say(&uidriver_tasks::report_json(&m.tasks, &m.skipped, m.wall, None).to_string());
    } else {
        say(&uidriver_tasks::report_text(&m.tasks, &m.skipped, m.wall));
    }
    verdict(&m.tasks)
}

/// 0 when every task passed.
fn verdict(results: &[TaskResult]) -> u8 {
    if results.iter().all(|r| r.passed) {
        exit::OK
    } else {
        exit::TOOL_ERROR
    }
}

/// `tasks run`: runs `selected` (progress lines on stderr), prints the report; 0 when every
/// task passed.
fn run_tasks(selected: Vec<Task>, skipped: &[Skipped], opts: &RunOptions, out: &Output) -> u8 {
    for s in skipped {
        eprintln!("{}", uidriver_tasks::skip_line(s));
    }
    if selected.is_empty() {
        eprintln!("uidriver tasks run: no runnable task matches");
        return exit::USAGE;
    }
    if let Err(e) = std::fs::create_dir_all(&opts.log_dir) {
        eprintln!("uidriver tasks run: {}: {e}", opts.log_dir.display());
        return exit::UNAVAILABLE;
    }
    let t0 = Instant::now();
    let results = uidriver_tasks::run_all(selected, opts, &|r| {
        eprintln!("{}", uidriver_tasks::task_line(r))
    });
    let wall = t0.elapsed().as_secs_f64();
    let report = uidriver_tasks::report_json(&results, skipped, wall, out.shard);
    if let Some(path) = &out.report {
        if let Err(e) = std::fs::write(path, report.to_string()) {
            eprintln!(
                "uidriver tasks run: cannot write the report {}: {e}",
                path.display()
            );
            return exit::UNAVAILABLE;
        }
    }
    if out.json {
        say(&report.to_string());
    } else {
        say(&uidriver_tasks::report_text(&results, skipped, wall));
    }
    verdict(&results)
}
