//! OSWorld's own task files (`evaluation_examples/examples/<domain>/<uuid>.json`: an
//! `instruction`, `config` setup steps, an `evaluator` with `func`, `result`, `expected`,
//! `options` and `postconfig`) as the suite's [`Task`]s, for `uidriver tasks list|run
//! --osworld DIR`. Nothing of OSWorld is re-implemented: its own `SetupController` prepares
//! the desktop and its own `DesktopEnv.evaluate` judges it, imported from the checkout by a
//! Python bridge and served by an OSWorld-compatible control API inside the task's sandbox.
//! A task runs when everything it needs can be served here; the rest are skipped, each with
//! the first reason found.
//!
//! Layout: `bridge.rs` (the interpreter, the scripts, which tasks can run), `session.rs` (one
//! task's control API, setup and verdict), `deps.rs` (`tasks osworld-deps`: the Python
//! packages), `cache.rs` (downloads from a local directory), `fetch.rs` (filling it over the
//! network: `tasks osworld-cache fetch`), `urls.rs` (what a task file downloads).

mod bridge;
mod cache;
mod deps;
mod fetch;
mod session;
mod urls;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

pub use bridge::default_venv;
pub use cache::Cache;
pub use deps::{install as install_deps, DepsReport};
pub use fetch::{fetch, Failed, FetchOptions, FetchReport, Progress};
pub use session::Session;

use super::task::{SetupStep, Task};

/// An OSWorld task that cannot run here, and why.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Skipped {
    /// The task's id (its uuid).
    pub id: String,
    /// Its domain (the directory it is in).
    pub domain: String,
    /// The first thing that cannot be served here.
    pub reason: String,
}

/// What running an OSWorld task needs besides its file ([`Task::path`]).
#[derive(Debug, Clone)]
pub struct OsworldRun {
    /// The checkout whose `desktop_env` sets up and judges it.
    pub code: PathBuf,
    /// Its downloads, each URL with its file in the cache.
    pub cached: BTreeMap<String, PathBuf>,
}

/// The LibreOffice profile every OSWorld task gets, as OSWorld's image has one (no tip of
/// the day, no first-start infobar).
const OFFICE_PROFILE: (&str, &str) = (
    "~/.config/libreoffice/4/user/registrymodifications.xcu",
    "libreoffice/registrymodifications.xcu",
);
/// Seconds an agent may take on an OSWorld task.
const TIMEOUT: u64 = 600;

/// The tasks of the OSWorld tree at `dir` (the checkout, its `evaluation_examples`, or the
/// `examples` directory itself) that can run, and those that cannot; both sorted by domain
/// then id.
pub fn load_dir(dir: &Path, cache: &Cache) -> Result<(Vec<Task>, Vec<Skipped>), String> {
    let files = task_files(dir)?;
    let mut tasks = Vec::new();
    let mut skipped = Vec::new();
    let mut readable = Vec::new();
    for f in files {
        match f.json {
            Ok(v) => readable.push((f.domain, f.stem, f.path, v)),
            Err(e) => skipped.push(Skipped {
                id: f.stem,
                domain: f.domain,
                reason: format!("cannot be read: {e}"),
            }),
        }
    }
    let mut cached = BTreeMap::new();
    for (_, _, _, v) in &readable {
        for url in urls::task_urls(v) {
            if let Ok(path) = cache.find(&url) {
                cached.insert(url, path);
            }
        }
    }
    let verdicts = bridge::checkout_of(dir)
        .ok_or_else(|| {
            format!(
                "{} is in no OSWorld checkout (no desktop_env/evaluators beside it)",
                dir.display()
            )
        })
        .and_then(|code| {
            let paths: Vec<PathBuf> = readable.iter().map(|r| r.2.clone()).collect();
            let urls: Vec<String> = cached.keys().cloned().collect();
            bridge::check(&code, &paths, &urls).map(|c| (code, c))
        });
    for (domain, stem, path, v) in readable {
        let checked = match &verdicts {
            Err(e) => Err(e.clone()),
            Ok((code, all)) => match all.iter().find(|c| c.path == path) {
                Some(c) => match &c.reason {
                    Some(r) => Err(r.clone()),
                    None => Ok((code.clone(), c.infeasible)),
                },
                None => Err("the bridge said nothing of it".to_string()),
            },
        };
        match checked {
            Ok((code, infeasible)) => {
                tasks.push(task(&v, &domain, &path, code, infeasible, &cached))
            }
            Err(reason) => skipped.push(Skipped {
                id: stem,
                domain,
                reason,
            }),
        }
    }
    tasks.sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    skipped.sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    Ok((tasks, skipped))
}

/// A runnable OSWorld task file as a [`Task`].
fn task(
    v: &Value,
    domain: &str,
    path: &Path,
    code: PathBuf,
    infeasible: bool,
    cached: &BTreeMap<String, PathBuf>,
) -> Task {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let mine: BTreeMap<String, PathBuf> = urls::task_urls(v)
        .into_iter()
        .filter_map(|u| cached.get(&u).map(|p| (u, p.clone())))
        .collect();
    Task {
        id: v["id"].as_str().unwrap_or(stem).to_string(),
        instruction: local(v["instruction"].as_str().unwrap_or("")),
        setup: vec![SetupStep::File {
            path: OFFICE_PROFILE.0.into(),
            content: None,
            from: Some(OFFICE_PROFILE.1.into()),
        }],
        evaluator: None,
        postconfig: vec![],
        infeasible,
        timeout: TIMEOUT,
        quick: false,
        notes: Some(format!("OSWorld task {}", path.display())),
        domain: domain.to_string(),
        path: path.to_path_buf(),
        osworld: Some(OsworldRun { code, cached: mine }),
    }
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
        let urls = urls::task_urls(&v);
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
