//! Where an agent's files may be: every path a call names (a file to upload, a PDF or browser
//! state to write, a state file to load, a profile or downloads folder) and every `file://`
//! URL it loads must lie under the roots its caller allows ([`FileAccess`]), after `..` and
//! symlinks are resolved. A path outside answers `policy_denied` naming the rule and where the
//! roots came from, before anything is sent; a path inside is handed to the tool resolved, so
//! a symlink swapped after the check cannot lead elsewhere.
//!
//! The roots travel with each call (the daemon serves clients with different roots): an MCP
//! session's are its client's `roots/list` when it declares any, else the roots of its policy
//! (`[files] roots`), else the working directory of `uidriver mcp`; `uidriver call` keeps its
//! own working directory. A call that brings none (an older client) gets the daemon's working
//! directory. `--allow-unrestricted-file-access` (or `[files] unrestricted = true`) lifts the
//! confinement; a policy's own `[files] roots` still narrow it (policies only narrow).
//!
//! Two ways data leaves the machine through uidriver are uploads (`setFiles`) and what a page
//! shows; both follow this rule. A page that navigates itself to a `file://` URL outside the
//! roots (a link in an allowed local page) has its state withheld from the result.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uidriver_core::outline::quote;
use uidriver_core::{Error, ErrorCode, RootKind};

use crate::ToolName;

/// The directories a call's files must lie under, and where that rule came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileAccess {
    /// Allowed directories, resolved (no `..`, no symlinks). Empty confines to nothing.
    pub roots: Vec<PathBuf>,
    /// Where the roots came from, named in every refusal ("the MCP client's roots").
    pub source: String,
    /// No confinement: `--allow-unrestricted-file-access` or `[files] unrestricted = true`.
    #[serde(default)]
    pub unrestricted: bool,
}

impl FileAccess {
    /// Files under `roots` (resolved here); `source` says where they came from.
    pub fn within(roots: impl IntoIterator<Item = PathBuf>, source: impl Into<String>) -> Self {
        let mut resolved: Vec<PathBuf> = roots.into_iter().map(|r| resolve(&r)).collect();
        resolved.dedup();
        FileAccess {
            roots: resolved,
            source: source.into(),
            unrestricted: false,
        }
    }

    /// Files under this process's working directory; `who` names the process ("uidriver
    /// call"). A process without one (its directory was removed) confines to nothing.
    pub fn working_dir(who: &str) -> Self {
        match std::env::current_dir() {
            Ok(d) => FileAccess::within([d], format!("the working directory of {who}")),
            Err(_) => FileAccess::within([], format!("{who} (its working directory is gone)")),
        }
    }

    /// Any file this user can reach; `source` names the switch that said so.
    pub fn unrestricted(source: impl Into<String>) -> Self {
        FileAccess {
            roots: vec![],
            source: source.into(),
            unrestricted: true,
        }
    }

    /// Whether `resolved` (a path from [`resolve`]) lies under a root.
    pub fn allows(&self, resolved: &Path) -> bool {
        self.unrestricted || self.roots.iter().any(|r| resolved.starts_with(r))
    }

    /// The roots as a reader sees them.
    fn shown(&self) -> String {
        if self.roots.is_empty() {
            return "none".into();
        }
        let list: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        list.join(", ")
    }

    /// `path` resolved, when it lies under a root; else `policy_denied` naming the field, the
    /// path and the roots. Nothing has been sent when this is asked.
    pub fn check(&self, field: &str, path: &Path) -> Result<PathBuf, Error> {
        let resolved = resolve(path);
        if self.allows(&resolved) {
            return Ok(resolved);
        }
        let shown = quote(&path.display().to_string(), 200);
        let via = if resolved != path {
            format!(
                " (resolved: {})",
                quote(&resolved.display().to_string(), 200)
            )
        } else {
            String::new()
        };
        let rule = format!("file roots: {}", self.source);
        Err(Error::new(
            ErrorCode::PolicyDenied,
            format!(
                "{field} {shown}{via} is outside the allowed file roots ({}: {}); nothing was sent",
                self.source,
                self.shown()
            ),
        )
        .with_hint(
            "Use a file under one of the roots (an MCP client sets them with roots/list). The user can lift this with `uidriver mcp --allow-unrestricted-file-access` or `[files] unrestricted = true` in a policy.",
        )
        .with_details(serde_json::json!({
            "rule": rule,
            "field": field,
            "path": resolved,
            "roots": self.roots,
        })))
    }
}

/// `path` made absolute-free of `.`, `..` and symlinks: the longest part that exists is
/// canonicalized by the system, the rest (which cannot hold a symlink) is normalized by name.
/// A relative path is resolved against this process's working directory.
pub fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut out = real;
            for part in rest.iter().rev() {
                push_normal(&mut out, Path::new(part));
            }
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            // `..` at the end, or nothing left that exists: normalize by name alone.
            _ => return normalized(path),
        }
    }
}

