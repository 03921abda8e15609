//! `uidriver-tasks`: an OSWorld-style suite of real tasks in real apps, each run in its own
//! sandbox by an agent (the scripted solutions by default) over the public MCP tools, and judged
//! by the state it leaves behind. docs/TASKS.md describes the format. The command line
//! (`uidriver tasks list|show|run`) is the binary's; agents reach the tools through the
//! `uidriver` binary named in [`RunOptions::uidriver`], so this crate imports only the sandbox.
//!
//! Layout: `task.rs` (the file format), `osworld/` (OSWorld's task files read as tasks),
//! `setup.rs` (preparing a sandbox, running commands in it), `server.rs` (the local web
//! server), `checkers.rs` (evaluators), `runner.rs` (one task end to end, parallel jobs),
//! `report.rs` (what the command prints: listings, one task, the report of a run), `shard.rs`
//! (the I-th of N slices of a selection), `merge.rs` (shards' reports merged into one).

mod checkers;
mod merge;
mod osworld;
mod report;
mod runner;
mod server;
mod setup;
mod shard;
mod task;

use std::path::PathBuf;

pub use merge::{merge_reports, Merged};
pub use osworld::{
    default_venv as osworld_venv, fetch as fetch_osworld, install_deps as install_osworld_deps,
    DepsReport, Failed, FetchOptions, FetchReport, Progress, Skipped,
};
pub use report::{list_json, list_text, report_json, report_text, show_text, skip_line, task_line};
pub use runner::{default_log_dir, find_tasks_dir, run_all, stop_running, RunOptions, TaskResult};
pub use shard::Shard;
pub use task::{Checker, SetupStep, Task};
pub use uidriver_sandbox::DisplayServer;

/// Which tasks to take: the suite's, or OSWorld's with `osworld`, narrowed by `only`, `domain`
/// and `quick` (the command's `--only`, `--domain` and `--quick`).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The suite's directory ([`find_tasks_dir`]).
    pub dir: PathBuf,
    /// OSWorld's tree, read instead of the suite.
    pub osworld: Option<PathBuf>,
    /// Where OSWorld's downloads are looked up (none: every download is missing).
    pub osworld_cache: Option<PathBuf>,
    /// Comma-separated ids, domains or substrings of `domain/id`.
    pub only: Option<String>,
    /// Only this domain.
    pub domain: Option<String>,
    /// Only the quick subset (one task per domain).
    pub quick: bool,
    /// Only this slice of what the rest selects (`--shard I/N`).
    pub shard: Option<Shard>,
}

/// The selected tasks, and the selected OSWorld tasks that cannot run here (empty for the
/// suite); an error names the file or directory that could not be read.
pub fn select(s: &Selection) -> Result<(Vec<Task>, Vec<Skipped>), String> {
    let (all, skipped) = match &s.osworld {
        Some(ow) => osworld::load_dir(ow, &osworld::Cache::new(s.osworld_cache.as_deref()))?,
        None => (task::load_all(&s.dir)?, Vec::new()),
    };
    let selected: Vec<Task> = all
        .into_iter()
        .filter(|t| s.wants(&t.domain, &t.id))
        .filter(|t| !s.quick || t.quick)
        .collect();
    let skipped: Vec<Skipped> = skipped
        .into_iter()
        .filter(|k| s.wants(&k.domain, &k.id))
        .collect();
    Ok(match s.shard {
        None => (selected, skipped),
        Some(shard) => (
            shard.take(selected, |t| (t.domain.clone(), t.id.clone())),
            shard.take(skipped, |t| (t.domain.clone(), t.id.clone())),
        ),
    })
}

/// Every URL the selected OSWorld tasks download (`download` steps of `config` and
/// `postconfig`, `cloud_file` getters), runnable here or not, each once, in order of domain,
/// id and place in the task: what `tasks osworld-cache fetch` fetches. `only` and `domain`
/// narrow it; `--quick` selects no OSWorld task; `shard` is not read (a run's shards are dealt
/// from the runnable tasks, which depend on the cache). An error names the tree that could not
/// be read.
pub fn osworld_downloads(s: &Selection, tree: &std::path::Path) -> Result<Vec<String>, String> {
    let mut seen = std::collections::HashSet::new();
    Ok(osworld::downloads(tree)?
        .into_iter()
        .filter(|d| s.wants(&d.domain, &d.id) && !s.quick)
        .flat_map(|d| d.urls)
        .filter(|u| seen.insert(u.clone()))
        .collect())
}

impl Selection {
    /// The task `domain/id` is selected by `only` and `domain`.
    fn wants(&self, domain: &str, id: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|p| task::selects(p, domain, id))
            && self.domain.as_deref().is_none_or(|d| domain == d)
    }
}
