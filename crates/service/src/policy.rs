//! A policy: what a caller may do through uidriver, written by the user in a TOML file and
//! given with `--policy FILE`. It lists tools, applications and browser origins that are
//! allowed or denied, switches raw input and JavaScript evaluation, sets a headless default
//! for `act_ui`, and names secrets that no result may show. This file parses and validates a
//! policy and answers "is this allowed?" as pure functions; where the service asks, before
//! anything reaches a backend and on each result, is `enforce.rs`.
//!
//! A file that names a key this version does not know is an error (naming the key), never a
//! rule silently ignored: a typo in a deny list must not leave a tool open.
//!
//! ```toml
//! [tools]
//! deny = ["desktop_input", "evaluate_browser"]   # or allow = [...]: only these
//! [apps]
//! deny = ["gnome-terminal", "keepassxc"]         # executable or application names
//! [browser]
//! allow = ["https://example.com", "http://127.0.0.1:*", "https://*.example.org"]
//! evaluate = false
//! [input]
//! raw = false        # no desktop_input, and act_ui only headless (semantic steps)
//! headless = true    # act_ui is headless unless the call says headless: false
//! [secrets]
//! values = ["hunter2"]
//! env = ["API_TOKEN"]   # the value of $API_TOKEN where the policy is loaded
//! [trace]
//! record = false     # `uidriver mcp` under this policy records no trace of its sessions
//! [files]
//! roots = ["/home/me/work"]   # files an agent names must lie here (default: the working directory)
//! unrestricted = false        # true: any file (as --allow-unrestricted-file-access); not with roots
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use uidriver_core::{Error, ErrorCode, RootInfo, RootKind};

use crate::files::{resolve, FileAccess};
use crate::origin::{parse_pattern, pattern_matches, Origin};
use crate::ToolName;

/// A loaded policy: its rules, where they came from (every denial names the file), and the
/// secret values it resolved. It travels to the daemon as JSON with each call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    /// The file it was read from, as given.
    pub source: String,
    rules: Rules,
    /// `[secrets] values` plus the values of `[secrets] env`, resolved at load.
    secrets: Vec<String>,
}

/// The file's shape. Every table and key is optional; unknown ones are errors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rules {
    #[serde(default)]
    tools: Lists,
    #[serde(default)]
    apps: Lists,
    #[serde(default)]
    browser: Browser,
    #[serde(default)]
    input: Input,
    #[serde(default)]
    secrets: Secrets,
    #[serde(default)]
    trace: Trace,
    #[serde(default)]
    files: Files,
}

/// `[files]`: where the files an agent names may be (`files.rs`): `roots` confine them (and
/// narrow any caller's roots), `unrestricted` lifts the default confinement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Files {
    #[serde(default)]
    roots: Option<Vec<String>>,
    #[serde(default)]
    unrestricted: Option<bool>,
}

/// `[trace]`: whether MCP sessions under this policy are recorded (`transports/src/trace/`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Trace {
    #[serde(default)]
    record: Option<bool>,
}

/// `allow` (when given, only these) and `deny` (never these; deny wins over allow).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Lists {
    #[serde(default)]
    allow: Option<Vec<String>>,
    #[serde(default)]
    deny: Vec<String>,
}

/// `[browser]`: origins of pages, and script evaluation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Browser {
    #[serde(default)]
    allow: Option<Vec<String>>,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    evaluate: Option<bool>,
}

/// `[input]`: raw input and the headless default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    #[serde(default)]
    raw: Option<bool>,
    #[serde(default)]
    headless: Option<bool>,
}

/// `[secrets]`: literal values, and names of environment variables holding values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Secrets {
    /// Never sent to the daemon in this form: [`Policy::load`] moves them into
    /// `Policy::secrets` and clears this list.
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    env: Vec<String>,
}

/// `invalid_args` for a policy file that cannot be used, naming the file.
fn bad(source: &str, why: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::InvalidArgs, format!("policy {source}: {why}"))
        .with_hint("Fix the policy file; `uidriver policy check FILE` shows what it allows.")
}

