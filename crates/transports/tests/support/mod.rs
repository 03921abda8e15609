//! What the transports tests share: a socket directory, error codes of results, policies.

use std::path::PathBuf;
use std::sync::Arc;

/// A temp dir for one test's socket, removed at the end.
pub struct Dir(PathBuf);

impl Dir {
    pub fn new(test: &str) -> Dir {
        let d =
            std::env::temp_dir().join(format!("uidriver-transports-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    pub fn socket(&self) -> PathBuf {
        self.0.join("d.sock")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The error code of a result (empty when it is not an error).
pub fn code(r: &uidriver_service::ToolResult) -> String {
    r.structured["error"]["code"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// A policy parsed from `text`.
pub fn policy(text: &str) -> Arc<uidriver_service::Policy> {
    Arc::new(uidriver_service::Policy::parse(text, "p.toml", |_| None).unwrap())
}
