//! What `uidriver tasks` prints: the list of tasks, one task shown, and the report of a run:
//! one line per task (pass/fail, time, tool calls, text and images the agent received, the
//! evaluator's reason), a summary per domain, or all of it as JSON. Printing is the binary's.

use std::collections::BTreeMap;

use serde::Serialize;

use super::osworld::Skipped;
use super::runner::TaskResult;
use super::shard::Shard;
use super::task::Task;

/// Totals of one domain.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainSummary {
    /// Tasks run.
    pub tasks: usize,
    /// Tasks passed.
    pub passed: usize,
    /// Sum of wall times, seconds.
    pub seconds: f64,
}

/// Per-domain totals, by domain name.
pub fn summarize(results: &[TaskResult]) -> BTreeMap<String, DomainSummary> {
    let mut by: BTreeMap<String, DomainSummary> = BTreeMap::new();
    for r in results {
        let d = by.entry(r.domain.clone()).or_default();
        d.tasks += 1;
        d.passed += r.passed as usize;
        d.seconds += r.seconds;
    }
    by
}

/// The whole report as JSON: `{tasks: [...], skipped: [...], domains: {...}, passed, total,
/// seconds}`, and `shard: "I/N"` for a shard's (what `tasks merge` reads back).
pub fn report_json(
    results: &[TaskResult],
    skipped: &[Skipped],
    wall: f64,
    shard: Option<Shard>,
) -> serde_json::Value {
    let mut v = serde_json::json!({
        "tasks": results,
        "skipped": skipped,
        "domains": summarize(results),
        "passed": results.iter().filter(|r| r.passed).count(),
        "total": results.len(),
        "seconds": wall,
    });
    if let Some(s) = shard {
        v["shard"] = s.to_string().into();
    }
    v
}

fn opt(v: Option<u64>) -> String {
    v.map(|n| n.to_string()).unwrap_or_else(|| "-".into())
}

/// One line for a finished task (also printed as progress).
pub fn task_line(r: &TaskResult) -> String {
    let mut line = format!(
        "{} {:<38} {:>6.1}s  calls {:>3}  text {:>6}  images {:>2}  {}",
        if r.passed { "PASS" } else { "FAIL" },
        format!("{}/{}", r.domain, r.id),
        r.seconds,
        opt(r.tool_calls),
        opt(r.text_chars),
        opt(r.images),
        r.reason
    );
    if let Some(l) = &r.log {
        line.push_str(&format!("  [log {}]", l.display()));
    }
    if let Some(k) = &r.kept_sandbox {
        let name = k
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(uidriver_sandbox::STATE_DIR_PREFIX))
            .unwrap_or("?");
        line.push_str(&format!(
            "  [sandbox kept: `. {}/env`; stop: `uidriver sandbox stop --name {name}`]",
            k.display()
        ));
    }
    line
}

/// One line for an OSWorld task that cannot run here.
pub fn skip_line(s: &Skipped) -> String {
    format!("SKIP {:<38} {}", format!("{}/{}", s.domain, s.id), s.reason)
}

/// The text report: every task line and skipped task, then the domain table and the total.
pub fn report_text(results: &[TaskResult], skipped: &[Skipped], wall: f64) -> String {
    let mut out: Vec<String> = results.iter().map(task_line).collect();
    out.extend(skipped.iter().map(skip_line));
    out.push(String::new());
    out.push(format!(
        "{:<16} {:>6} {:>6} {:>8}",
        "domain", "passed", "tasks", "seconds"
    ));
    for (d, s) in summarize(results) {
        out.push(format!(
            "{d:<16} {:>6} {:>6} {:>8.1}",
            s.passed, s.tasks, s.seconds
        ));
    }
    let passed = results.iter().filter(|r| r.passed).count();
    out.push(format!(
        "total: {passed}/{} passed in {wall:.1} s wall",
        results.len()
    ));
    if !skipped.is_empty() {
        out.push(format!("{} OSWorld tasks skipped", skipped.len()));
    }
    out.join("\n")
}

/// The list of tasks, one line each, then (with `osworld`) the skipped ones, and the counts.
pub fn list_text(tasks: &[Task], skipped: &[Skipped], osworld: bool) -> String {
    let mut out: Vec<String> = tasks
        .iter()
        .map(|t| {
            let mark = if t.infeasible { " (infeasible)" } else { "" };
            format!(
                "{:<38} {}{mark}",
                format!("{}/{}", t.domain, t.id),
                t.instruction
            )
        })
        .collect();
    let domains: std::collections::BTreeSet<&str> =
        tasks.iter().map(|t| t.domain.as_str()).collect();
    out.extend(skipped.iter().map(skip_line));
    out.push(format!(
        "{} tasks in {} domains",
        tasks.len(),
        domains.len()
    ));
    if osworld {
        out.push(format!("{} OSWorld tasks skipped", skipped.len()));
    }
    out.join("\n")
}

/// The tasks as JSON: their records, or with `osworld` `{tasks, skipped}`.
pub fn list_json(tasks: &[Task], skipped: &[Skipped], osworld: bool) -> serde_json::Value {
    if osworld {
        serde_json::json!({"tasks": tasks, "skipped": skipped})
    } else {
        serde_json::json!(tasks)
    }
}

/// One task: where it is, its instruction, setup, evaluator and solution.
pub fn show_text(t: &Task) -> String {
    let mut out = vec![
        format!("{}/{}  ({})", t.domain, t.id, t.path.display()),
        format!("instruction: {}", t.instruction),
    ];
    if t.infeasible {
        out.push("infeasible: the agent must refuse".into());
    }
    for s in &t.setup {
        out.push(format!(
            "setup: {}",
            serde_json::to_string(s).unwrap_or_default()
        ));
    }
    if let Some(e) = &t.evaluator {
        out.push(format!(
            "evaluator: {}",
            serde_json::to_string(e).unwrap_or_default()
        ));
    }
    out.push(match t.solution() {
        Some(p) => format!("solution: {}", p.display()),
        None => "solution: none".into(),
    });
    out.join("\n")
}
