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
    /// Sum of wall times (sandbox start to verdict), seconds.
    pub seconds: f64,
    /// OSWorld tasks of the domain that cannot run here.
    pub skipped: usize,
}

/// Per-domain totals, by domain name (domains with only skipped tasks too).
pub fn summarize(results: &[TaskResult], skipped: &[Skipped]) -> BTreeMap<String, DomainSummary> {
    let mut by: BTreeMap<String, DomainSummary> = BTreeMap::new();
    for r in results {
        let d = by.entry(r.domain.clone()).or_default();
        d.tasks += 1;
        d.passed += r.passed as usize;
        d.seconds += r.seconds;
    }
    for s in skipped {
        by.entry(s.domain.clone()).or_default().skipped += 1;
    }
    by
}

/// What kind of thing a skip reason names, without the task's particulars (a URL, a step
/// number, a getter's arguments): `unsupported setup type chrome_open_tabs`, `a download not
/// in the cache`, `postconfig: …`.
pub fn skip_kind(reason: &str) -> String {
    if let Some(rest) = reason.strip_prefix("postconfig: ") {
        return format!("postconfig: {}", skip_kind(rest));
    }
    if reason.contains("no --osworld-cache was given") {
        return "a download, and no --osworld-cache".into();
    }
    if reason.contains("is not in the cache") {
        return "a download not in the cache".into();
    }
    let cut = [" (step ", " with getters", " (only "]
        .iter()
        .filter_map(|m| reason.find(m))
        .min()
        .unwrap_or(reason.len());
    reason[..cut].trim().to_string()
}

/// The skip reasons' kinds with how many tasks each stopped, most first (then by name).
pub fn skip_counts(skipped: &[Skipped]) -> Vec<(String, usize)> {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for s in skipped {
        *by.entry(skip_kind(&s.reason)).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

fn skip_count_lines(skipped: &[Skipped]) -> Vec<String> {
    if skipped.is_empty() {
        return Vec::new();
    }
    let mut out = vec!["skip reasons (tasks):".to_string()];
    out.extend(
        skip_counts(skipped)
            .into_iter()
            .map(|(k, n)| format!("{n:>6}  {k}")),
    );
    out
}

/// The whole report as JSON: `{tasks: [...], skipped: [...], domains: {...}, passed, total,
/// seconds}`, and `shard: "I/N"` for a shard's (what `tasks merge` reads back).
pub fn report_json(
    results: &[TaskResult],
    skipped: &[Skipped],
    wall: f64,
    shard: Option<Shard>,
) -> serde_json::Value {
    let reasons: serde_json::Map<String, serde_json::Value> = skip_counts(skipped)
        .into_iter()
        .map(|(k, n)| (k, n.into()))
        .collect();
    let mut v = serde_json::json!({
        "tasks": results,
        "skipped": skipped,
        "skipReasons": reasons,
        "domains": summarize(results, skipped),
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
    let osworld = !skipped.is_empty();
    out.push(if osworld {
        format!(
            "{:<20} {:>6} {:>6} {:>8} {:>8} {:>9}",
            "domain", "passed", "tasks", "skipped", "seconds", "s/task"
        )
    } else {
        format!(
            "{:<20} {:>6} {:>6} {:>8}",
            "domain", "passed", "tasks", "seconds"
        )
    });
    for (d, s) in summarize(results, skipped) {
        out.push(if osworld {
            let per = if s.tasks > 0 {
                s.seconds / s.tasks as f64
            } else {
                0.0
            };
            format!(
                "{d:<20} {:>6} {:>6} {:>8} {:>8.1} {per:>9.1}",
                s.passed, s.tasks, s.skipped, s.seconds
            )
        } else {
            format!("{d:<20} {:>6} {:>6} {:>8.1}", s.passed, s.tasks, s.seconds)
        });
    }
    let passed = results.iter().filter(|r| r.passed).count();
    out.push(format!(
        "total: {passed}/{} passed in {wall:.1} s wall",
        results.len()
    ));
    if !skipped.is_empty() {
        out.push(format!("{} OSWorld tasks skipped", skipped.len()));
    }
    out.extend(skip_count_lines(skipped));
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
        out.extend(skip_count_lines(skipped));
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
    if let Some(ow) = &t.osworld {
        // OSWorld's own steps and evaluator, as its code will read them.
        let file: serde_json::Value = std::fs::read(&t.path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        for s in file["config"].as_array().into_iter().flatten() {
            out.push(format!("config (OSWorld's SetupController): {s}"));
        }
        out.push(format!(
            "evaluator (OSWorld's DesktopEnv.evaluate, {}): {}",
            ow.code.display(),
            file["evaluator"]
        ));
        return out.join("\n");
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

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(domain: &str, reason: &str) -> Skipped {
        Skipped {
            id: format!("{domain}-{}", reason.len()),
            domain: domain.into(),
            reason: reason.into(),
        }
    }

    #[test]
    fn skip_reasons_are_counted_by_kind_without_particulars() {
        let s = [
            skip("chrome", "unsupported setup type chrome_open_tabs (step 2)"),
            skip("chrome", "unsupported setup type chrome_open_tabs (step 1)"),
            skip(
                "os",
                "https://x/a.docx is not in the cache /c (looked for ab and a.docx)",
            ),
            skip(
                "os",
                "postconfig: unsupported setup type activate_window (step 3)",
            ),
            skip(
                "vs_code",
                "unsupported checker compare_table with getters vm_file and cloud_file",
            ),
            skip(
                "gimp",
                "downloads https://x/b.png, and no --osworld-cache was given",
            ),
        ];
        let c = skip_counts(&s);
        assert_eq!(
            c[0],
            ("unsupported setup type chrome_open_tabs".to_string(), 2)
        );
        let kinds: Vec<&str> = c.iter().map(|(k, _)| k.as_str()).collect();
        assert!(kinds.contains(&"a download not in the cache"), "{kinds:?}");
        assert!(
            kinds.contains(&"a download, and no --osworld-cache"),
            "{kinds:?}"
        );
        assert!(kinds.contains(&"postconfig: unsupported setup type activate_window"));
        assert!(kinds.contains(&"unsupported checker compare_table"));
        let by = summarize(&[], &s);
        assert_eq!(
            (by["chrome"].skipped, by["os"].skipped, by["chrome"].tasks),
            (2, 2, 0)
        );
        let text = list_text(&[], &s, true);
        assert!(text.contains("skip reasons (tasks):"), "{text}");
        assert!(
            text.contains("     2  unsupported setup type chrome_open_tabs"),
            "{text}"
        );
    }
}