impl Policy {
    /// Reads and validates the policy file at `path`.
    pub fn load(path: &Path) -> Result<Policy, Error> {
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| bad(&source, e))?;
        Policy::parse(&text, &source, |k| std::env::var(k).ok())
    }

    /// Parses policy text; `source` names it in messages, `env` resolves `[secrets] env`.
    pub fn parse(
        text: &str,
        source: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Policy, Error> {
        let mut rules: Rules = toml::from_str(text).map_err(|e| {
            // toml's message names the key; its span gives the line (its Display is a
            // multi-line picture that does not fit one error message).
            // The key of that line is named, never its value (it may be a secret).
            let why = unquote(e.message().trim_end());
            let at = e.span().map(|s| {
                let before = &text[..s.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let start = before.rfind('\n').map_or(0, |i| i + 1);
                let row = text[start..].lines().next().unwrap_or("");
                match row.split_once('=').map(|(k, _)| k.trim()) {
                    Some(key) if !why.contains(&format!("`{key}`")) => {
                        format!("line {line}, key `{key}`: ")
                    }
                    _ => format!("line {line}: "),
                }
            });
            bad(source, format!("{}{why}", at.unwrap_or_default()))
        })?;
        validate(&rules).map_err(|why| bad(source, why))?;
        let mut secrets = std::mem::take(&mut rules.secrets.values);
        for name in &rules.secrets.env {
            match env(name) {
                Some(v) if !v.is_empty() => secrets.push(v),
                _ => {
                    return Err(bad(
                        source,
                        format!("[secrets] env names ${name}, which is not set (or empty)"),
                    ))
                }
            }
        }
        if secrets.iter().any(String::is_empty) {
            return Err(bad(
                source,
                "[secrets] values: an empty secret would hide nothing",
            ));
        }
        Ok(Policy {
            source: source.to_string(),
            rules,
            secrets,
        })
    }

    /// Runs the file checks again on a policy that arrived as JSON (over the daemon socket).
    pub fn revalidate(&self) -> Result<(), Error> {
        validate(&self.rules).map_err(|why| bad(&self.source, why))?;
        if self.secrets.iter().any(String::is_empty) {
            return Err(bad(
                &self.source,
                "[secrets]: an empty secret would hide nothing",
            ));
        }
        Ok(())
    }

    /// `policy_denied` naming `rule` and this policy's file.
    fn deny(&self, rule: String) -> Error {
        Error::new(
            ErrorCode::PolicyDenied,
            format!("{rule} (policy {}); nothing was sent", self.source),
        )
        .with_details(serde_json::json!({ "rule": rule, "policy": self.source }))
    }

    /// Whether the tool may be called.
    pub fn check_tool(&self, tool: &str) -> Result<(), Error> {
        let t = &self.rules.tools;
        if t.deny.iter().any(|d| d == tool) {
            return Err(self.deny(format!("[tools] deny contains {tool:?}")));
        }
        match &t.allow {
            Some(a) if !a.iter().any(|x| x == tool) => {
                Err(self.deny(format!("[tools] allow does not contain {tool:?}")))
            }
            _ => Ok(()),
        }
    }

    /// Whether an application known by `names` (its app name, executable names) may be
    /// observed or acted on. Names compare case-insensitively.
    pub fn check_app(&self, names: &[String]) -> Result<(), Error> {
        let a = &self.rules.apps;
        let is = |n: &String, x: &String| n.eq_ignore_ascii_case(x);
        for d in &a.deny {
            if names.iter().any(|n| is(n, d)) {
                return Err(self.deny(format!("[apps] deny contains {d:?}")));
            }
        }
        match &a.allow {
            Some(allow) if !names.iter().any(|n| allow.iter().any(|x| is(n, x))) => {
                Err(self.deny(format!(
                    "[apps] allow contains none of the names of this application ({})",
                    names_list(names)
                )))
            }
            _ => Ok(()),
        }
    }

    /// Whether a page at `url` may be loaded, observed or acted on, by its origin.
    /// `about:blank` (a new page, showing nothing) is always allowed.
    pub fn check_url(&self, url: &str) -> Result<(), Error> {
        let b = &self.rules.browser;
        if b.deny.is_empty() && b.allow.is_none() {
            return Ok(());
        }
        let origin = Origin::of(url);
        if matches!(&origin, Some(Origin::Opaque(s)) if s == "about")
            && url.eq_ignore_ascii_case("about:blank")
        {
            return Ok(());
        }
        let shown = origin
            .as_ref()
            .map(Origin::to_string)
            .unwrap_or_else(|| "a URL without an origin".into());
        let hit = |p: &String| origin.as_ref().is_some_and(|o| pattern_matches(p, o));
        if let Some(d) = b.deny.iter().find(|p| hit(p)) {
            return Err(self.deny(format!("[browser] deny contains {d:?}, matching {shown}")));
        }
        match &b.allow {
            Some(a) if !a.iter().any(hit) => {
                Err(self.deny(format!("[browser] allow has no origin matching {shown}")))
            }
            _ => Ok(()),
        }
    }

    /// Whether a root may be reached: its application, and for a page its origin.
    /// `exe_names` are the names of its process (empty when it has none or it is gone).
    pub fn check_root(&self, info: &RootInfo, exe_names: &[String]) -> Result<(), Error> {
        if !self.rules.apps.deny.is_empty() || self.rules.apps.allow.is_some() {
            let mut names = vec![info.app.clone()];
            names.extend(exe_names.iter().cloned());
            names.retain(|n| !n.is_empty());
            self.check_app(&names)?;
        }
        if info.kind == RootKind::BrowserPage {
            if let Some(u) = &info.url {
                self.check_url(u)?;
            }
        }
        Ok(())
    }

    /// Whether `evaluate_browser` may run.
    pub fn check_evaluate(&self) -> Result<(), Error> {
        match self.rules.browser.evaluate {
            Some(false) => Err(self.deny("[browser] evaluate = false".into())),
            _ => Ok(()),
        }
    }

    /// Whether raw (pointer, keyboard, focus) input may be sent.
    pub fn check_raw_input(&self) -> Result<(), Error> {
        match self.rules.input.raw {
            Some(false) => Err(self.deny("[input] raw = false".into())),
            _ => Ok(()),
        }
    }

    /// Whether `act_ui` is headless when the call does not say: `[input] headless = true`,
    /// or raw input off.
    pub fn headless_default(&self) -> bool {
        self.rules.input.headless == Some(true) || self.rules.input.raw == Some(false)
    }

    /// Whether the policy turns `evaluate_browser` on (`[browser] evaluate = true`), so the
    /// daemon it starts needs `--allow-evaluate`.
    pub fn enables_evaluate(&self) -> bool {
        self.rules.browser.evaluate == Some(true)
    }

    /// Whether the policy restricts applications (a whole-screen tool shows them all).
    pub fn restricts_apps(&self) -> bool {
        !self.rules.apps.deny.is_empty() || self.rules.apps.allow.is_some()
    }

    /// Whether sessions under this policy may be recorded as traces (`[trace] record`,
    /// default true).
    pub fn records_traces(&self) -> bool {
        self.rules.trace.record != Some(false)
    }

    /// `[files] roots`, when the policy names them: every file a call names must lie under
    /// one of them.
    pub fn file_roots(&self) -> Option<&[String]> {
        self.rules.files.roots.as_deref()
    }

    /// Whether the policy lifts the default file confinement (`[files] unrestricted = true`).
    pub fn files_unrestricted(&self) -> bool {
        self.rules.files.unrestricted == Some(true)
    }

    /// Whether a file (resolved, see `files::resolve`) may be named under this policy's
    /// `[files] roots`; `field` is where the call named it.
    pub fn check_file(&self, field: &str, resolved: &Path) -> Result<(), Error> {
        let Some(roots) = self.file_roots() else {
            return Ok(());
        };
        let inside = roots
            .iter()
            .any(|r| resolved.starts_with(resolve(Path::new(r))));
        if inside {
            return Ok(());
        }
        Err(self.deny(format!(
            "[files] roots has no root holding {field} {}",
            uidriver_core::outline::quote(&resolved.display().to_string(), 200)
        )))
    }

    /// The secret values no result may show.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// What the policy allows and denies, for `uidriver policy check` (never a secret's value).
    pub fn summary(&self) -> String {
        let r = &self.rules;
        let mut s = format!("policy {}: valid\n", self.source);
        let (tools, denied): (Vec<&str>, Vec<&str>) = ToolName::ALL
            .iter()
            .map(|t| t.as_str())
            .partition(|t| self.tool_allowed(t));
        let _ = writeln!(s, "tools allowed: {}", list_or(&tools, "none"));
        let _ = writeln!(s, "tools denied: {}", list_or(&denied, "none"));
        let _ = writeln!(
            s,
            "applications: {}",
            lists_line(&r.apps, "every application")
        );
        let _ = writeln!(s, "browser origins: {}", lists_line_b(&r.browser));
        let eval = match r.browser.evaluate {
            Some(false) => "denied",
            Some(true) => "allowed (the daemon this starts gets --allow-evaluate)",
            None => "as the daemon says (--allow-evaluate)",
        };
        let _ = writeln!(s, "evaluate_browser: {eval}");
        let raw = if r.input.raw == Some(false) {
            "off (desktop_input denied; act_ui only headless)"
        } else {
            "on"
        };
        let _ = writeln!(s, "raw input: {raw}");
        let headless = if self.headless_default() {
            "headless unless a call says headless: false"
        } else {
            "not headless unless a call says headless: true"
        };
        let _ = writeln!(s, "act_ui default: {headless}");
        let _ = writeln!(
            s,
            "secrets: {} value(s) redacted from every result{}",
            self.secrets.len(),
            if r.secrets.env.is_empty() {
                String::new()
            } else {
                format!(" (from ${})", r.secrets.env.join(", $"))
            }
        );
        let trace = if self.records_traces() {
            "recorded (secrets and password fields redacted)"
        } else {
            "not recorded"
        };
        let _ = writeln!(s, "MCP session traces: {trace}");
        let files = match (&r.files.roots, self.files_unrestricted()) {
            (Some(roots), _) => format!("only under {}", roots.join(", ")),
            (None, true) => "any file this user can reach".into(),
            (None, false) => "under the MCP client's roots, else the working directory".into(),
        };
        let _ = writeln!(s, "files an agent names: {files}");
        for w in self.warnings() {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    }

    /// Whether the tool may run at all: allowed by `[tools]`, and not switched off by
    /// `[browser] evaluate` or `[input] raw`. An MCP server lists only these.
    pub fn tool_allowed(&self, tool: &str) -> bool {
        self.check_tool(tool).is_ok()
            && match ToolName::from_name(tool) {
                Some(ToolName::EvaluateBrowser) => self.check_evaluate().is_ok(),
                Some(ToolName::DesktopInput) => self.check_raw_input().is_ok(),
                _ => true,
            }
    }

    /// Rules that are valid but probably not what the author meant.
    fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.restricts_apps() {
            for t in [ToolName::DesktopScreenshot, ToolName::DesktopInput] {
                if self.tool_allowed(t.as_str()) {
                    w.push(format!("{t} sees or acts on the whole screen, denied applications included; add it to [tools] deny"));
                }
            }
        }
        if self.secrets.iter().any(|v| v.chars().count() < 4) {
            w.push("a secret shorter than 4 characters will redact ordinary text too".into());
        }
        w
    }
}

/// The file roots a policy gives its caller (`files.rs` holds the rule and knows no policy).
impl FileAccess {
    /// The roots of a caller with `policy`: unrestricted when `lifted` (the command's
    /// `--allow-unrestricted-file-access`) or the policy says `[files] unrestricted = true`,
    /// else the policy's `[files] roots`, else the working directory of `who`.
    pub fn for_caller(policy: Option<&Policy>, lifted: bool, who: &str) -> Self {
        if lifted {
            return FileAccess::unrestricted("--allow-unrestricted-file-access");
        }
        if let Some(p) = policy {
            if p.files_unrestricted() {
                return FileAccess::unrestricted(format!(
                    "[files] unrestricted = true (policy {})",
                    p.source
                ));
            }
            if let Some(roots) = p.file_roots() {
                return FileAccess::within(
                    roots.iter().map(PathBuf::from),
                    format!("[files] roots (policy {})", p.source),
                );
            }
        }
        FileAccess::working_dir(who)
    }
}

/// A parser message with its quoted values elided (`invalid type: string "…"`): the value
/// may be a secret. Keys are quoted with backticks and stay.
fn unquote(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut inside = false;
    for c in message.chars() {
        if c == '"' {
            if !inside {
                out.push_str("\"…");
            } else {
                out.push('"');
            }
            inside = !inside;
        } else if !inside {
            out.push(c);
        }
    }
    out
}

fn names_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_or(items: &[&str], none: &str) -> String {
    if items.is_empty() {
        none.into()
    } else {
        items.join(", ")
    }
}

fn lists_line(l: &Lists, every: &str) -> String {
    let mut s = match &l.allow {
        Some(a) => format!("only {}", names_list(a)),
        None => every.to_string(),
    };
    if !l.deny.is_empty() {
        let _ = write!(s, ", except {}", names_list(&l.deny));
    }
    s
}

fn lists_line_b(b: &Browser) -> String {
    lists_line(
        &Lists {
            allow: b.allow.clone(),
            deny: b.deny.clone(),
        },
        "every origin",
    )
}

/// Checks what serde cannot: tool names exist, origins are origins, names are not empty.
fn validate(r: &Rules) -> Result<(), String> {
    let tools = r.tools.allow.iter().flatten().map(|t| ("allow", t));
    for (key, t) in tools.chain(r.tools.deny.iter().map(|t| ("deny", t))) {
        if ToolName::from_name(t).is_none() {
            let all: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
            return Err(format!(
                "[tools] {key}: unknown tool {t:?}; tools are {}",
                all.join(", ")
            ));
        }
    }
    let apps = r.apps.allow.iter().flatten().chain(&r.apps.deny);
    if apps.into_iter().any(|a| a.trim().is_empty()) {
        return Err("[apps]: an empty application name".into());
    }
    let origins = r.browser.allow.iter().flatten().chain(&r.browser.deny);
    for p in origins {
        parse_pattern(p).map_err(|why| format!("[browser] {p:?}: {why}"))?;
    }
    for name in &r.secrets.env {
        if name.is_empty() || name.contains('=') {
            return Err(format!("[secrets] env: {name:?} is not a variable name"));
        }
    }
    if let Some(roots) = &r.files.roots {
        if r.files.unrestricted == Some(true) {
            return Err("[files]: unrestricted = true and roots contradict each other".into());
        }
        if let Some(bad) = roots.iter().find(|p| !Path::new(p).is_absolute()) {
            return Err(format!("[files] roots: {bad:?} is not an absolute path"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Policy {
        Policy::parse(text, "test.toml", |_| None).expect("valid policy")
    }

    fn parse_err(text: &str) -> String {
        Policy::parse(text, "test.toml", |_| None)
            .expect_err("invalid policy")
            .message
    }

    #[test]
    fn an_empty_file_allows_everything() {
        let p = parse("");
        for t in crate::TOOLS {
            assert!(p.check_tool(t.name.as_str()).is_ok());
        }
        assert!(p.check_app(&["mousepad".into()]).is_ok());
        assert!(p.check_url("https://example.com/").is_ok());
        assert!(p.check_evaluate().is_ok() && p.check_raw_input().is_ok());
        assert!(!p.headless_default());
    }

    #[test]
    fn a_typo_is_an_error_naming_the_key() {
        let m = parse_err("[tools]\ndenny = [\"desktop_input\"]\n");
        assert!(m.contains("denny") && m.contains("test.toml"), "{m}");
        let m = parse_err("[tool]\ndeny = []\n");
        assert!(m.contains("tool"), "{m}");
        let m = parse_err("[tools]\ndeny = [\"desktop_inptu\"]\n");
        assert!(m.contains("unknown tool \"desktop_inptu\""), "{m}");
        let m = parse_err("[input]\nraw = \"no\"\n");
        assert!(m.contains("line 2, key `raw`"), "{m}");
        let m = parse_err("[secrets]\nvalues = \"hunter2\"\n");
        assert!(m.contains("key `values`") && !m.contains("hunter2"), "{m}");
    }

    #[test]
    fn tool_deny_and_allow_name_the_rule() {
        let p = parse("[tools]\ndeny = [\"desktop_input\"]\n");
        let e = p.check_tool("desktop_input").unwrap_err();
        assert_eq!(e.code, ErrorCode::PolicyDenied);
        assert!(
            e.message
                .contains("[tools] deny contains \"desktop_input\""),
            "{}",
            e.message
        );
        assert!(e.message.contains("test.toml"));
        assert!(p.check_tool("act_ui").is_ok());
        let p =
            parse("[tools]\nallow = [\"find_roots\", \"observe_ui\"]\ndeny = [\"observe_ui\"]\n");
        assert!(p.check_tool("find_roots").is_ok());
        assert!(p.check_tool("observe_ui").is_err(), "deny wins over allow");
        let e = p.check_tool("act_ui").unwrap_err();
        assert!(e
            .message
            .contains("[tools] allow does not contain \"act_ui\""));
    }

    #[test]
    fn apps_match_any_name_case_insensitively() {
        let p = parse("[apps]\ndeny = [\"Mousepad\"]\n");
        let e = p
            .check_app(&["Untitled".into(), "mousepad".into()])
            .unwrap_err();
        assert!(e.message.contains("[apps] deny contains \"Mousepad\""));
        assert!(p.check_app(&["gedit".into()]).is_ok());
        let p = parse("[apps]\nallow = [\"gedit\"]\n");
        assert!(p
            .check_app(&["org.gnome.gedit".into(), "gedit".into()])
            .is_ok());
        assert!(p.check_app(&["mousepad".into()]).is_err());
        assert!(p.check_app(&[]).is_err(), "no name matches no allow entry");
    }

    #[test]
    fn origins_match_scheme_host_and_port() {
        let p = parse(
            "[browser]\ndeny = [\"https://bank.example\", \"https://*.ads.example\", \"data:\"]\n",
        );
        assert!(p.check_url("https://bank.example/login?x=1").is_err());
        assert!(
            p.check_url("https://BANK.example:443/").is_err(),
            "default port, any case"
        );
        assert!(
            p.check_url("https://bank.example:8443/").is_ok(),
            "another port is another origin"
        );
        assert!(
            p.check_url("http://bank.example/").is_ok(),
            "another scheme too"
        );
        assert!(p.check_url("https://x.ads.example/").is_err());
        assert!(
            p.check_url("https://ads.example/").is_ok(),
            "*.d is subdomains only"
        );
        assert!(p.check_url("data:text/html,hi").is_err());
        assert!(
            p.check_url("https://user@bank.example/").is_err(),
            "userinfo is not the host"
        );
        let p = parse("[browser]\nallow = [\"http://127.0.0.1:*\", \"file:\"]\n");
        assert!(p.check_url("http://127.0.0.1:8080/a").is_ok());
        assert!(p.check_url("file:///tmp/x.html").is_ok());
        assert!(
            p.check_url("about:blank").is_ok(),
            "a blank page is always allowed"
        );
        let e = p.check_url("https://example.com/secret/path").unwrap_err();
        assert!(e.message.contains("https://example.com"), "{}", e.message);
        assert!(!e.message.contains("secret/path"), "the path is not echoed");
        assert!(p.check_url("not a url").is_err());
    }

    #[test]
    fn bad_origin_patterns_are_errors() {
        for bad in [
            "example.com",
            "https://example.com/path",
            "https://",
            "https://a*.example.com",
            "http://127.0.0.1:port",
            "https:example.com",
        ] {
            let m = parse_err(&format!("[browser]\nallow = [{bad:?}]\n"));
            assert!(m.contains("[browser]"), "{bad}: {m}");
        }
    }

    #[test]
    fn raw_input_off_makes_act_ui_headless() {
        let p = parse("[input]\nraw = false\n");
        assert!(p
            .check_raw_input()
            .unwrap_err()
            .message
            .contains("[input] raw = false"));
        assert!(p.headless_default());
        let p = parse("[input]\nheadless = true\n");
        assert!(p.check_raw_input().is_ok() && p.headless_default());
        let p = parse("[browser]\nevaluate = false\n");
        assert!(p
            .check_evaluate()
            .unwrap_err()
            .message
            .contains("[browser] evaluate = false"));
    }

    #[test]
    fn trace_recording_is_on_unless_the_policy_turns_it_off() {
        let on = Policy::parse("", "p.toml", |_| None).unwrap();
        assert!(on.records_traces());
        let off = Policy::parse("[trace]\nrecord = false\n", "p.toml", |_| None).unwrap();
        assert!(!off.records_traces());
        assert!(off.summary().contains("MCP session traces: not recorded"));
        assert!(parse_err("[trace]\nscreenshots = true\n").contains("screenshots"));
    }

    #[test]
    fn secrets_come_from_values_and_the_environment_and_never_from_the_summary() {
        let text = "[secrets]\nvalues = [\"hunter2\"]\nenv = [\"TOKEN\"]\n";
        let p = Policy::parse(text, "t", |k| (k == "TOKEN").then(|| "sk-123456".into())).unwrap();
        assert_eq!(p.secrets(), ["hunter2", "sk-123456"]);
        let s = p.summary();
        assert!(s.contains("2 value(s)") && s.contains("$TOKEN"), "{s}");
        assert!(!s.contains("hunter2") && !s.contains("sk-123456"));
        let wire = serde_json::to_string(&p).unwrap();
        let back: Policy = serde_json::from_str(&wire).unwrap();
        assert_eq!(back, p, "travels to the daemon intact");
        let m = Policy::parse(text, "t", |_| None).unwrap_err().message;
        assert!(m.contains("$TOKEN") && m.contains("not set"), "{m}");
        assert!(parse_err("[secrets]\nvalues = [\"\"]\n").contains("empty secret"));
    }

    #[test]
    fn the_summary_lists_denied_tools_and_warns_about_the_whole_screen() {
        let p = parse("[tools]\ndeny = [\"desktop_input\"]\n[apps]\ndeny = [\"mousepad\"]\n");
        let s = p.summary();
        assert!(s.contains("tools denied: desktop_input"), "{s}");
        assert!(s.contains("every application, except \"mousepad\""), "{s}");
        assert!(s.contains("warning: desktop_screenshot"), "{s}");
        assert!(!s.contains("warning: desktop_input"), "{s}");
    }

    #[test]
    fn file_roots_narrow_and_unrestricted_lifts() {
        let p = parse("[files]\nroots = [\"/srv/work\"]\n");
        assert!(p.check_file("path", Path::new("/srv/work/a.pdf")).is_ok());
        let e = p
            .check_file("path", Path::new("/srv/other/a.pdf"))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::PolicyDenied);
        assert!(e.message.contains("[files] roots"), "{}", e.message);
        assert!(p
            .summary()
            .contains("files an agent names: only under /srv/work"));
        let open = parse("[files]\nunrestricted = true\n");
        assert!(open.files_unrestricted());
        assert!(open.check_file("path", Path::new("/etc/x")).is_ok());
        assert!(parse_err("[files]\nroots = [\"work\"]\n").contains("not an absolute path"));
        assert!(
            parse_err("[files]\nroots = [\"/a\"]\nunrestricted = true\n").contains("contradict")
        );
        assert!(parse_err("[files]\nroot = [\"/a\"]\n").contains("root"));
    }
}
