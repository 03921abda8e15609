//! The on-disk description of a running sandbox (`manifest.json` + a sourceable `env` file in the
//! state directory), so that another process (`sandbox env`, `sandbox stop`) can attach to it and
//! stop exactly the processes it recorded.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{DisplayServer, SandboxError};

/// File name of the JSON manifest inside the state directory.
pub const MANIFEST_FILE: &str = "manifest.json";
/// File name of the shell env file (`export K='V'` lines) inside the state directory.
pub const ENV_FILE: &str = "env";
/// Current manifest format version.
pub const MANIFEST_FORMAT: u32 = 1;

/// One process the sandbox started (or found as a child of one it started).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProcessRecord {
    /// What it is: `xvfb`, `compositor`, `session-bus`, `at-spi-bus-launcher`, `at-spi-child`,
    /// `window-manager` or `app` ([`crate::roles`]).
    pub role: String,
    /// `/proc/PID/comm` when recorded (informational; identity is pid + start time).
    pub comm: String,
    /// Process id.
    pub pid: u32,
    /// Start time (clock ticks after boot, `/proc/PID/stat` field 22): guards against pid reuse.
    pub start_time: u64,
    /// Command line it was started with (empty for processes found, not started).
    #[serde(default)]
    pub argv: Vec<String>,
    /// Where its stdout/stderr go, if we redirected them.
    #[serde(default)]
    pub log: Option<PathBuf>,
}

/// Everything needed to use or stop a sandbox from another process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Manifest {
    /// Format version ([`MANIFEST_FORMAT`]).
    pub format: u32,
    /// The state directory this manifest lives in.
    pub state_dir: PathBuf,
    /// True if `start` created the state directory itself: `stop` then removes it entirely.
    pub owned_state_dir: bool,
    /// X11 or Wayland (manifests written before Wayland existed are X11).
    #[serde(default)]
    pub display_server: DisplayServer,
    /// The display: X11's `:99`, or the Wayland compositor's socket name (`wayland-1`, in the
    /// runtime dir).
    pub display: String,
    /// The X display number (99 for `:99`); on Wayland XWayland's, or 0 without XWayland.
    pub display_number: u32,
    /// Value of `UIDRIVER_SANDBOX_ID` in the environment of every process the sandbox starts
    /// (not in the exported env): lets `stop` find daemons that escaped their parent.
    pub marker: String,
    /// The exported environment, in order.
    pub env: Vec<(String, String)>,
    /// Started processes, in start order.
    pub processes: Vec<ProcessRecord>,
}

impl Manifest {
    /// Reads `state_dir/manifest.json`.
    pub fn load(state_dir: &Path) -> Result<Manifest, SandboxError> {
        let path = state_dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| SandboxError::io(format!("reading {}", path.display()), e))?;
        let m: Manifest = serde_json::from_str(&text).map_err(|e| SandboxError::Manifest {
            path: path.clone(),
            message: e.to_string(),
        })?;
        if m.format != MANIFEST_FORMAT {
            return Err(SandboxError::Manifest {
                path,
                message: format!("format {} (expected {MANIFEST_FORMAT})", m.format),
            });
        }
        Ok(m)
    }

    /// Writes `manifest.json` and `env` atomically (temp file + rename).
    pub fn save(&self) -> Result<(), SandboxError> {
        let json = serde_json::to_string_pretty(self).map_err(|e| SandboxError::Manifest {
            path: self.state_dir.join(MANIFEST_FILE),
            message: e.to_string(),
        })?;
        write_atomic(&self.state_dir.join(MANIFEST_FILE), json.as_bytes())?;
        write_atomic(
            &self.state_dir.join(ENV_FILE),
            env_file_text(&self.env).as_bytes(),
        )
    }
}

/// `export K='V'` lines, values single-quoted for POSIX shells.
pub fn env_file_text(env: &[(String, String)]) -> String {
    env.iter()
        .map(|(k, v)| format!("export {k}='{}'\n", v.replace('\'', r"'\''")))
        .collect()
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SandboxError> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .map_err(|e| SandboxError::io(format!("writing {}", tmp.display()), e))?;
    std::fs::rename(&tmp, path)
        .map_err(|e| SandboxError::io(format!("renaming to {}", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_file_quotes_values() {
        let env = vec![
            ("A".to_string(), "x y".to_string()),
            ("B".to_string(), "it's".to_string()),
        ];
        assert_eq!(env_file_text(&env), "export A='x y'\nexport B='it'\\''s'\n");
    }

    #[test]
    fn a_manifest_from_before_wayland_is_x11() {
        let json = r#"{"format": 1, "state_dir": "/s", "owned_state_dir": true,
            "display": ":99", "display_number": 99, "marker": "m", "env": [], "processes": []}"#;
        let m: Manifest = serde_json::from_str(json).expect("parse");
        assert_eq!(m.display_server, DisplayServer::X11);
        let wayland = serde_json::to_string(&DisplayServer::Wayland).expect("json");
        assert_eq!(wayland, r#""wayland""#);
    }

    #[test]
    fn manifest_round_trips() {
        let dir =
            std::env::temp_dir().join(format!("uidriver-manifest-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let m = Manifest {
            format: MANIFEST_FORMAT,
            state_dir: dir.clone(),
            owned_state_dir: true,
            display_server: DisplayServer::X11,
            display: ":99".into(),
            display_number: 99,
            marker: "abc".into(),
            env: vec![("DISPLAY".into(), ":99".into())],
            processes: vec![ProcessRecord {
                role: "xvfb".into(),
                comm: "Xvfb".into(),
                pid: 12,
                start_time: 34,
                argv: vec!["Xvfb".into(), ":99".into()],
                log: Some(dir.join("xvfb.log")),
            }],
        };
        m.save().expect("save");
        assert_eq!(Manifest::load(&dir).expect("load"), m);
        assert!(std::fs::read_to_string(dir.join(ENV_FILE))
            .expect("env")
            .contains("export DISPLAY=':99'"));
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
