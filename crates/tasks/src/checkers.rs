//! Judging a task: each [`Checker`] looks at the environment the agent left (files in the
//! sandbox's home, a command's output, the local server's record of requests, documents read
//! by `tasks/lib/read_doc.py`) and says pass or fail with a reason. The agent's own claims are
//! never consulted, so an agent that does nothing fails every feasible task.

use std::time::Duration;

use serde_json::Value;

use super::setup::{run_with_deadline, tail, Prepared};
use super::task::Checker;

/// How long a command checker or the document reader may run.
const CHECK_TIMEOUT: Duration = Duration::from_secs(30);

/// A checker's verdict.
pub type Verdict = Result<String, String>;

/// Runs `checker` against the prepared sandbox: `Ok(why it passed)` or `Err(why it failed)`.
pub fn evaluate(p: &Prepared, checker: &Checker) -> Verdict {
    match checker {
        Checker::All { checks } => {
            let mut ok = Vec::new();
            for c in checks {
                ok.push(evaluate(p, c)?);
            }
            Ok(ok.join("; "))
        }
        Checker::Any { checks } => {
            let mut failed = Vec::new();
            for c in checks {
                match evaluate(p, c) {
                    Ok(why) => return Ok(why),
                    Err(why) => failed.push(why),
                }
            }
            Err(format!("none holds: {}", failed.join("; ")))
        }
        Checker::Not { check } => match evaluate(p, check) {
            Ok(why) => Err(format!("it should not hold, but {why}")),
            Err(why) => Ok(format!("as required, {why}")),
        },
        Checker::FileEquals {
            path,
            expected,
            trim,
            ignore_blanks,
            ignore_case,
        } => file_equals(p, path, expected, *trim, *ignore_blanks, *ignore_case),
        Checker::FileContains {
            path,
            contains,
            absent,
        } => {
            let text = read(p, path)?;
            contains_all(&text, contains, absent).map(|()| format!("{path} has the expected text"))
        }
        Checker::FileRegex { path, pattern } => {
            let text = read(p, path)?;
            let re = regex::Regex::new(pattern).map_err(|e| format!("bad pattern: {e}"))?;
            if re.is_match(&text) {
                Ok(format!("{path} matches /{pattern}/"))
            } else {
                Err(format!(
                    "{path} ({:?}) does not match /{pattern}/",
                    short(&text)
                ))
            }
        }
        Checker::DirListing {
            path,
            contains,
            absent,
            exact,
        } => dir_listing(p, path, contains, absent, *exact),
        Checker::ConfigKey {
            path,
            section,
            key,
            expected,
        } => {
            let text = read(p, path)?;
            match ini_value(&text, section.as_deref(), key) {
                Some(v) if v == *expected => Ok(format!("{key} = {v}")),
                Some(v) => Err(format!("{key} is {v:?}, expected {expected:?}")),
                None => Err(format!("{path} has no key {key}")),
            }
        }
        Checker::CommandOutput {
            command,
            expected,
            contains,
            absent,
            pattern,
        } => command_output(
            p,
            command,
            expected.as_deref(),
            contains,
            absent,
            pattern.as_deref(),
        ),
        Checker::ServerRequest {
            method,
            path,
            fields,
            absent,
            body_contains,
        } => server_request(p, method, path, fields, absent, body_contains.as_deref()),
        Checker::SheetCells { path, cells } => sheet_cells(p, path, cells),
        Checker::DocParagraphs {
            path,
            paragraphs,
            absent,
        } => doc_paragraphs(p, path, paragraphs, absent),
        Checker::SheetMatches {
            path,
            expected,
            sheet,
            expected_sheet,
        } => sheet_matches(p, path, expected, sheet, expected_sheet),
        Checker::SlideTitles {
            path,
            titles,
            exact,
        } => slide_titles(p, path, titles, *exact),
    }
}

fn read(p: &Prepared, path: &str) -> Result<String, String> {
    let f = p.path(path);
    std::fs::read(&f)
        .map(|b| String::from_utf8_lossy(&b).to_string())
        .map_err(|e| format!("{path}: {e}"))
}

pub(crate) fn short(s: &str) -> String {
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}

fn contains_all(text: &str, contains: &[String], absent: &[String]) -> Result<(), String> {
    if let Some(m) = contains.iter().find(|c| !text.contains(c.as_str())) {
        return Err(format!("{m:?} is missing from {:?}", short(text)));
    }
    if let Some(a) = absent.iter().find(|a| text.contains(a.as_str())) {
        return Err(format!("{a:?} should be gone from {:?}", short(text)));
    }
    Ok(())
}