/// Appends `part`'s components by name: `..` goes up, `.` stays.
fn push_normal(out: &mut PathBuf, part: &Path) {
    for c in part.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            Component::RootDir => out.push("/"),
            Component::CurDir | Component::Prefix(_) => {}
        }
    }
}

fn normalized(path: &Path) -> PathBuf {
    let mut out = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
    };
    push_normal(&mut out, path);
    out
}

/// The local path a `file:` URL names (percent-decoded), or `None` for another scheme. A
/// `file:` URL with a host other than `localhost` names no local path: `Some(None)`.
pub fn file_url_path(url: &str) -> Option<Option<PathBuf>> {
    let t = url.trim();
    let scheme_end = t.find(':')?;
    if !t[..scheme_end].eq_ignore_ascii_case("file") {
        return None;
    }
    let rest = &t[scheme_end + 1..];
    let Some(after) = rest.strip_prefix("//") else {
        // `file:/etc/passwd`: a path with no authority.
        return Some(Some(PathBuf::from(percent_decode(strip_suffix(rest))?)));
    };
    let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return Some(None);
    }
    let path = strip_suffix(path);
    Some(percent_decode(if path.is_empty() { "/" } else { path }).map(PathBuf::from))
}

/// A URL path without its query and fragment.
fn strip_suffix(p: &str) -> &str {
    let end = p.find(['?', '#']).unwrap_or(p.len());
    &p[..end]
}

/// `%xx` sequences decoded; `None` when they do not make UTF-8 text or a byte is NUL.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return None;
    }
    String::from_utf8(out).ok()
}

/// A further rule every checked file must pass besides the caller's roots: the `[files] roots`
/// of the policies in force (`enforce.rs`), which only narrow. Passed in, so this file knows
/// nothing of policies.
pub(crate) trait FileRule {
    /// Whether `resolved` (from [`resolve`]), named as `field`, may be used.
    fn check_file(&self, field: &str, resolved: &Path) -> Result<(), Error>;
}

/// One path or URL a call names, where in its arguments it is.
enum Named {
    /// A file or folder path: its JSON pointer and its field name as errors show it.
    Path(String, String),
    /// A URL that may be `file:`.
    Url(String, String),
}

/// The paths and URLs `tool`'s arguments name.
fn named(tool: &str, args: &Value) -> Vec<Named> {
    let path = |k: &str| Named::Path(format!("/{k}"), k.to_string());
    let url = |k: &str| Named::Url(format!("/{k}"), k.to_string());
    match ToolName::from_name(tool) {
        Some(ToolName::SavePdf | ToolName::SaveBrowserState) => vec![path("path")],
        Some(ToolName::LaunchBrowser) => vec![
            url("url"),
            path("downloadsDir"),
            path("profileDir"),
            path("storageState"),
        ],
        Some(ToolName::NavigateBrowser) => vec![url("url")],
        Some(ToolName::ActUi) => {
            let steps = args.get("actions").and_then(Value::as_array);
            let mut out = Vec::new();
            for (i, s) in steps.into_iter().flatten().enumerate() {
                let n = s.get("paths").and_then(Value::as_array).map_or(0, Vec::len);
                for j in 0..n {
                    out.push(Named::Path(
                        format!("/actions/{i}/paths/{j}"),
                        format!("actions[{i}].paths[{j}]"),
                    ));
                }
            }
            out
        }
        _ => vec![],
    }
}

/// Checks every path and `file:` URL of a call against `access` and `policies` (their own
/// `[files] roots`), and puts each checked path back resolved. Relative paths are left to the
/// tool, which refuses them (the daemon's directory is not the caller's).
pub(crate) fn check_call(
    access: &FileAccess,
    policies: &impl FileRule,
    tool: &str,
    args: &mut Value,
) -> Result<(), Error> {
    for n in named(tool, args) {
        match n {
            Named::Path(ptr, field) => {
                let Some(slot) = args.pointer_mut(&ptr) else {
                    continue;
                };
                let Some(p) = slot.as_str().map(PathBuf::from) else {
                    continue;
                };
                if !p.is_absolute() {
                    continue;
                }
                let resolved = access.check(&field, &p)?;
                policies.check_file(&field, &resolved)?;
                *slot = Value::String(resolved.display().to_string());
            }
            Named::Url(ptr, field) => {
                let Some(u) = args.pointer(&ptr).and_then(Value::as_str) else {
                    continue;
                };
                check_url(access, policies, &field, u)?;
            }
        }
    }
    Ok(())
}

