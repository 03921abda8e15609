//! `uidriver tasks list|show|run`: an OSWorld-style suite of real tasks in real apps, each run
//! in its own sandbox by an agent (the scripted solutions by default) and judged by the state
//! it leaves behind. docs/TASKS.md describes the format.
//!
//! Layout: `task.rs` (the file format), `setup.rs` (preparing a sandbox, running commands in
//! it), `server.rs` (the local web server), `checkers.rs` (evaluators), `runner.rs` (one task
//! end to end, parallel jobs), `report.rs` (text and JSON).

mod checkers;
mod report;
mod runner;
mod server;
mod setup;
mod task;

use std::time::Instant;

use crate::cli::{TasksAction, TasksArgs};
use crate::commands::{exit, say};

pub async fn run(a: TasksArgs) -> u8 {
    tokio::task::spawn_blocking(move || run_blocking(a))
        .await
        .unwrap_or(exit::UNAVAILABLE)
}

fn run_blocking(a: TasksArgs) -> u8 {
    let dir = runner::find_tasks_dir(a.dir.as_deref());
    let all = match task::load_all(&dir) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("uidriver tasks: {e}");
            return exit::USAGE;
        }
    };
    let selected: Vec<task::Task> = all
        .into_iter()
        .filter(|t| a.only.as_deref().is_none_or(|p| t.matches(p)))
        .filter(|t| a.domain.as_deref().is_none_or(|d| t.domain == d))
        .filter(|t| !a.quick || t.quick)
        .collect();
    match a.action {
        TasksAction::List => list(&selected, a.json),
        TasksAction::Show { id } => show(&selected, &id, a.json),
        TasksAction::Run {
            agent,
            keep,
            jobs,
            log_dir,
        } => {
            if selected.is_empty() {
                eprintln!("uidriver tasks run: no task matches");
                return exit::USAGE;
            }
            let opts = runner::RunOptions {
                tasks_dir: dir,
                agent,
                keep,
                jobs,
                log_dir: log_dir.unwrap_or_else(runner::default_log_dir),
            };
            if let Err(e) = std::fs::create_dir_all(&opts.log_dir) {
                eprintln!("uidriver tasks run: {}: {e}", opts.log_dir.display());
                return exit::UNAVAILABLE;
            }
            let t0 = Instant::now();
            let results =
                runner::run_all(selected, &opts, &|r| eprintln!("{}", report::task_line(r)));
            let wall = t0.elapsed().as_secs_f64();
            if a.json {
                say(&report::to_json(&results, wall).to_string());
            } else {
                say(&report::to_text(&results, wall));
            }
            if results.iter().all(|r| r.passed) {
                exit::OK
            } else {
                exit::TOOL_ERROR
            }
        }
    }
}

fn list(tasks: &[task::Task], json: bool) -> u8 {
    if json {
        say(&serde_json::to_string(tasks).unwrap_or_default());
        return exit::OK;
    }
    for t in tasks {
        let mark = if t.infeasible { " (infeasible)" } else { "" };
        say(&format!(
            "{:<38} {}{mark}",
            format!("{}/{}", t.domain, t.id),
            t.instruction
        ));
    }
    let domains: std::collections::BTreeSet<&str> =
        tasks.iter().map(|t| t.domain.as_str()).collect();
    say(&format!(
        "{} tasks in {} domains",
        tasks.len(),
        domains.len()
    ));
    exit::OK
}

fn show(tasks: &[task::Task], id: &str, json: bool) -> u8 {
    let Some(t) = tasks.iter().find(|t| t.id == id) else {
        eprintln!("uidriver tasks show: no task {id:?}");
        return exit::USAGE;
    };
    if json {
        say(&serde_json::to_string_pretty(t).unwrap_or_default());
    } else {
        say(&format!("{}/{}  ({})", t.domain, t.id, t.path.display()));
        say(&format!("instruction: {}", t.instruction));
        if t.infeasible {
            say("infeasible: the agent must refuse");
        }
        for s in &t.setup {
            say(&format!(
                "setup: {}",
                serde_json::to_string(s).unwrap_or_default()
            ));
        }
        if let Some(e) = &t.evaluator {
            say(&format!(
                "evaluator: {}",
                serde_json::to_string(e).unwrap_or_default()
            ));
        }
        match t.solution() {
            Some(p) => say(&format!("solution: {}", p.display())),
            None => say("solution: none"),
        }
    }
    exit::OK
}
