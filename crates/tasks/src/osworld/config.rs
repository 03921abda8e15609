//! OSWorld's setup steps (`config`, and the evaluator's `postconfig`) as the suite's
//! [`SetupStep`]s: `launch`, `open`, `execute` and `command`, `sleep`, and `download` from the
//! local cache. Any other type (activate_window, chrome_open_tabs, googledrive, login, …) makes
//! the task unsupported, with the type named in the reason.

use serde_json::Value;

use super::cache::Cache;
use super::local;
use crate::task::SetupStep;

/// Programs OSWorld starts with `launch` that show no window, so nothing is awaited.
const NO_WINDOW: &[&str] = &["socat", "python", "python3", "sh", "bash", "sleep", "nohup"];
/// The LibreOffice profile every office task gets (no tip of the day, no first-start infobar).
const OFFICE_PROFILE: (&str, &str) = (
    "~/.config/libreoffice/4/user/registrymodifications.xcu",
    "libreoffice/registrymodifications.xcu",
);

/// The steps for OSWorld's `steps`, or why one of them cannot run here.
pub fn steps(steps: &[Value], cache: &Cache) -> Result<Vec<SetupStep>, String> {
    let mut out = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let kind = s["type"].as_str().unwrap_or("?");
        let params = &s["parameters"];
        let step = match kind {
            "launch" => launch(&command_line(params)?),
            "open" => {
                let path = params["path"].as_str().ok_or("open without a path")?;
                launch(&format!("{} {}", opener(path), quote(&local(path))))
            }
            "execute" | "command" => SetupStep::Command {
                command: command_line(params)?,
            },
            "sleep" => SetupStep::Sleep {
                seconds: params["seconds"].as_f64().ok_or("sleep without seconds")?,
            },
            "download" => {
                for (url, path) in download_files(params)? {
                    out.push(SetupStep::File {
                        path: local(path),
                        content: None,
                        from: Some(cache.find(url)?.display().to_string()),
                    });
                }
                continue;
            }
            other => return Err(format!("unsupported setup type {other} (step {})", i + 1)),
        };
        if is_office(&step) && !out.iter().any(is_profile) {
            out.push(SetupStep::File {
                path: OFFICE_PROFILE.0.into(),
                content: None,
                from: Some(OFFICE_PROFILE.1.into()),
            });
        }
        out.push(step);
    }
    Ok(out)
}

/// The `(url, path)` of each file a `download` step's `parameters` name.
fn download_files(params: &Value) -> Result<Vec<(&str, &str)>, String> {
    let files = params["files"].as_array().ok_or("download without files")?;
    files
        .iter()
        .map(|f| {
            let url = f["url"].as_str().ok_or("a download without url")?;
            let path = f["path"].as_str().ok_or("a download without path")?;
            Ok((url, path))
        })
        .collect()
}

/// The URLs the `download` steps among `steps` fetch (malformed ones left out: reading the
/// task reports them).
pub fn download_urls(steps: &[Value]) -> Vec<String> {
    steps
        .iter()
        .filter(|s| s["type"] == "download")
        .filter_map(|s| download_files(&s["parameters"]).ok())
        .flatten()
        .map(|(url, _)| url.to_string())
        .collect()
}

/// A `launch` of a shell line: OSWorld's `google-chrome` is this sandbox's `chromium`; a
/// window is awaited unless the program is a known background helper.
fn launch(line: &str) -> SetupStep {
    let mut words = line.splitn(2, ' ');
    let program = words.next().unwrap_or("");
    let rest = words.next().map(|r| format!(" {r}")).unwrap_or_default();
    let program = match program.rsplit('/').next().unwrap_or(program) {
        "google-chrome" | "google-chrome-stable" | "chrome" => "chromium",
        _ => program,
    };
    let name = program
        .rsplit('/')
        .next()
        .unwrap_or(program)
        .trim_matches('\'');
    SetupStep::Launch {
        command: format!("{program}{rest}"),
        wait: !NO_WINDOW.contains(&name),
    }
}

