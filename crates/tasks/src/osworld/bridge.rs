//! The Python side of OSWorld tasks: the interpreter whose environment holds the packages
//! OSWorld's evaluators import (`tasks osworld-deps` makes it), the two scripts this binary
//! carries (`python/osworld_bridge.py`, which calls OSWorld's own code, and
//! `python/osworld_control.py`, the control API it talks to), and the one `check` that says
//! which task files of a checkout can run here.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::setup::{run_with_deadline, tail};

/// The bridge to OSWorld's setup controller, getters and metrics.
pub const BRIDGE: &str = include_str!("../../python/osworld_bridge.py");
/// The OSWorld-compatible control API served inside a task's sandbox.
pub const CONTROL: &str = include_str!("../../python/osworld_control.py");
/// The packages the bridged code imports, and those too heavy to install by default.
pub const REQUIREMENTS: &str = include_str!("../../python/osworld-requirements.txt");
pub const HEAVY_REQUIREMENTS: &str = include_str!("../../python/osworld-requirements-heavy.txt");

/// The interpreter to use instead of the environment's (`$UIDRIVER_OSWORLD_PYTHON`).
pub const PYTHON_VAR: &str = "UIDRIVER_OSWORLD_PYTHON";
/// Where `tasks osworld-deps` puts the environment instead of the default.
pub const VENV_VAR: &str = "UIDRIVER_OSWORLD_VENV";
/// How long reading which tasks can run may take (it imports every metric module once).
const CHECK_TIMEOUT: Duration = Duration::from_secs(180);

/// The environment `tasks osworld-deps` makes: `$UIDRIVER_OSWORLD_VENV`, else
/// `$XDG_DATA_HOME/uidriver/osworld-venv`, else `~/.local/share/uidriver/osworld-venv`.
pub fn default_venv() -> PathBuf {
    if let Some(v) = std::env::var_os(VENV_VAR) {
        return PathBuf::from(v);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    data.join("uidriver/osworld-venv")
}

/// The interpreter that runs OSWorld's code: `$UIDRIVER_OSWORLD_PYTHON`, else the default
/// environment's, or why there is none.
pub fn python() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(PYTHON_VAR) {
        return Ok(PathBuf::from(p));
    }
    let p = default_venv().join("bin/python");
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "OSWorld's evaluators need their Python packages, and {} is missing: run `uidriver tasks osworld-deps`",
            p.display()
        ))
    }
}

/// The directory holding this binary's copy of the bridge and control scripts, written once
/// per content (`$TMPDIR/uidriver-osworld-UID-HASH`).
pub fn scripts_dir() -> Result<PathBuf, String> {
    let mut h = Sha256::new();
    h.update(BRIDGE);
    h.update(CONTROL);
    let hash: String = h.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let uid = rustix::process::getuid().as_raw();
    let dir = std::env::temp_dir().join(format!("uidriver-osworld-{uid}-{hash}"));
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            let part = dir.join(format!("{name}.{}", std::process::id()));
            std::fs::write(&part, text).and_then(|()| std::fs::rename(&part, &path))?;
        }
        Ok::<_, std::io::Error>(())
    };
    std::fs::create_dir_all(&dir)
        .and_then(|()| write("osworld_bridge.py", BRIDGE))
        .and_then(|()| write("osworld_control.py", CONTROL))
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// The checkout whose `desktop_env` judges the task files under `dir`: `dir` itself or the
/// nearest of its ancestors holding `desktop_env/evaluators`.
pub fn checkout_of(dir: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.ancestors()
        .take(4)
        .find(|d| d.join("desktop_env/evaluators").is_dir())
        .map(Path::to_path_buf)
}

/// What `check` says of one task file.
#[derive(Debug, Deserialize)]
pub struct Checked {
    /// The file.
    pub path: PathBuf,
    /// Why it cannot run here (none: it can).
    pub reason: Option<String>,
    /// Its func is `infeasible`.
    pub infeasible: bool,
}

/// Which of `files` can run with the checkout `code` and the cached URLs `cached`.
pub fn check(code: &Path, files: &[PathBuf], cached: &[String]) -> Result<Vec<Checked>, String> {
    let python = python()?;
    let scripts = scripts_dir()?;
    let listing = serde_json::json!({
        "files": files.iter().map(|f| serde_json::json!({"path": f})).collect::<Vec<_>>(),
        "cached": cached,
    });
    let list_file = scripts.join(format!("check-{}.json", std::process::id()));
    std::fs::write(&list_file, listing.to_string()).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(&python);
    cmd.arg(scripts.join("osworld_bridge.py"))
        .args(["check", "--code"])
        .arg(code)
        .arg("--tasks")
        .arg(&list_file);
    let out = run_with_deadline(cmd, None, CHECK_TIMEOUT);
    let _ = std::fs::remove_file(&list_file);
    let out = out.map_err(|e| format!("reading OSWorld's evaluators: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "reading OSWorld's evaluators with {}: {}",
            python.display(),
            tail(&String::from_utf8_lossy(&out.stderr), 400)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("the bridge's answer: {e}"))
}
