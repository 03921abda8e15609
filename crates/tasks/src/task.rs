//! The task format: one JSON file per task under `tasks/<domain>/<id>.json`, read into [`Task`].
//! A task says what to ask the agent, how to prepare the desktop, and how to judge the result;
//! preparing is `setup.rs`'s job and judging `checkers.rs`'s. docs/TASKS.md is the reference.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One task, as written in its JSON file (plus where it was found).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// Unique id; equals the file name without `.json`.
    pub id: String,
    /// What the agent is asked to do (`{server}` is replaced by the local server's URL).
    pub instruction: String,
    /// Steps that prepare the desktop, in order.
    #[serde(default)]
    pub setup: Vec<SetupStep>,
    /// How the result is judged (absent only for infeasible tasks).
    #[serde(default)]
    pub evaluator: Option<Checker>,
    /// Steps run after the agent and before the evaluator (OSWorld's `postconfig`: e.g. a
    /// command that collects what the checker reads).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub postconfig: Vec<SetupStep>,
    /// The task cannot be done: the agent must say so (and change nothing the evaluator sees).
    #[serde(default)]
    pub infeasible: bool,
    /// Seconds the agent may take (default 180).
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// Part of the quick subset run by the test suite (one per domain).
    #[serde(default)]
    pub quick: bool,
    /// What the task exercises, for people reading the suite (free text).
    #[serde(default)]
    pub notes: Option<String>,
    /// The domain: the directory the file is in (not written in the file).
    #[serde(skip_deserializing, default)]
    pub domain: String,
    /// The JSON file.
    #[serde(skip, default)]
    pub path: PathBuf,
    /// An OSWorld task file: set up and judged by OSWorld's own code, not by `setup` and
    /// `evaluator` (which then only hold what every OSWorld task gets).
    #[serde(skip, default)]
    pub osworld: Option<crate::osworld::OsworldRun>,
}

fn default_timeout() -> u64 {
    180
}

/// One setup step. Paths may start with `~/` (the sandbox's private home).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SetupStep {
    /// Write a file: inline `content`, or a copy of `from` (relative to `tasks/files/`, or an
    /// absolute path on this machine: OSWorld downloads come from the cache that way).
    File {
        path: String,
        #[serde(default)]
        content: Option<String>,
        #[serde(default)]
        from: Option<String>,
    },
    /// Start the local web server over `root` (relative to `tasks/files/`); it records every
    /// request and answers POSTs with a short page. Its URL replaces `{server}` everywhere.
    Server { root: String },
    /// Start an application (a shell command line) and wait for its window unless `wait` is false.
    Launch {
        command: String,
        #[serde(default = "yes")]
        wait: bool,
    },
    /// Run a shell command inside the sandbox and wait for it (it must succeed).
    Command { command: String },
    /// Pause (seconds, fractional allowed).
    Sleep { seconds: f64 },
}

fn yes() -> bool {
    true
}

/// A checker: its name (`checker`) and its arguments. `all` combines several.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "checker", rename_all = "snake_case", deny_unknown_fields)]
pub enum Checker {
    /// Every listed checker passes.
    All { checks: Vec<Checker> },
    /// At least one listed checker passes (OSWorld's `"conj": "or"`).
    Any { checks: Vec<Checker> },
    /// The checker fails (e.g. no request reached the server).
    Not { check: Box<Checker> },
    /// The file's text equals `expected`: with `trim`, ignoring surrounding whitespace; with
    /// `ignore_blanks`, every run of whitespace counts as one space; with `ignore_case`,
    /// letters compare case-insensitively (OSWorld's `compare_text_file` options).
    FileEquals {
        path: String,
        expected: String,
        #[serde(default)]
        trim: bool,
        #[serde(default)]
        ignore_blanks: bool,
        #[serde(default)]
        ignore_case: bool,
    },
    /// The file contains every `contains` string and none of the `absent` ones.
    FileContains {
        path: String,
        #[serde(default)]
        contains: Vec<String>,
        #[serde(default)]
        absent: Vec<String>,
    },
    /// The file's text matches the regular expression.
    FileRegex { path: String, pattern: String },
    /// The directory holds every `contains` name and none of the `absent` ones; with `exact`,
    /// nothing else either.
    DirListing {
        path: String,
        #[serde(default)]
        contains: Vec<String>,
        #[serde(default)]
        absent: Vec<String>,
        #[serde(default)]
        exact: bool,
    },
    /// A key of an ini-style config file (`[section]` then `key=value`) has this value.
    ConfigKey {
        path: String,
        #[serde(default)]
        section: Option<String>,
        key: String,
        expected: String,
    },
    /// A shell command run in the sandbox prints (trimmed) `expected`, or output containing
    /// `contains` (a string or a list: all of them) and none of `absent`, or matching
    /// `pattern`.
    CommandOutput {
        command: String,
        #[serde(default)]
        expected: Option<String>,
        #[serde(default, deserialize_with = "one_or_many")]
        contains: Vec<String>,
        #[serde(default)]
        absent: Vec<String>,
        #[serde(default)]
        pattern: Option<String>,
    },
    /// The local server received a request with this method and path whose form or query
    /// fields include `fields`, lack every `absent` field (an unchecked check box), and whose
    /// body contains `body_contains`. The latest such request is judged.
    ServerRequest {
        #[serde(default = "post")]
        method: String,
        path: String,
        #[serde(default)]
        fields: serde_json::Map<String, Value>,
        #[serde(default)]
        absent: Vec<String>,
        #[serde(default)]
        body_contains: Option<String>,
    },
    /// Cells of a spreadsheet (xlsx or ods): `{"Sheet1!B2": {"value": 3, "formula": "=A2+1"}}`
    /// or `{"B2": …}` for the first sheet. Values compare as numbers when both are numeric.
    SheetCells {
        path: String,
        cells: serde_json::Map<String, Value>,
    },
    /// Paragraphs of a document (docx or odt): each entry of `paragraphs` is
    /// `{"text": …}` (exact) or `{"contains": …}`, optionally with run formatting
    /// `{"bold": true, "italic": …, "underline": …}` that every run of the text must have.
    /// `absent`: strings no paragraph may contain.
    DocParagraphs {
        path: String,
        #[serde(default)]
        paragraphs: Vec<Value>,
        #[serde(default)]
        absent: Vec<String>,
    },
    /// Every cell value of one sheet of a spreadsheet equals that of a sheet of the `expected`
    /// spreadsheet (a file on this machine: absolute, or relative to `tasks/files/`); sheets
    /// are named, or numbered from 0 (OSWorld's `compare_table` `sheet_data` rule).
    SheetMatches {
        path: String,
        expected: String,
        #[serde(default = "first_sheet")]
        sheet: Value,
        #[serde(default = "first_sheet")]
        expected_sheet: Value,
    },
    /// Slide titles of a presentation (pptx or odp), in order; `exact` also fixes the count.
    SlideTitles {
        path: String,
        titles: Vec<String>,
        #[serde(default)]
        exact: bool,
    },
}