/// The app `open` starts for a path, by its extension (OSWorld opens with the desktop's
/// default; this sandbox has no default-application database worth trusting).
fn opener(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("xlsx" | "xls" | "ods" | "csv") => "soffice --calc",
        Some("docx" | "doc" | "odt" | "rtf") => "soffice --writer",
        Some("pptx" | "ppt" | "odp") => "soffice --impress",
        Some("txt" | "md" | "py" | "json" | "sh" | "log" | "c" | "h" | "js" | "css" | "xml") => {
            "mousepad"
        }
        Some("html" | "htm") => "chromium",
        Some("png" | "jpg" | "jpeg" | "xcf" | "gif" | "bmp") => "gimp",
        _ if path.ends_with('/') => "thunar",
        _ => "xdg-open",
    }
}

fn is_office(step: &SetupStep) -> bool {
    matches!(step, SetupStep::Launch { command, .. }
        if command.starts_with("soffice") || command.starts_with("libreoffice"))
}

fn is_profile(step: &SetupStep) -> bool {
    matches!(step, SetupStep::File { path, .. } if path == OFFICE_PROFILE.0)
}

/// OSWorld's `command` (a string, or an argument list) as one shell line, with `/home/user`
/// as the sandbox's home. Commands that drive the screen through pyautogui, or need root, cannot
/// run here.
pub fn command_line(params: &Value) -> Result<String, String> {
    let line = match &params["command"] {
        Value::String(s) => s.clone(),
        Value::Array(args) => args
            .iter()
            .map(|a| a.as_str().map(quote).ok_or("a non-string argument"))
            .collect::<Result<Vec<_>, _>>()?
            .join(" "),
        _ => return Err("a step without a command".into()),
    };
    if line.contains("pyautogui") {
        return Err("a step drives the screen with pyautogui (coordinates and keystrokes)".into());
    }
    if line.split_whitespace().any(|w| w == "sudo") {
        return Err("a step needs root (sudo)".into());
    }
    Ok(local(&line))
}

/// `s` single-quoted for `sh` unless it is plain (letters, digits, `-_./=:,+@%{}~`).
fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%{}~".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_map_and_the_rest_are_named_in_the_reason() {
        let cfg = json!([
            {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
            {"type": "launch", "parameters": {"command": "socat tcp-listen:9222,fork tcp:localhost:1337", "shell": true}},
            {"type": "execute", "parameters": {"command": ["python3", "-c", "print('hi')"]}},
            {"type": "open", "parameters": {"path": "/home/user/Desktop/My Sheet.xlsx"}},
            {"type": "sleep", "parameters": {"seconds": 0.5}}
        ]);
        let s = steps(cfg.as_array().unwrap(), &Cache::default()).unwrap();
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j[0]["command"], "chromium --remote-debugging-port=1337");
        assert_eq!(j[0]["wait"], true);
        assert_eq!(j[1]["wait"], false);
        assert_eq!(j[2]["command"], r#"python3 -c 'print('\''hi'\'')'"#);
        assert_eq!(j[3]["type"], "file", "the office profile comes before Calc");
        assert_eq!(
            j[4]["command"],
            "soffice --calc '{home}/Desktop/My Sheet.xlsx'"
        );
        assert_eq!(j[5]["seconds"], 0.5);

        let click = json!([{"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; pyautogui.click(960, 540)"]}}]);
        assert!(steps(click.as_array().unwrap(), &Cache::default())
            .unwrap_err()
            .contains("pyautogui"));
        let tabs = json!([{"type": "chrome_open_tabs", "parameters": {"urls_to_open": []}}]);
        let why = steps(tabs.as_array().unwrap(), &Cache::default()).unwrap_err();
        assert!(
            why.contains("unsupported setup type chrome_open_tabs"),
            "{why}"
        );
        let dl = json!([{"type": "download", "parameters": {"files": [{"url": "https://x.org/a.xlsx", "path": "/home/user/a.xlsx"}]}}]);
        assert!(steps(dl.as_array().unwrap(), &Cache::default())
            .unwrap_err()
            .contains("--osworld-cache"));
    }
}
