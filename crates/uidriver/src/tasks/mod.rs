//! `uidriver tasks list|show|run`: an OSWorld-style suite of real tasks in real apps, each run
//! in its own sandbox by an agent (the scripted solutions by default) and judged by the state
//! it leaves behind. docs/TASKS.md describes the format.
//!
//! Layout: `task.rs` (the file format), `osworld/` (OSWorld's task files read as tasks),
//! `setup.rs` (preparing a sandbox, running commands in it), `server.rs` (the local web
//! server), `checkers.rs` (evaluators), `runner.rs` (one task end to end, parallel jobs),
//! `report.rs` (text and JSON).

mod checkers;
mod osworld;
mod report;
mod runner;
mod server;
mod setup;
mod task;

use std::time::Instant;

use crate::cli::{TasksAction, TasksArgs};
use crate::commands::{exit, say};
use osworld::Skipped;

pub async fn run(a: TasksArgs) -> u8 {
    tokio::task::spawn_blocking(move || run_blocking(a))
        .await
        .unwrap_or(exit::UNAVAILABLE)
}

/// The suite's tasks, or OSWorld's with those that cannot run (`--osworld`).
fn load(a: &TasksArgs, dir: &std::path::Path) -> Result<(Vec<task::Task>, Vec<Skipped>), String> {
    match &a.osworld {
        Some(ow) => osworld::load_dir(ow, &osworld::Cache::new(a.osworld_cache.as_deref())),
        None => task::load_all(dir).map(|t| (t, Vec::new())),
    }
}

fn run_blocking(a: TasksArgs) -> u8 {
    let dir = runner::find_tasks_dir(a.dir.as_deref());
    let (all, skipped) = match load(&a, &dir) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("uidriver tasks: {e}");
            return exit::USAGE;
        }
    };
    let wanted = |domain: &str, id: &str| {
        a.only
            .as_deref()
            .is_none_or(|p| task::selects(p, domain, id))
            && a.domain.as_deref().is_none_or(|d| domain == d)
    };
    let selected: Vec<task::Task> = all
        .into_iter()
        .filter(|t| wanted(&t.domain, &t.id))
        .filter(|t| !a.quick || t.quick)
        .collect();
    let skipped: Vec<Skipped> = skipped
        .into_iter()
        .filter(|s| wanted(&s.domain, &s.id))
        .collect();
    match a.action {
        TasksAction::List => list(&selected, &skipped, a.json, a.osworld.is_some()),
        TasksAction::Show { id } => show(&selected, &id, a.json),
        TasksAction::Run {
            agent,
            keep,
            jobs,
            log_dir,
        } => {
            for s in &skipped {
                eprintln!("{}", report::skip_line(s));
            }
            if selected.is_empty() {
                eprintln!("uidriver tasks run: no runnable task matches");
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
                say(&report::to_json(&results, &skipped, wall).to_string());
            } else {
                say(&report::to_text(&results, &skipped, wall));
            }
            if results.iter().all(|r| r.passed) {
                exit::OK
            } else {
                exit::TOOL_ERROR
            }
        }
    }
}

/// Lists tasks; with `--osworld`, the skipped ones too (JSON: `{tasks, skipped}`).
fn list(tasks: &[task::Task], skipped: &[Skipped], json: bool, osworld: bool) -> u8 {
    if json {
        let out = if osworld {
            serde_json::json!({"tasks": tasks, "skipped": skipped})
        } else {
            serde_json::json!(tasks)
        };
        say(&out.to_string());
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
    for s in skipped {
        say(&report::skip_line(s));
    }
    say(&format!(
        "{} tasks in {} domains",
        tasks.len(),
        domains.len()
    ));
    if osworld {
        say(&format!("{} OSWorld tasks skipped", skipped.len()));
    }
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
