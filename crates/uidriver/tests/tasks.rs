//! The task suite end to end (issue 13): `uidriver tasks run --quick` (one task per domain, each
//! in its own sandbox, solved by its scripted MCP agent) must pass every task, and an agent
//! that does nothing (`--agent true`) must fail a feasible task and pass only an infeasible
//! one: the evaluators judge what the desktop holds afterwards, not what the agent says.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Programs the quick subset drives (scripts/install-deps.sh installs them all).
const NEEDS: &[&str] = &[
    "Xvfb",
    "openbox",
    "mousepad",
    "xfce4-terminal",
    "thunar",
    "chromium",
    "soffice",
    "featherpad",
];

/// Runs `uidriver tasks run ARGS --json` and returns its report and the agent-log directory
/// (removed by the caller once its checks passed), failing after `limit`.
fn run_tasks(args: &[&str], limit: Duration) -> (Value, std::path::PathBuf) {
    let exe = env!("CARGO_BIN_EXE_uidriver");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks");
    for prog in NEEDS {
        assert!(
            uidriver_sandbox::testing::have(prog),
            "{prog} is missing: scripts/install-deps.sh installs it"
        );
    }
    // One log directory per run: the tests run side by side.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let logs = std::env::temp_dir().join(format!(
        "uidriver-tasks-test-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let mut child = Command::new(exe)
        .args(["tasks", "run", "--json", "--dir", dir, "--log-dir"])
        .arg(&logs)
        .args(args)
        .env_remove("UIDRIVER_SOCKET")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start uidriver tasks run");
    let t0 = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("uidriver tasks run {args:?} took longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = child.wait_with_output().expect("output");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (report, logs)
}

fn summary(report: &Value) -> String {
    report["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let line = format!(
                "{} {}/{}: {} (log {})",
                if t["passed"] == true { "PASS" } else { "FAIL" },
                t["domain"].as_str().unwrap_or(""),
                t["id"].as_str().unwrap_or(""),
                t["reason"].as_str().unwrap_or(""),
                t["log"].as_str().unwrap_or("-")
            );
            match t["log"].as_str().filter(|_| t["passed"] != true) {
                Some(log) => format!("{line}\n{}", log_tail(log)),
                None => line,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The end of a failed task's log (its last calls, then its apps' output): what CI's output
/// keeps of a failure whose log directory is gone with the machine.
fn log_tail(path: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(80)..].join("\n    ");
    format!("  --- the last lines of {path}:\n    {tail}")
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI), apps and Chromium; scripts/test.sh runs it"]
fn the_quick_subset_passes_with_the_scripted_agents() {
    let (report, logs) = run_tasks(&["--quick", "--jobs", "2"], Duration::from_secs(420));
    let tasks = report["tasks"].as_array().expect("tasks");
    let domains = report["domains"].as_object().expect("domains");
    assert!(
        domains.len() >= 8,
        "one task per domain:\n{}",
        summary(&report)
    );
    assert_eq!(tasks.len(), domains.len(), "one quick task per domain");
    assert!(
        tasks.iter().all(|t| t["passed"] == true),
        "every quick task passes:\n{}",
        summary(&report)
    );
    // The scripted agents report what the tools returned to them.
    assert!(tasks
        .iter()
        .all(|t| t["toolCalls"].as_u64().unwrap_or(0) > 0));
    assert!(tasks
        .iter()
        .all(|t| t["textChars"].as_u64().unwrap_or(0) > 0));
    let _ = std::fs::remove_dir_all(logs);
}

/// Issue 28: the quick subset on Wayland desktops (`--wayland`: a headless sway per task,
/// the apps as native Wayland clients, the backend on sway's IPC, virtual input and
/// screencopy) passes as on X11.
#[test]
#[ignore = "live: starts private Wayland desktops (sway, AT-SPI), apps and Chromium; scripts/test.sh runs it"]
fn the_quick_subset_passes_on_wayland() {
    assert!(uidriver_sandbox::testing::have("sway"), "sway is missing");
    let (report, logs) = run_tasks(
        &["--quick", "--jobs", "2", "--wayland"],
        Duration::from_secs(420),
    );
    let tasks = report["tasks"].as_array().expect("tasks");
    assert!(
        tasks.len() >= 8,
        "one task per domain:\n{}",
        summary(&report)
    );
    assert!(
        tasks.iter().all(|t| t["passed"] == true),
        "every quick task passes on Wayland:\n{}",
        summary(&report)
    );
    let _ = std::fs::remove_dir_all(logs);
}

#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI), apps and Chromium; scripts/test.sh runs it"]
fn an_agent_that_does_nothing_passes_only_infeasible_tasks() {
    let (report, logs) = run_tasks(
        &[
            "--only",
            "mousepad-replace-word,chrome-contact-form,chrome-upload-infeasible",
            "--agent",
            "true",
        ],
        Duration::from_secs(180),
    );
    let tasks = report["tasks"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 3, "{}", summary(&report));
    for t in tasks {
        let infeasible = t["id"].as_str().unwrap_or("").ends_with("-infeasible");
        assert_eq!(
            t["passed"] == true,
            infeasible,
            "doing nothing passes only the infeasible task:\n{}",
            summary(&report)
        );
        // `true` reports no statistics: the runner does not make them up.
        assert!(t["toolCalls"].is_null());
    }
    let _ = std::fs::remove_dir_all(logs);
}

/// The runner contract's third verdict: an agent that asks the user (`ask_user: …` in
/// `$UIDRIVER_TASK_RESULT`) fails its task, feasible or not, and the report keeps the question.
#[test]
#[ignore = "live: starts a private desktop (Xvfb, AT-SPI), apps and Chromium; scripts/test.sh runs it"]
fn an_agent_that_asks_the_user_fails_with_its_question_recorded() {
    let (report, logs) = run_tasks(
        &[
            "--only",
            "mousepad-replace-word,chrome-upload-infeasible",
            "--agent",
            "printf 'ask_user: Which word should replace it?\n' > \"$UIDRIVER_TASK_RESULT\"",
        ],
        Duration::from_secs(180),
    );
    let tasks = report["tasks"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 2, "{}", summary(&report));
    for t in tasks {
        assert_eq!(t["passed"], false, "{}", summary(&report));
        assert_eq!(t["question"], "Which word should replace it?", "{t}");
        let reason = t["reason"].as_str().unwrap_or("");
        assert!(reason.contains("asked the user"), "{reason}");
    }
    let _ = std::fs::remove_dir_all(logs);
}

/// `tasks list --quick --json`: the quick subset's `domain/id`s, sorted (the tasks' own list,
/// which the shards must cover between them).
fn quick_ids(extra: &[&str]) -> Vec<String> {
    let exe = env!("CARGO_BIN_EXE_uidriver");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks");
    let out = Command::new(exe)
        .args(["tasks", "list", "--quick", "--json", "--dir", dir])
        .args(extra)
        .output()
        .expect("uidriver tasks list");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).expect("JSON list");
    sorted_ids(&list)
}

