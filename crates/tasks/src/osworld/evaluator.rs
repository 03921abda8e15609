//! OSWorld's evaluator (`func`, `result`, `expected`, `options`, `conj`) as one of the suite's
//! [`Checker`]s. Each supported func maps onto an existing checker for the getters it is used
//! with; a func, getter or rule with no counterpart makes the task unsupported, named in the
//! reason. docs/TASKS.md lists the mapping.

use serde_json::{Map, Value};

use super::cache::Cache;
use super::config::command_line;
use super::local;
use crate::task::Checker;

/// The funcs that map onto a checker (with the getters `metric` accepts).
const FUNCS: &[&str] = &[
    "exact_match",
    "check_include_exclude",
    "match_in_list",
    "compare_text_file",
    "compare_table",
];

/// How a task is judged: a checker, or OSWorld's `infeasible` (the agent must refuse).
pub struct Judged {
    /// The checker (None for an infeasible task).
    pub checker: Option<Checker>,
    /// The task is infeasible.
    pub infeasible: bool,
}

/// What a getter yields: a shell line, a sandbox file, literal rules, or a cached file.
enum Got {
    Command(String),
    File(String),
    Rule(Value),
    Cached(String),
}

/// The checker for OSWorld's `evaluator`, or why there is none.
pub fn convert(ev: &Value, cache: &Cache) -> Result<Judged, String> {
    let funcs: Vec<&str> = match &ev["func"] {
        Value::String(f) => vec![f.as_str()],
        Value::Array(fs) => fs.iter().filter_map(Value::as_str).collect(),
        _ => return Err("the evaluator has no func".into()),
    };
    if funcs == ["infeasible"] {
        return Ok(Judged {
            checker: None,
            infeasible: true,
        });
    }
    if let Some(f) = funcs.iter().find(|f| !FUNCS.contains(f)) {
        return Err(format!("unsupported checker {f}"));
    }
    let many = ev["func"].is_array();
    let nth = |key: &str, i: usize| -> Option<&Value> {
        match &ev[key] {
            Value::Null => None,
            Value::Array(a) if many => a.get(i).filter(|v| !v.is_null()),
            v => Some(v),
        }
    };
    let mut checks = Vec::new();
    for (i, f) in funcs.iter().enumerate() {
        let result = nth("result", i).ok_or(format!("{f} has no result getter"))?;
        checks.push(metric(
            f,
            result,
            nth("expected", i),
            nth("options", i),
            cache,
        )?);
    }
    let checker = match (checks.len(), ev["conj"].as_str().unwrap_or("and")) {
        (1, _) => checks.remove(0),
        (_, "or") => Checker::Any { checks },
        _ => Checker::All { checks },
    };
    Ok(Judged {
        checker: Some(checker),
        infeasible: false,
    })
}

fn getter(v: &Value, cache: &Cache) -> Result<Got, String> {
    let kind = v["type"].as_str().unwrap_or("?");
    if v["multi"].as_bool() == Some(true) {
        return Err(format!("unsupported getter {kind} with multi"));
    }
    match kind {
        "vm_command_line" => Ok(Got::Command(command_line(v)?)),
        "vm_file" => Ok(Got::File(local(
            v["path"].as_str().ok_or("vm_file without path")?,
        ))),
        "rule" => Ok(Got::Rule(v["rules"].clone())),
        "cloud_file" => {
            let [url] = cloud_paths(v)[..] else {
                return Err("cloud_file without path".into());
            };
            Ok(Got::Cached(cache.find(url)?.display().to_string()))
        }
        other => Err(format!("unsupported getter {other}")),
    }
}

