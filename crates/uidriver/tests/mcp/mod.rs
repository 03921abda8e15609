//! One MCP session over stdio with the real binary (`uidriver mcp`, which attaches to a daemon
//! it starts), for live tests that must prove one session and one daemon lived through
//! something. A minimal JSON-RPC client: requests by id, notifications skipped. The daemon is
//! isolated in a temp dir (socket, state) and stopped when the session is dropped.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// What a tool call answered.
pub struct Answer {
    pub is_error: bool,
    pub structured: Value,
    pub text: String,
}

/// One `uidriver mcp` process and the daemon it attached to.
pub struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    dir: PathBuf,
    env: Vec<(String, String)>,
}

const EXE: &str = env!("CARGO_BIN_EXE_uidriver");

impl Session {
    /// Starts `uidriver mcp` with only `env` (a sandbox's, or none) plus `PATH`, in the temp
    /// dir (its file root), and initializes the session.
    pub async fn start(env: &[(String, String)]) -> Session {
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("uidriver-live-mcp-{}-{run}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("session dir");
        let mut env = env.to_vec();
        env.push(("PATH".into(), std::env::var("PATH").unwrap_or_default()));
        env.push(("UIDRIVER_SOCKET".into(), path(&dir.join("daemon.sock"))));
        env.push(("XDG_STATE_HOME".into(), path(&dir.join("state"))));
        // Its working directory is its file root: the temp dir, where the tests' pages are.
        let mut child = Command::new(EXE)
            .arg("mcp")
            .current_dir(std::env::temp_dir())
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.join("mcp.log")).expect("log"))
            .kill_on_drop(true)
            .spawn()
            .expect("uidriver mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut s = Session {
            child,
            stdin,
            lines,
            next_id: 1,
            dir,
            env,
        };
        let init = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "live_loss", "version": "0" },
        });
        s.request("initialize", init).await;
        s.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        s
    }

    async fn send(&mut self, msg: Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to uidriver mcp");
    }

    /// Sends a request and waits (at most 60 s) for its response's `result`.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        let read = async {
            loop {
                let line = self.lines.next_line().await.expect("read").expect("open");
                let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                if msg["id"] == json!(id) {
                    return msg;
                }
            }
        };
        let msg = tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .unwrap_or_else(|_| panic!("{method} got no answer in 60 s"));
        assert!(msg.get("error").is_none(), "{method}: {msg}");
        msg["result"].clone()
    }

    /// Calls a tool.
    pub async fn call(&mut self, tool: &str, args: Value) -> Answer {
        let r = self
            .request("tools/call", json!({ "name": tool, "arguments": args }))
            .await;
        Answer {
            is_error: r["isError"].as_bool().unwrap_or(false),
            structured: r["structuredContent"].clone(),
            text: r["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        }
    }

    /// The pid of the daemon behind this session, from `uidriver daemon status`.
    pub fn daemon_pid(&self) -> Option<u32> {
        let out = std::process::Command::new(EXE)
            .args(["daemon", "status"])
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let at = text.find("\"pid\"")?;
        text[at + 5..]
            .trim_start_matches([':', ' '])
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::process::Command::new(EXE)
            .args(["daemon", "stop"])
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn path(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}