fn post() -> String {
    "POST".into()
}

fn first_sheet() -> Value {
    Value::from(0)
}

/// A string or a list of strings, read as a list (`"contains": "x"` stays valid).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

impl Task {
    /// Reads one task file; its domain is the name of the directory it is in.
    pub fn load(path: &Path) -> Result<Task, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut t: Task =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if t.id != stem {
            return Err(format!(
                "{}: id {:?} differs from the file name",
                path.display(),
                t.id
            ));
        }
        if t.evaluator.is_none() && !t.infeasible {
            return Err(format!(
                "{}: a feasible task needs an evaluator",
                path.display()
            ));
        }
        t.domain = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        t.path = path.to_path_buf();
        Ok(t)
    }

    /// The scripted solution next to the task file (`<id>.py`), when there is one.
    pub fn solution(&self) -> Option<PathBuf> {
        let p = self.path.with_extension("py");
        p.is_file().then_some(p)
    }
}

/// Whether `pattern` (comma-separated ids, domains, or substrings of `domain/id`) selects the
/// task `domain/id`.
pub fn selects(pattern: &str, domain: &str, id: &str) -> bool {
    let full = format!("{domain}/{id}");
    pattern
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| p == id || p == domain || full.contains(p))
}

/// Every task under `root` (`root/<domain>/<id>.json`), sorted by domain then id. `files/` and
/// `lib/` hold fixtures and helpers, not tasks.
pub fn load_all(root: &Path) -> Result<Vec<Task>, String> {
    let mut tasks = Vec::new();
    let dirs = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    for d in dirs.flatten() {
        let name = d.file_name().to_string_lossy().to_string();
        if !d.path().is_dir() || name == "files" || name == "lib" || name.starts_with('.') {
            continue;
        }
        let files = std::fs::read_dir(d.path()).map_err(|e| format!("{name}: {e}"))?;
        for f in files.flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "json") {
                tasks.push(Task::load(&p)?);
            }
        }
    }
    tasks.sort_by(|a, b| (&a.domain, &a.id).cmp(&(&b.domain, &b.id)));
    let mut ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("two tasks share the id {:?}", w[0]));
    }
    Ok(tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_file_parses_and_unknown_fields_are_refused() {
        let ok = r#"{"id":"t","instruction":"do it","setup":[{"type":"file","path":"~/a","content":"x"},
            {"type":"launch","command":"mousepad ~/a"}],
            "evaluator":{"checker":"file_contains","path":"~/a","contains":["y"]}}"#;
        let t: Task = serde_json::from_str(ok).unwrap();
        assert_eq!(t.setup.len(), 2);
        assert_eq!(t.timeout, 180);
        let bad = r#"{"id":"t","instruction":"x","evaluator":{"checker":"file_equals","path":"a","expected":"b","bogus":1}}"#;
        assert!(serde_json::from_str::<Task>(bad).is_err());
        let unknown = r#"{"id":"t","instruction":"x","evaluator":{"checker":"nope"}}"#;
        assert!(serde_json::from_str::<Task>(unknown).is_err());
    }

    #[test]
    fn patterns_select_by_id_domain_or_substring() {
        let sel = |p| selects(p, "file_manager", "rename-file");
        assert!(sel("rename-file"));
        assert!(sel("file_manager"));
        assert!(sel("other,manager/ren"));
        assert!(!sel("calc"));
    }
}
