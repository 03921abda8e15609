//! `uidriver tasks list|show|run|merge`: the command line of the task suite. Loading, running and
//! judging tasks is `uidriver-tasks`'s job; this file turns the flags into its calls, prints
//! what it returns and picks the exit status.

use std::path::PathBuf;
use std::time::Instant;

use uidriver_tasks::{RunOptions, Selection, Shard, Skipped, Task, TaskResult};

use crate::cli::{TasksAction, TasksArgs};
use crate::commands::{exit, say};

pub async fn run(a: TasksArgs) -> u8 {
    tokio::task::spawn_blocking(move || run_blocking(a))
        .await
        .unwrap_or(exit::UNAVAILABLE)
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
        TasksAction::Merge { .. } => exit::USAGE,
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