/// The sorted `domain/id`s of a list of tasks or of results.
fn sorted_ids(tasks: &Value) -> Vec<String> {
    let mut ids: Vec<String> = tasks
        .as_array()
        .expect("a list of tasks")
        .iter()
        .map(|t| {
            format!(
                "{}/{}",
                t["domain"].as_str().unwrap(),
                t["id"].as_str().unwrap()
            )
        })
        .collect();
    ids.sort();
    ids
}

/// Runs the quick subset as `n` shards, `at_once` at a time, each writing its report with
/// `--report`, then merges them with `tasks merge --json`.
fn sharded_quick_run(n: usize, at_once: usize, scratch: &std::path::Path) -> Value {
    let exe = env!("CARGO_BIN_EXE_uidriver");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tasks");
    let reports: Vec<_> = (1..=n)
        .map(|i| scratch.join(format!("{n}-{i}.json")))
        .collect();
    for batch in (1..=n).collect::<Vec<_>>().chunks(at_once) {
        let children: Vec<_> = batch
            .iter()
            .map(|i| {
                let shard = format!("{i}/{n}");
                Command::new(exe)
                    .args(["tasks", "run", "--quick", "--dir", dir, "--shard", &shard])
                    .arg("--log-dir")
                    .arg(scratch.join(format!("logs-{n}-{i}")))
                    .arg("--report")
                    .arg(&reports[i - 1])
                    .env_remove("UIDRIVER_SOCKET")
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .expect("start a shard")
            })
            .collect();
        for mut c in children {
            let _ = c.wait();
        }
    }
    let out = Command::new(exe)
        .args(["tasks", "merge", "--json"])
        .args(&reports)
        .output()
        .expect("uidriver tasks merge");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "merge gave no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Issue 26: the quick subset run as 2 and as 4 shards (`--shard I/N`, the way an Indexed
/// Job's pods run it), merged with `tasks merge`, is the whole subset once, every task passing
/// as in one run; the shards' lists are disjoint and cover the subset.
#[test]
#[ignore = "live: starts private desktops (Xvfb, AT-SPI), apps and Chromium; scripts/test.sh runs it"]
fn the_quick_subset_as_2_and_as_4_shards_merges_into_one_run() {
    for prog in NEEDS {
        assert!(uidriver_sandbox::testing::have(prog), "{prog} is missing");
    }
    let whole = quick_ids(&[]);
    for n in [2usize, 4] {
        let mut dealt: Vec<String> = (1..=n)
            .flat_map(|i| quick_ids(&["--shard", &format!("{i}/{n}")]))
            .collect();
        dealt.sort();
        assert_eq!(dealt, whole, "{n} shards list the subset once between them");
    }
    let scratch = std::env::temp_dir().join(format!("uidriver-shards-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for (n, at_once) in [(2, 2), (4, 2)] {
        let merged = sharded_quick_run(n, at_once, &scratch);
        let ids = sorted_ids(&merged["tasks"]);
        assert_eq!(
            ids,
            whole,
            "{n} shards merged: the subset once:\n{}",
            summary(&merged)
        );
        assert_eq!(merged["total"], whole.len(), "{n} shards: the total");
        assert_eq!(
            merged["passed"],
            whole.len(),
            "{n} shards: every task passes as in one run:\n{}",
            summary(&merged)
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