/// Whether a `file:` URL may be loaded (other schemes are not this rule's).
fn check_url(
    access: &FileAccess,
    policies: &impl FileRule,
    field: &str,
    url: &str,
) -> Result<(), Error> {
    match file_url_path(url) {
        None => Ok(()),
        Some(None) => Err(Error::new(
            ErrorCode::PolicyDenied,
            format!(
                "{field} {} names a file on another host or cannot be decoded; nothing was sent",
                quote(url, 200)
            ),
        )
        .with_details(serde_json::json!({"rule": "file roots", "field": field}))),
        Some(Some(p)) => {
            let resolved = access.check(field, &p)?;
            policies.check_file(field, &resolved)
        }
    }
}

/// Why a page at `url` may not be shown to this caller: a `file:` page outside the roots.
pub(crate) fn page_denial(
    access: &FileAccess,
    policies: &impl FileRule,
    kind: RootKind,
    url: Option<&str>,
) -> Option<Error> {
    if kind != RootKind::BrowserPage {
        return None;
    }
    check_url(access, policies, "the page's URL", url?).err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enforce::Policies;

    fn access(dir: &Path) -> FileAccess {
        FileAccess::within([dir.to_path_buf()], "test roots")
    }

    #[test]
    fn paths_are_resolved_before_they_are_judged() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), b"a").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        let a = access(&root);
        assert!(a.check("p", &root.join("sub/a.txt")).is_ok());
        // Not yet written, in an existing folder: allowed, resolved.
        let new = a.check("p", &root.join("sub/../new.pdf")).unwrap();
        assert_eq!(new, resolve(&root).join("new.pdf"));
        // `..` out of the root, a symlink out of it, a sibling sharing the root's prefix.
        let up = a.check("p", &root.join("../x.pdf")).unwrap_err();
        assert_eq!(up.code, ErrorCode::PolicyDenied);
        assert!(up.message.contains("resolved"), "{}", up.message);
        assert!(a.check("p", &root.join("out/passwd")).is_err());
        std::fs::create_dir_all(d.path().join("rootless")).unwrap();
        assert!(a.check("p", &d.path().join("rootless/x")).is_err());
        assert!(a.check("p", Path::new("/etc/shadow")).is_err());
        assert!(FileAccess::unrestricted("flag")
            .check("p", Path::new("/etc/shadow"))
            .is_ok());
        assert!(FileAccess::within([], "none")
            .check("p", &root.join("sub/a.txt"))
            .is_err());
    }

    #[test]
    fn file_urls_name_local_paths() {
        let p = |u: &str| file_url_path(u);
        assert_eq!(p("https://example.com/a"), None);
        assert_eq!(p("file:///etc/passwd"), Some(Some("/etc/passwd".into())));
        assert_eq!(p("FILE:///a%20b/c?q#f"), Some(Some("/a b/c".into())));
        assert_eq!(p("file://localhost/tmp/x"), Some(Some("/tmp/x".into())));
        assert_eq!(p("file:/etc/passwd"), Some(Some("/etc/passwd".into())));
        assert_eq!(p("file://server/share"), Some(None));
        assert_eq!(p("file:///a%00b"), Some(None));
    }

    #[test]
    fn every_named_path_is_checked_and_handed_on_resolved() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("up.txt"), b"x").unwrap();
        let a = access(d.path());
        let none = Policies::new(vec![]);
        let inside = d.path().join("./up.txt").display().to_string();
        let mut args = serde_json::json!({"stateId": "s1", "actions": [
            {"action": "click", "ref": "@e1"},
            {"action": "setFiles", "ref": "@e2", "paths": [inside]},
        ]});
        check_call(&a, &none, "act_ui", &mut args).unwrap();
        let handed = args
            .pointer("/actions/1/paths/0")
            .unwrap()
            .as_str()
            .unwrap();
        assert_eq!(Path::new(handed), resolve(&d.path().join("up.txt")));
        let mut out =
            serde_json::json!({"actions": [{"action": "setFiles", "paths": ["/etc/shadow"]}]});
        let e = check_call(&a, &none, "act_ui", &mut out).unwrap_err();
        assert!(
            e.message.starts_with("actions[0].paths[0] \"/etc/shadow\""),
            "{}",
            e.message
        );
        for (tool, args) in [
            (
                "save_pdf",
                serde_json::json!({"root": "@r1", "path": "/tmp/../etc/x.pdf"}),
            ),
            (
                "navigate_browser",
                serde_json::json!({"url": "file:///etc/passwd"}),
            ),
            (
                "launch_browser",
                serde_json::json!({"storageState": "/etc/x.json"}),
            ),
            (
                "launch_browser",
                serde_json::json!({"url": "file://host/x"}),
            ),
        ] {
            let mut args = args;
            let e = check_call(&a, &none, tool, &mut args).unwrap_err();
            assert_eq!(e.code, ErrorCode::PolicyDenied, "{tool}: {}", e.message);
        }
        let mut web = serde_json::json!({"url": "https://example.com"});
        check_call(&a, &none, "navigate_browser", &mut web).unwrap();
    }
}
