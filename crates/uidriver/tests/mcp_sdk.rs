//! `uidriver mcp` against the official MCP Python SDK: over stdio (tests/mcp/conformance.py:
//! initialize, tools/list, a bad call, and the same calls through `uidriver call`) and over
//! loopback HTTP with a bearer token (tests/mcp/http_transport.py). The daemon each starts is isolated in
//! a temp dir and stopped by the script.

use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn mcp_python_sdk_conformance() {
    run_script("conformance.py");
}

#[test]
fn mcp_over_http_with_the_python_sdk() {
    run_script("http_transport.py");
}

/// Runs one SDK script from tests/mcp with the daemon isolated in a temp dir.
fn run_script(name: &str) {
    let exe = env!("CARGO_BIN_EXE_uidriver");
    let script = format!("{}/../../tests/mcp/{name}", env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var("UIDRIVER_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_sdk = Command::new(&python)
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_sdk,
        "the MCP Python SDK is missing: `{python} -m pip install mcp` (the README test command installs it)"
    );
    let dir = std::env::temp_dir().join(format!(
        "uidriver-mcp-sdk-{}-{}",
        std::process::id(),
        name.trim_end_matches(".py")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(&python)
        .arg(&script)
        .arg(exe)
        .env("UIDRIVER_SOCKET", dir.join("daemon.sock"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_RUNTIME_DIR", &dir)
        .spawn()
        .expect("run python");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = Command::new(exe)
                .args(["daemon", "stop"])
                .env("UIDRIVER_SOCKET", dir.join("daemon.sock"))
                .status();
            panic!("{name} hung");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(status.success(), "{name} failed (see stderr above)");
}
