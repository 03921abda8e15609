//! OSWorld's own task files (`evaluation_examples/examples/<domain>/<uuid>.json`: an
//! `instruction`, `config` setup steps, an `evaluator` with `func`, `result`, `expected`,
//! `options` and `postconfig`) read into the suite's [`Task`]s, for
//! `uidriver tasks list|run --osworld DIR`. A task whose every step, getter and func has a
//! counterpart here runs like any other; the rest are skipped, each with the first reason
//! found. Running and judging stay the runner's and the checkers' job.
//!
//! Layout: `cache.rs` (downloads from a local directory), `fetch.rs` (filling that directory
//! over the network: `tasks osworld-cache fetch`), `config.rs` (setup and postconfig steps),
//! `evaluator.rs` (funcs and getters onto checkers).

mod cache;
mod config;
mod evaluator;
mod fetch;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

pub use cache::Cache;
pub use fetch::{fetch, Failed, FetchOptions, FetchReport, Progress};

use super::task::Task;

/// An OSWorld task that cannot run here, and why.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Skipped {
    /// The task's id (its uuid).
    pub id: String,
    /// Its domain (the directory it is in).
    pub domain: String,
    /// The first thing that has no counterpart here.
    pub reason: String,
}

/// The tasks of the OSWorld tree at `dir` (the repository, its `evaluation_examples`, or the
/// `examples` directory itself) that can run, and those that cannot; both sorted by domain
/// then id.
pub fn load_dir(dir: &Path, cache: &Cache) -> Result<(Vec<Task>, Vec<Skipped>), String> {
    let mut tasks = Vec::new();
    let mut skipped = Vec::new();
    for f in task_files(dir)? {
        match f.json.and_then(|v| convert(&v, &f.domain, &f.path, cache)) {
            Ok(t) => tasks.push(t),
            Err(reason) => skipped.push(Skipped {
                id: f.stem,
                domain: f.domain,
                reason,
            }),
        }
    }
    tasks.sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    skipped.sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    Ok((tasks, skipped))
}

/// What one OSWorld task downloads, whether or not the rest of it can run here.
#[derive(Debug, Clone)]
pub struct Downloads {
    /// The task's id (its file's stem, as [`Skipped`] names it).
    pub id: String,
    /// Its domain.
    pub domain: String,
    /// The URLs its `config` and `postconfig` `download` steps and its evaluator's
    /// `cloud_file` getters fetch, in that order.
    pub urls: Vec<String>,
}

/// What each task of the OSWorld tree at `dir` downloads (tasks that download nothing or
/// cannot be read left out), sorted by domain then id.
pub fn downloads(dir: &Path) -> Result<Vec<Downloads>, String> {
    let mut all = Vec::new();
    for f in task_files(dir)? {
        let Ok(v) = f.json else { continue };
        let no_steps = Vec::new();
        let ev = &v["evaluator"];
        let mut urls = config::download_urls(v["config"].as_array().unwrap_or(&no_steps));
        urls.extend(config::download_urls(
            ev["postconfig"].as_array().unwrap_or(&no_steps),
        ));
        urls.extend(evaluator::cloud_urls(ev));
        if !urls.is_empty() {
            all.push(Downloads {
                id: f.stem,
                domain: f.domain,
                urls,
            });
        }
    }
    all.sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    Ok(all)
}

/// One task file of an OSWorld tree, read as JSON (or why it could not be).
struct TaskFile {
    domain: String,
    stem: String,
    path: PathBuf,
    json: Result<Value, String>,
}

/// Every `<domain>/<id>.json` under the tree at `dir`.
fn task_files(dir: &Path) -> Result<Vec<TaskFile>, String> {
    let root = examples_dir(dir);
    let mut out = Vec::new();
    let domains = std::fs::read_dir(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    for d in domains.flatten().filter(|d| d.path().is_dir()) {
        let domain = d.file_name().to_string_lossy().to_string();
        let files = std::fs::read_dir(d.path()).map_err(|e| format!("{domain}: {e}"))?;
        for path in files.flatten().map(|f| f.path()) {
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_string();
            let json = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()));
            out.push(TaskFile {
                domain: domain.clone(),
                stem,
                path,
                json,
            });
        }
    }
    Ok(out)
}

/// `evaluation_examples/examples` under `dir`, or `examples`, or `dir` itself.
fn examples_dir(dir: &Path) -> PathBuf {
    [
        dir.join("evaluation_examples/examples"),
        dir.join("examples"),
    ]
    .into_iter()
    .find(|c| c.is_dir())
    .unwrap_or_else(|| dir.to_path_buf())
}

/// One OSWorld task file as a [`Task`], or why it cannot run here.
fn convert(v: &Value, domain: &str, path: &Path, cache: &Cache) -> Result<Task, String> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let id = v["id"].as_str().unwrap_or(stem).to_string();
    let instruction = v["instruction"].as_str().ok_or("no instruction")?;
    let no_steps = Vec::new();
    let setup = config::steps(v["config"].as_array().unwrap_or(&no_steps), cache)?;
    let ev = v.get("evaluator").ok_or("no evaluator")?;
    let judged = evaluator::convert(ev, cache)?;
    let postconfig = config::steps(ev["postconfig"].as_array().unwrap_or(&no_steps), cache)
        .map_err(|e| format!("postconfig: {e}"))?;
    Ok(Task {
        id,
        instruction: local(instruction),
        setup,
        evaluator: judged.checker,
        postconfig,
        infeasible: judged.infeasible,
        timeout: 180,
        quick: false,
        notes: Some(format!("OSWorld task {}", path.display())),
        domain: domain.to_string(),
        path: path.to_path_buf(),
    })
}

/// OSWorld's home `/home/user` as the sandbox's private home (`{home}`, expanded when the task
/// runs), wherever it starts a path in `s`.
pub(crate) fn local(s: &str) -> String {
    let re = regex::Regex::new(r"/home/user\b").expect("a valid pattern");
    re.replace_all(s, "{home}").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_paths_are_the_sandbox_home() {
        assert_eq!(
            local("cat /home/user/Desktop/a.txt"),
            "cat {home}/Desktop/a.txt"
        );
        assert_eq!(local("/home/user"), "{home}");
        assert_eq!(local("/home/username/x"), "/home/username/x");
    }
}
