//! Merging the JSON reports of a sharded run (`tasks merge A.json B.json …`) into the report
//! one run would have printed: the tasks and skipped tasks of every shard, the domain table
//! recomputed from them, and the wall time of the slowest shard (shards run side by side).
//! Reports that overlap (a task twice) or leave a shard out are refused, naming what is wrong,
//! so a merged total never silently counts less or more than the suite.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

use super::osworld::Skipped;
use super::runner::TaskResult;
use super::shard::Shard;

/// One run's report as `tasks run --json` (or `--report`) writes it.
#[derive(Debug, Deserialize)]
struct ShardReport {
    tasks: Vec<TaskResult>,
    #[serde(default)]
    skipped: Vec<Skipped>,
    seconds: f64,
    /// `I/N` when the run was a shard.
    #[serde(default)]
    shard: Option<String>,
}

/// The merged run.
#[derive(Debug)]
pub struct Merged {
    /// Every shard's tasks, in order of domain then id.
    pub tasks: Vec<TaskResult>,
    /// Every shard's skipped OSWorld tasks, in the same order.
    pub skipped: Vec<Skipped>,
    /// The slowest shard's wall time, seconds.
    pub wall: f64,
    /// How many reports were merged.
    pub reports: usize,
}

/// Reads and merges the reports at `paths`; an error names the file or the conflict.
pub fn merge_reports(paths: &[impl AsRef<Path>]) -> Result<Merged, String> {
    if paths.is_empty() {
        return Err(
            "give the JSON reports to merge (tasks run --json > FILE, or --report FILE)".into(),
        );
    }
    let mut merged = Merged {
        tasks: Vec::new(),
        skipped: Vec::new(),
        wall: 0.0,
        reports: 0,
    };
    let mut shards: Vec<Shard> = Vec::new();
    let mut seen: BTreeMap<(String, String), String> = BTreeMap::new();
    for path in paths {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let r: ShardReport = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{} is not a report of `uidriver tasks run --json`: {e}",
                path.display()
            )
        })?;
        if let Some(s) = &r.shard {
            shards.push(s.parse().map_err(|e| format!("{}: {e}", path.display()))?);
        }
        let names = r.tasks.iter().map(|t| (t.domain.clone(), t.id.clone()));
        let skipped = r.skipped.iter().map(|t| (t.domain.clone(), t.id.clone()));
        for key in names.chain(skipped) {
            if let Some(first) = seen.insert(key.clone(), path.display().to_string()) {
                return Err(format!(
                    "{}/{} is in both {first} and {}: the reports overlap (the same shard twice, or shards of different selections)",
                    key.0,
                    key.1,
                    path.display()
                ));
            }
        }
        merged.tasks.extend(r.tasks);
        merged.skipped.extend(r.skipped);
        merged.wall = merged.wall.max(r.seconds);
        merged.reports += 1;
    }
    check_shards(&shards, paths.len())?;
    merged
        .tasks
        .sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    merged
        .skipped
        .sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    Ok(merged)
}

/// Sharded reports must be all of one N, each I once, none missing.
fn check_shards(shards: &[Shard], reports: usize) -> Result<(), String> {
    let Some(first) = shards.first() else {
        return Ok(());
    };
    if shards.len() != reports {
        return Err("some reports are shards and some are not: merge the shards of one run".into());
    }
    if let Some(other) = shards.iter().find(|s| s.count != first.count) {
        return Err(format!(
            "shards of different splits: {first} and {other}: merge the shards of one run"
        ));
    }
    let have: BTreeSet<usize> = shards.iter().map(|s| s.index).collect();
    let missing: Vec<String> = (1..=first.count)
        .filter(|i| !have.contains(i))
        .map(|i| format!("{i}/{}", first.count))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard {} missing: the merged report would count fewer tasks than the run",
            missing.join(", ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(
        dir: &Path,
        name: &str,
        shard: Option<&str>,
        tasks: &[(&str, &str, bool)],
    ) -> std::path::PathBuf {
        let tasks: Vec<_> = tasks
            .iter()
            .map(|(d, id, passed)| {
                serde_json::json!({"id": id, "domain": d, "passed": passed, "reason": "r",
                    "seconds": 2.0, "agentExit": 0, "toolCalls": 3, "textChars": 10, "images": 0,
                    "log": null, "keptSandbox": null})
            })
            .collect();
        let mut v = serde_json::json!({"tasks": tasks, "skipped": [], "seconds": 5.0});
        if let Some(s) = shard {
            v["shard"] = s.into();
        }
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p
    }

    #[test]
    fn shards_merge_into_one_run_and_conflicts_are_named() {
        let dir = std::env::temp_dir().join(format!("uidriver-merge-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = report(
            &dir,
            "a.json",
            Some("1/2"),
            &[("calc", "c1", true), ("writer", "w1", false)],
        );
        let b = report(&dir, "b.json", Some("2/2"), &[("calc", "c2", true)]);
        let m = merge_reports(&[&b, &a]).unwrap();
        let ids: Vec<_> = m.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2", "w1"]);
        assert_eq!((m.reports, m.wall), (2, 5.0));

        let e = merge_reports(&[&a, &a]).unwrap_err();
        assert!(e.contains("calc/c1 is in both"), "{e}");
        let e = merge_reports(&[&a]).unwrap_err();
        assert!(e.contains("shard 2/2 missing"), "{e}");
        let c = report(&dir, "c.json", Some("2/3"), &[("calc", "c3", true)]);
        assert!(merge_reports(&[&a, &c])
            .unwrap_err()
            .contains("different splits"));
        let whole = report(&dir, "whole.json", None, &[("calc", "c9", true)]);
        assert!(merge_reports(&[&a, &whole])
            .unwrap_err()
            .contains("some reports are shards"));
        std::fs::write(dir.join("bad.json"), "{}").unwrap();
        let e = merge_reports(&[dir.join("bad.json")]).unwrap_err();
        assert!(e.contains("not a report"), "{e}");
        assert!(merge_reports(&[dir.join("none.json")])
            .unwrap_err()
            .contains("cannot read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