fn dir_listing(
    p: &Prepared,
    path: &str,
    contains: &[String],
    absent: &[String],
    exact: bool,
) -> Verdict {
    let dir = p.path(path);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{path}: {e}"))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    if let Some(m) = contains.iter().find(|c| !names.contains(c)) {
        return Err(format!("{path} has no {m:?} (it has {names:?})"));
    }
    if let Some(a) = absent.iter().find(|a| names.contains(a)) {
        return Err(format!("{path} still has {a:?}"));
    }
    if exact && names.len() != contains.len() {
        return Err(format!(
            "{path} has {names:?}, expected exactly {contains:?}"
        ));
    }
    Ok(format!("{path} lists {names:?}"))
}

/// The value of `key` in `[section]` (or anywhere when no section is given) of an ini file.
fn ini_value(text: &str, section: Option<&str>, key: &str) -> Option<String> {
    let mut current = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = s.to_string();
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() == key && section.is_none_or(|s| s == current) {
            return Some(v.trim().to_string());
        }
    }
    None
}

fn file_equals(
    p: &Prepared,
    path: &str,
    expected: &str,
    trim: bool,
    ignore_blanks: bool,
    ignore_case: bool,
) -> Verdict {
    let text = read(p, path)?;
    let norm = |s: &str| {
        let s = if ignore_blanks {
            s.split_whitespace().collect::<Vec<_>>().join(" ")
        } else if trim {
            s.trim().to_string()
        } else {
            s.to_string()
        };
        if ignore_case {
            s.to_lowercase()
        } else {
            s
        }
    };
    let (a, b) = (norm(&text), norm(expected));
    if a == b {
        Ok(format!("{path} has the expected text"))
    } else {
        Err(format!(
            "{path} is {:?}, expected {:?}",
            short(&a),
            short(&b)
        ))
    }
}

fn command_output(
    p: &Prepared,
    command: &str,
    expected: Option<&str>,
    contains: &[String],
    absent: &[String],
    pattern: Option<&str>,
) -> Verdict {
    let out = command_text(p, command)?;
    if let Some(e) = expected.filter(|e| out != p.expand(e)) {
        return Err(format!(
            "`{command}` printed {:?}, expected {e:?}",
            short(&out)
        ));
    }
    contains_all(&out, contains, absent).map_err(|e| format!("`{command}`: {e}"))?;
    if let Some(pat) = pattern {
        let re = regex::Regex::new(pat).map_err(|e| format!("bad pattern: {e}"))?;
        if !re.is_match(&out) {
            return Err(format!(
                "`{command}` printed {:?}, not matching /{pat}/",
                short(&out)
            ));
        }
    }
    Ok(format!("`{command}` printed {:?}", short(&out)))
}

/// What a shell line run in the sandbox prints on stdout, trimmed.
fn command_text(p: &Prepared, command: &str) -> Result<String, String> {
    let out = run_with_deadline(p.shell(&p.expand(command)), None, CHECK_TIMEOUT)?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn server_request(
    p: &Prepared,
    method: &str,
    path: &str,
    fields: &serde_json::Map<String, Value>,
    absent: &[String],
    body_contains: Option<&str>,
) -> Verdict {
    let srv = p
        .server
        .as_ref()
        .ok_or("the task started no local server")?;
    let reqs = srv.requests();
    let same_route: Vec<_> = reqs
        .iter()
        .filter(|r| r.method.eq_ignore_ascii_case(method) && r.path == path)
        .collect();
    if same_route.is_empty() {
        let seen: Vec<String> = reqs
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect();
        return Err(format!(
            "no {method} {path} request (the server saw {seen:?})"
        ));
    }
    // The latest request on the route is the one judged: a later submit overrides an earlier.
    let r = same_route[same_route.len() - 1];
    if let Some(a) = absent.iter().find(|a| r.fields.contains_key(a.as_str())) {
        return Err(format!(
            "{method} {path} sent the field {a} (expected it absent)"
        ));
    }
    let wrong = fields.iter().find_map(|(k, want)| {
        let want = want
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| want.to_string());
        match r.fields.get(k) {
            Some(got) if *got == want => None,
            Some(got) => Some(format!("field {k} was {got:?}, expected {want:?}")),
            None => Some(format!("field {k} was not sent")),
        }
    });
    if let Some(w) = wrong {
        return Err(format!("{method} {path} was sent, but {w}"));
    }
    if let Some(b) = body_contains.filter(|b| !r.body.contains(b)) {
        return Err(format!(
            "{method} {path} was sent, but its body lacks {b:?}"
        ));
    }
    Ok(format!("{method} {path} with {:?}", r.fields))
}