/// The URLs a `cloud_file` getter downloads: its `path`, or each of its paths with `multi`
/// (none for any other getter).
fn cloud_paths(v: &Value) -> Vec<&str> {
    if v["type"] != "cloud_file" {
        return vec![];
    }
    match &v["path"] {
        Value::String(url) => vec![url.as_str()],
        Value::Array(urls) => urls.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// The URLs every `cloud_file` getter of the evaluator `ev` downloads (`result` and
/// `expected`, one getter or a list of them).
pub fn cloud_urls(ev: &Value) -> Vec<String> {
    let getters = |key: &str| match &ev[key] {
        Value::Array(gs) => gs.iter().collect(),
        g => vec![g],
    };
    let mut all = getters("result");
    all.extend(getters("expected"));
    all.into_iter()
        .flat_map(cloud_paths)
        .map(str::to_string)
        .collect()
}

fn metric(
    func: &str,
    result: &Value,
    expected: Option<&Value>,
    options: Option<&Value>,
    cache: &Cache,
) -> Result<Checker, String> {
    let result = getter(result, cache)?;
    let expected = expected.map(|e| getter(e, cache)).transpose()?;
    let flag = |k: &str| options.and_then(|o| o[k].as_bool()).unwrap_or(false);
    Ok(match (func, result, expected) {
        ("exact_match", Got::Command(command), Some(Got::Rule(r))) => Checker::CommandOutput {
            command,
            expected: Some(text(&r["expected"])?.trim().to_string()),
            contains: vec![],
            absent: vec![],
            pattern: None,
        },
        ("exact_match", Got::File(path), Some(Got::Rule(r))) => Checker::FileEquals {
            path,
            expected: text(&r["expected"])?,
            trim: false,
            ignore_blanks: false,
            ignore_case: false,
        },
        ("check_include_exclude", Got::Command(command), Some(Got::Rule(r))) => {
            Checker::CommandOutput {
                command,
                expected: None,
                contains: texts(&r["include"])?,
                absent: texts(&r["exclude"])?,
                pattern: None,
            }
        }
        ("check_include_exclude", Got::File(path), Some(Got::Rule(r))) => Checker::FileContains {
            path,
            contains: texts(&r["include"])?,
            absent: texts(&r["exclude"])?,
        },
        ("match_in_list", Got::Command(command), Some(Got::Rule(r))) => {
            let alts: Vec<String> = texts(&r["expected"])?
                .iter()
                .map(|s| regex::escape(s.trim()))
                .collect();
            Checker::CommandOutput {
                command,
                expected: None,
                contains: vec![],
                absent: vec![],
                pattern: Some(format!("^(?:{})$", alts.join("|"))),
            }
        }
        ("compare_text_file", Got::File(path), Some(Got::Cached(want))) => Checker::FileEquals {
            path,
            expected: std::fs::read_to_string(&want).map_err(|e| format!("{want}: {e}"))?,
            trim: false,
            ignore_blanks: flag("ignore_blanks"),
            ignore_case: flag("ignore_case"),
        },
        ("compare_table", Got::File(path), want) => table(path, want, options)?,
        (f, r, e) => {
            return Err(format!(
                "unsupported checker {f} with getters {} and {}",
                got_kind(Some(&r)),
                got_kind(e.as_ref())
            ))
        }
    })
}

/// `compare_table`'s rules: `sheet_data` (a whole sheet equals one of the expected file) and
/// `check_cell` with `value` compared by `eq`.
fn table(path: String, want: Option<Got>, options: Option<&Value>) -> Result<Checker, String> {
    let rules = options
        .and_then(|o| o["rules"].as_array())
        .filter(|r| !r.is_empty())
        .ok_or("compare_table without rules")?;
    let mut checks = Vec::new();
    for r in rules {
        match r["type"].as_str().unwrap_or("?") {
            "sheet_data" => {
                let Some(Got::Cached(expected)) = &want else {
                    return Err("compare_table sheet_data needs an expected cloud_file".into());
                };
                checks.push(Checker::SheetMatches {
                    path: path.clone(),
                    expected: expected.clone(),
                    sheet: sheet_index(&r["sheet_idx0"], 'R')?,
                    expected_sheet: sheet_index(&r["sheet_idx1"], 'E')?,
                });
            }
            "check_cell" => {
                let cell = r["coordinate"]
                    .as_str()
                    .ok_or("check_cell without coordinate")?;
                let value = &r["props"]["value"];
                let props = r["props"].as_object().map(Map::len).unwrap_or(0);
                if props != 1 || value["method"] != "eq" {
                    return Err("unsupported check_cell props (only value by eq)".into());
                }
                let addr = match sheet_index(&r["sheet_idx"], 'R')? {
                    Value::String(name) => format!("{name}!{cell}"),
                    Value::Number(n) if n.as_u64() == Some(0) => cell.to_string(),
                    _ => {
                        return Err(
                            "unsupported check_cell sheet_idx (a later sheet by number)".into()
                        )
                    }
                };
                let mut cells = Map::new();
                cells.insert(addr, serde_json::json!({"value": value["ref"]}));
                checks.push(Checker::SheetCells {
                    path: path.clone(),
                    cells,
                });
            }
            other => return Err(format!("unsupported compare_table rule {other}")),
        }
    }
    Ok(if checks.len() == 1 {
        checks.remove(0)
    } else {
        Checker::All { checks }
    })
}

/// OSWorld's sheet index: a number, `RI0` / `EI0` (by position in the result / expected file)
/// or `RNname` / `ENname` (by name); `side` is the file the index must point into.
fn sheet_index(v: &Value, side: char) -> Result<Value, String> {
    if let Some(n) = v.as_u64() {
        return Ok(Value::from(n));
    }
    let s = v.as_str().ok_or("a rule without a sheet index")?;
    let mut c = s.chars();
    match (c.next(), c.next(), c.as_str()) {
        (Some(f), Some('I'), n) if f == side => n
            .parse::<u64>()
            .map(Value::from)
            .map_err(|_| format!("bad sheet index {s}")),
        (Some(f), Some('N'), name) if f == side => Ok(Value::from(name)),
        _ => Err(format!("unsupported sheet index {s}")),
    }
}

fn got_kind(g: Option<&Got>) -> &'static str {
    match g {
        Some(Got::Command(_)) => "vm_command_line",
        Some(Got::File(_)) => "vm_file",
        Some(Got::Rule(_)) => "rule",
        Some(Got::Cached(_)) => "cloud_file",
        None => "none",
    }
}

fn text(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(_) | Value::Bool(_) => Ok(v.to_string()),
        _ => Err(format!("expected a string, found {v}")),
    }
}

