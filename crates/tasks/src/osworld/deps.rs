//! `uidriver tasks osworld-deps`: the Python environment OSWorld's evaluators run in. It is a
//! virtual environment made from the system's `python3` with its site packages visible (the
//! control API reads the accessibility tree through the system's PyGObject), into which pip
//! installs `python/osworld-requirements.txt`: the packages OSWorld's setup controller,
//! getters and metrics import, nothing of its agents or cloud providers. `--heavy` adds
//! `osworld-requirements-heavy.txt` (easyocr, which pulls torch); without it the few metrics
//! that import them are skipped by name and the rest still run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::bridge::{HEAVY_REQUIREMENTS, REQUIREMENTS};
use crate::setup::kill_group;

/// The longest pip may take (torch alone is about 800 MB).
const PIP_TIMEOUT: Duration = Duration::from_secs(3600);

/// What was installed.
#[derive(Debug, Clone, Serialize)]
pub struct DepsReport {
    /// The environment.
    pub venv: PathBuf,
    /// Its interpreter (what `$UIDRIVER_OSWORLD_PYTHON` would name).
    pub python: PathBuf,
    /// Packages installed in it.
    pub packages: usize,
    /// Its size on disk, bytes.
    pub bytes: u64,
    /// Seconds the whole command took.
    pub seconds: f64,
}

/// Makes (or updates) the environment at `venv` with the system interpreter `system_python`;
/// pip's output goes to this process's stderr.
pub fn install(venv: &Path, system_python: &Path, heavy: bool) -> Result<DepsReport, String> {
    let t0 = Instant::now();
    let python = venv.join("bin/python");
    if !python.is_file() {
        let mut cmd = Command::new(system_python);
        cmd.args(["-m", "venv", "--system-site-packages"]).arg(venv);
        run(cmd, Duration::from_secs(120)).map_err(|e| {
            format!(
                "making {}: {e} (Debian: apt-get install python3-venv)",
                venv.display()
            )
        })?;
    }
    let dir = venv.join("uidriver");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut files = vec![("osworld-requirements.txt", REQUIREMENTS)];
    if heavy {
        files.push(("osworld-requirements-heavy.txt", HEAVY_REQUIREMENTS));
    }
    let mut pip = Command::new(&python);
    pip.args(["-m", "pip", "install", "--disable-pip-version-check"]);
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        pip.arg("-r").arg(path);
    }
    run(pip, PIP_TIMEOUT).map_err(|e| format!("pip: {e}"))?;
    Ok(DepsReport {
        packages: count_packages(venv),
        bytes: size_of(venv),
        venv: venv.to_path_buf(),
        python,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Runs `cmd` with its output on stderr, killed past `limit`.
fn run(mut cmd: Command, limit: Duration) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(Stdio::inherit());
    let mut child = cmd.spawn().map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return if status.success() {
                Ok(())
            } else {
                Err(format!("exited {status}"))
            };
        }
        if t0.elapsed() > limit {
            kill_group(child.id());
            let _ = child.wait();
            return Err(format!("timed out after {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Distributions installed in the environment itself (not the system's).
fn count_packages(venv: &Path) -> usize {
    let Ok(libs) = std::fs::read_dir(venv.join("lib")) else {
        return 0;
    };
    libs.flatten()
        .filter_map(|l| std::fs::read_dir(l.path().join("site-packages")).ok())
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".dist-info"))
        .count()
}

/// Bytes of the files under `dir` (links not followed).
fn size_of(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size_of(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}