/// Reads a document with `tasks/lib/read_doc.py` (openpyxl, python-docx, python-pptx, odfpy).
fn read_doc(p: &Prepared, path: &str) -> Result<Value, String> {
    read_doc_file(p, &p.path(path), path)
}

/// Reads the document `file` (named `path` in messages) with `read_doc.py`.
fn read_doc_file(p: &Prepared, file: &std::path::Path, path: &str) -> Result<Value, String> {
    if !file.is_file() {
        return Err(format!("{path} does not exist"));
    }
    let python = std::env::var("UIDRIVER_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut cmd = std::process::Command::new(python);
    cmd.arg(p.tasks_dir.join("lib/read_doc.py")).arg(file);
    let out = run_with_deadline(cmd, None, CHECK_TIMEOUT)?;
    if !out.status.success() {
        return Err(format!(
            "reading {path} failed: {}",
            tail(&String::from_utf8_lossy(&out.stderr), 300)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("reading {path}: {e}"))
}

fn same_value(got: &Value, want: &Value) -> bool {
    match (as_number(got), as_number(want)) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9 * (1.0 + b.abs()),
        _ => got.as_str().map(str::trim) == want.as_str().map(str::trim) || got == want,
    }
}

fn as_number(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// Formulas compare without spaces, case and the leading `=` / `of:=` spelling.
fn same_formula(got: &str, want: &str) -> bool {
    let norm = |s: &str| {
        s.trim_start_matches("of:")
            .trim_start_matches('=')
            .replace([' ', '$'], "")
            .to_ascii_uppercase()
    };
    norm(got) == norm(want)
}

fn sheet_cells(p: &Prepared, path: &str, cells: &serde_json::Map<String, Value>) -> Verdict {
    let doc = read_doc(p, path)?;
    let sheets = doc["sheets"]
        .as_array()
        .ok_or(format!("{path} has no sheets"))?;
    for (addr, want) in cells {
        let (sheet, cell) = match addr.split_once('!') {
            Some((s, c)) => (sheets.iter().find(|x| x["name"] == s.trim_matches('\'')), c),
            None => (sheets.first(), addr.as_str()),
        };
        let sheet = sheet.ok_or(format!("{path} has no sheet for {addr}"))?;
        let got = &sheet["cells"][cell.to_ascii_uppercase()];
        if let Some(v) = want.get("value") {
            if !same_value(&got["value"], v) {
                return Err(format!("{addr} is {}, expected {v}", got["value"]));
            }
        }
        if let Some(f) = want.get("formula").and_then(Value::as_str) {
            let gf = got["formula"].as_str().unwrap_or("");
            if !same_formula(gf, f) {
                return Err(format!("{addr} has formula {gf:?}, expected {f:?}"));
            }
        }
    }
    Ok(format!("{} cells as expected in {path}", cells.len()))
}

fn doc_paragraphs(p: &Prepared, path: &str, wanted: &[Value], absent: &[String]) -> Verdict {
    let doc = read_doc(p, path)?;
    let paras = doc["paragraphs"]
        .as_array()
        .ok_or(format!("{path} has no paragraphs"))?;
    let text = |x: &Value| x["text"].as_str().unwrap_or("").to_string();
    for w in wanted {
        let found = paras
            .iter()
            .find(|x| match (w["text"].as_str(), w["contains"].as_str()) {
                (Some(t), _) => text(x).trim() == t,
                (None, Some(c)) => text(x).contains(c),
                _ => false,
            });
        let Some(found) = found else {
            let all: Vec<String> = paras.iter().map(text).filter(|t| !t.is_empty()).collect();
            return Err(format!(
                "no paragraph like {w} (paragraphs: {:?})",
                short(&all.join(" | "))
            ));
        };
        check_runs(w, found).map_err(|e| format!("{e} (in {:?})", short(&text(found))))?;
    }
    if let Some(a) = absent
        .iter()
        .find(|a| paras.iter().any(|x| text(x).contains(a.as_str())))
    {
        return Err(format!("{a:?} is still in {path}"));
    }
    Ok(format!("{} paragraphs as expected in {path}", wanted.len()))
}

/// Run formatting of a wanted paragraph: for `text`, every run; for `contains`, the runs that
/// overlap the contained words (the rest of the paragraph may look as it likes).
fn check_runs(want: &Value, para: &Value) -> Result<(), String> {
    let runs = para["runs"].as_array().cloned().unwrap_or_default();
    let full: String = runs
        .iter()
        .map(|r| r["text"].as_str().unwrap_or(""))
        .collect();
    let span = match want["contains"].as_str() {
        Some(c) => full
            .find(c)
            .map(|s| (s, s + c.len()))
            .unwrap_or((0, full.len())),
        None => (0, full.len()),
    };
    let mut at = 0;
    for r in &runs {
        let t = r["text"].as_str().unwrap_or("");
        let (start, end) = (at, at + t.len());
        at = end;
        if t.trim().is_empty() || end <= span.0 || start >= span.1 {
            continue;
        }
        for attr in ["bold", "italic", "underline"] {
            let Some(wanted) = want[attr].as_bool() else {
                continue;
            };
            if r[attr].as_bool().unwrap_or(false) != wanted {
                return Err(format!(
                    "run {t:?} has {attr} {}, expected {wanted}",
                    r[attr]
                ));
            }
        }
    }
    Ok(())
}

/// The sheet `which` (a name, or an index from 0) of a document read by `read_doc`.
fn sheet_of<'a>(doc: &'a Value, which: &Value, path: &str) -> Result<&'a Value, String> {
    let sheets = doc["sheets"]
        .as_array()
        .ok_or(format!("{path} has no sheets"))?;
    let found = match which {
        Value::String(name) => sheets.iter().find(|s| s["name"] == name.as_str()),
        v => v.as_u64().and_then(|i| sheets.get(i as usize)),
    };
    found.ok_or(format!("{path} has no sheet {which}"))
}

fn sheet_matches(
    p: &Prepared,
    path: &str,
    expected: &str,
    sheet: &Value,
    expected_sheet: &Value,
) -> Verdict {
    let want_file = p.tasks_dir.join("files").join(expected);
    let got_doc = read_doc(p, path)?;
    let want_doc = read_doc_file(p, &want_file, expected)?;
    let got = &sheet_of(&got_doc, sheet, path)?["cells"];
    let want = &sheet_of(&want_doc, expected_sheet, expected)?["cells"];
    let empty = serde_json::Map::new();
    let (got, want) = (
        got.as_object().unwrap_or(&empty),
        want.as_object().unwrap_or(&empty),
    );
    let mut addrs: Vec<&String> = got.keys().chain(want.keys()).collect();
    addrs.sort();
    addrs.dedup();
    for a in &addrs {
        let (g, w) = (
            &got.get(*a).unwrap_or(&Value::Null)["value"],
            &want.get(*a).unwrap_or(&Value::Null)["value"],
        );
        if !same_value(g, w) {
            return Err(format!(
                "{path} {a} is {g}, expected {w} (as in {expected})"
            ));
        }
    }
    Ok(format!(
        "{} cells of {path} equal {expected}'s",
        addrs.len()
    ))
}

fn slide_titles(p: &Prepared, path: &str, titles: &[String], exact: bool) -> Verdict {
    let doc = read_doc(p, path)?;
    let got: Vec<String> = doc["slides"]
        .as_array()
        .ok_or(format!("{path} has no slides"))?
        .iter()
        .map(|s| s["title"].as_str().unwrap_or("").trim().to_string())
        .collect();
    let ok = if exact {
        got == titles
    } else {
        got.len() >= titles.len() && got[..titles.len()] == *titles
    };
    if ok {
        Ok(format!("slide titles {got:?}"))
    } else {
        Err(format!("slide titles are {got:?}, expected {titles:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ini_keys_are_found_by_section() {
        let t = "[a]\nx=1\n[Configuration]\nFontName = Mono 12\nx=2\n";
        assert_eq!(
            ini_value(t, Some("Configuration"), "x").as_deref(),
            Some("2")
        );
        assert_eq!(ini_value(t, None, "x").as_deref(), Some("1"));
        assert_eq!(ini_value(t, None, "FontName").as_deref(), Some("Mono 12"));
        assert_eq!(ini_value(t, Some("a"), "FontName"), None);
    }

    #[test]
    fn formulas_and_values_compare_loosely() {
        assert!(same_formula(
            "of:=SUM([.A1:.A3])".replace(['[', ']', '.'], "").as_str(),
            "=sum(A1:A3)"
        ));
        assert!(same_formula("=A2*2", "= a2 * 2"));
        assert!(!same_formula("=A2*3", "=A2*2"));
        assert!(same_value(&serde_json::json!(3.0), &serde_json::json!("3")));
        assert!(!same_value(
            &serde_json::json!("x"),
            &serde_json::json!("y")
        ));
    }
}