fn texts(v: &Value) -> Result<Vec<String>, String> {
    match v {
        Value::Null => Ok(vec![]),
        Value::Array(a) => a.iter().map(text).collect(),
        other => Ok(vec![text(other)?]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn conv(ev: Value) -> Result<Value, String> {
        convert(&ev, &Cache::default()).map(|j| serde_json::to_value(j.checker).unwrap())
    }

    #[test]
    fn funcs_map_onto_checkers() {
        let c = conv(json!({"func": "check_include_exclude",
            "result": {"type": "vm_command_line", "command": "which spotify"},
            "expected": {"type": "rule", "rules": {"include": ["spotify"], "exclude": ["not found"]}}}))
        .unwrap();
        assert_eq!(c["checker"], "command_output");
        assert_eq!(c["contains"], json!(["spotify"]));
        assert_eq!(c["absent"], json!(["not found"]));

        let c = conv(
            json!({"func": ["exact_match", "match_in_list"], "conj": "or",
            "result": [{"type": "vm_file", "path": "/home/user/a.txt", "dest": "a.txt"},
                       {"type": "vm_command_line", "command": ["cat", "/home/user/b"]}],
            "expected": [{"type": "rule", "rules": {"expected": "x"}},
                         {"type": "rule", "rules": {"expected": ["a.b", "c"]}}]}),
        )
        .unwrap();
        assert_eq!(c["checker"], "any");
        assert_eq!(c["checks"][0]["path"], "{home}/a.txt");
        assert_eq!(c["checks"][1]["command"], "cat {home}/b");
        assert_eq!(c["checks"][1]["pattern"], r"^(?:a\.b|c)$");

        let c = conv(json!({"func": "compare_table",
            "result": {"type": "vm_file", "path": "/home/user/s.xlsx", "dest": "s.xlsx"},
            "options": {"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": "B2",
                                   "props": {"value": {"method": "eq", "ref": 5}}}]}}))
        .unwrap();
        assert_eq!(c["checker"], "sheet_cells");
        assert_eq!(c["cells"]["B2"]["value"], 5);

        let inf = convert(&json!({"func": "infeasible"}), &Cache::default()).unwrap();
        assert!(inf.infeasible && inf.checker.is_none());
    }

    #[test]
    fn what_does_not_map_is_named() {
        let why = conv(json!({"func": "is_extension_installed",
            "result": {"type": "vm_command_line", "command": "code --list-extensions"},
            "expected": {"type": "rule", "rules": {"type": "contain", "expected": "x"}}}))
        .unwrap_err();
        assert_eq!(why, "unsupported checker is_extension_installed");
        let why = conv(json!({"func": "exact_match",
            "result": {"type": "vlc_playing_info", "dest": "x"},
            "expected": {"type": "rule", "rules": {"expected": "1"}}}))
        .unwrap_err();
        assert_eq!(why, "unsupported getter vlc_playing_info");
        let why = conv(json!({"func": "compare_table",
            "result": {"type": "vm_file", "path": "/home/user/s.xlsx"},
            "expected": {"type": "cloud_file", "path": "https://x.org/gold.xlsx"},
            "options": {"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]}}))
        .unwrap_err();
        assert!(why.contains("--osworld-cache"), "{why}");
        assert_eq!(
            sheet_index(&json!("RNSheet2"), 'R').unwrap(),
            json!("Sheet2")
        );
        assert_eq!(sheet_index(&json!("EI1"), 'E').unwrap(), json!(1));
        assert!(sheet_index(&json!("EI1"), 'R').is_err());
    }
}
