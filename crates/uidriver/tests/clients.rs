//! Host set-up (issue 15 item 5): `docs/CLIENTS.md` shows exactly what
//! `uidriver mcp --print-config HOST` prints for every host; each snippet parses as its host
//! reads it (JSON or TOML) and the server it names, started as the host would start it (the
//! command and args, or the HTTP URL with the token header), completes an MCP `initialize` and
//! `tools/list`; and the MCP Inspector CLI lists and calls tools (`scripts/inspector.sh`).
//! Each server's daemon lives in a temp dir of its own and is stopped afterwards.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXE: &str = env!("CARGO_BIN_EXE_uidriver");
/// Fewest tools a working server lists (15 today; a policy could hide some, none is used here).
const MIN_TOOLS: usize = 13;

fn print_config(host: &str) -> (String, String) {
    let out = Command::new(EXE)
        .args(["mcp", "--print-config", host])
        .output()
        .unwrap();
    assert!(out.status.success(), "--print-config {host}: {out:?}");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn hosts() -> Vec<String> {
    let (list, _) = print_config("list");
    list.lines().map(String::from).collect()
}

fn docs() -> String {
    let p = format!("{}/../../docs/CLIENTS.md", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(p).unwrap()
}

/// The format a host's snippet is in, from the line `--print-config` writes on stderr.
fn format_of(stderr: &str) -> &'static str {
    if stderr.contains("(toml)") {
        "toml"
    } else {
        "json"
    }
}

#[test]
fn docs_show_exactly_what_print_config_prints() {
    let docs = docs();
    let hosts = hosts();
    assert!(hosts.len() >= 7, "{hosts:?}");
    for h in &hosts {
        let (snippet, stderr) = print_config(h);
        let block = format!(
            "<!-- uidriver mcp --print-config {h} -->\n```{}\n{snippet}```\n",
            format_of(&stderr)
        );
        assert!(
            docs.contains(&block),
            "docs/CLIENTS.md does not show what --print-config {h} prints:\n{block}"
        );
    }
    let marked = docs.matches("<!-- uidriver mcp --print-config ").count();
    let fences = docs.matches("```json\n").count() + docs.matches("```toml\n").count();
    assert_eq!(
        marked,
        hosts.len(),
        "a snippet in the docs for a host the command does not know"
    );
    assert_eq!(
        fences,
        hosts.len(),
        "a configuration block not printed by the command"
    );
    let unknown = Command::new(EXE)
        .args(["mcp", "--print-config", "no-such-host"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("claude-desktop"));
}

/// The server entry of a parsed snippet, wherever its host keeps it.
fn server_entry(snippet: &str, format: &str) -> Value {
    let v: Value = match format {
        "toml" => {
            let t: toml::Table = toml::from_str(snippet).expect("the TOML snippet parses");
            serde_json::to_value(t).unwrap()
        }
        _ => serde_json::from_str(snippet).expect("the JSON snippet parses"),
    };
    ["mcpServers", "servers", "mcp_servers"]
        .iter()
        .find_map(|k| v.get(k).and_then(|s| s.get("uidriver")).cloned())
        .unwrap_or_else(|| panic!("no uidriver server in {v}"))
}

/// An isolated place for one server's daemon: socket, state (traces) and runtime dir.
struct Isolated(PathBuf);

impl Isolated {
    fn new(name: &str) -> Isolated {
        let d =
            std::env::temp_dir().join(format!("uidriver-clients-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Isolated(d)
    }

    fn apply(&self, c: &mut Command) {
        c.env("UIDRIVER_SOCKET", self.0.join("daemon.sock"))
            .env("XDG_STATE_HOME", self.0.join("state"))
            .env("XDG_RUNTIME_DIR", &self.0)
            .env_remove("DISPLAY")
            .env_remove("DBUS_SESSION_BUS_ADDRESS");
    }
}

impl Drop for Isolated {
    fn drop(&mut self) {
        let mut stop = Command::new(EXE);
        stop.args(["daemon", "stop"]);
        self.apply(&mut stop);
        let _ = stop.output();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Stops a server this test started (by its handle, never by name).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "clients-test", "version": "1"}}})
}

/// Starts the snippet's command over stdio and lists tools through it.
fn stdio_lists_tools(host: &str, entry: &Value, iso: &Isolated) -> usize {
    assert_eq!(entry["command"], "uidriver", "{host}");
    let args: Vec<String> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let mut c = Command::new(EXE);
    c.args(&args).stdin(Stdio::piped()).stdout(Stdio::piped());
    iso.apply(&mut c);
    for (k, v) in entry["env"].as_object().into_iter().flatten() {
        c.env(k, v.as_str().unwrap());
    }
    let mut server = Server(c.spawn().unwrap());
    let mut stdin = server.0.stdin.take().unwrap();
    let stdout = server.0.stdout.take().unwrap();
    for msg in [
        initialize(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v: Value = serde_json::from_str(&line).unwrap_or_default();
            if v["id"] == 2 {
                let _ = tx.send(v);
                return;
            }
        }
    });
    let answer = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{host}: no tools/list answer within 60 s"));
    drop(stdin);
    answer["result"]["tools"].as_array().map_or(0, Vec::len)
}

/// One POST to the HTTP endpoint: the response's headers and body.
fn post(
    addr: &str,
    path: &str,
    auth: &str,
    session: Option<&str>,
    body: &Value,
) -> (String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.to_string();
    let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {auth}\r\n{session}\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    let _ = s.read_to_string(&mut raw);
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    (head.to_string(), rest.to_string())
}

/// The JSON-RPC message with `id` in an HTTP body (plain JSON or server-sent events).
fn message_with_id(body: &str, id: u64) -> Option<Value> {
    body.lines()
        .map(|l| l.strip_prefix("data:").unwrap_or(l).trim())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"] == id)
}

/// Starts `uidriver mcp --http` at the snippet's URL (on a free port) and lists tools with
/// the snippet's header, the token put in for `${UIDRIVER_MCP_TOKEN}`.
fn http_lists_tools(host: &str, entry: &Value, iso: &Isolated) -> usize {
    let url = entry["url"].as_str().unwrap();
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (hostport, path) = rest.split_at(rest.find('/').unwrap());
    let ip = hostport.rsplit_once(':').unwrap().0;
    let port = std::net::TcpListener::bind(format!("{ip}:0"))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("{ip}:{port}");
    let token = "clients-test-token-0123456789";
    let auth = entry["headers"]["Authorization"]
        .as_str()
        .unwrap()
        .replace("${UIDRIVER_MCP_TOKEN}", token);
    let mut c = Command::new(EXE);
    c.args(["mcp", "--http", &addr])
        .env("UIDRIVER_MCP_TOKEN", token);
    iso.apply(&mut c);
    let _server = Server(c.spawn().unwrap());
    let t0 = Instant::now();
    while TcpStream::connect(&addr).is_err() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{host}: nothing listens on {addr}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (head, body) = post(&addr, path, &auth, None, &initialize());
    assert!(
        message_with_id(&body, 1).is_some(),
        "{host}: initialize: {head}\n{body}"
    );
    let session = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .expect("a session id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&addr, path, &auth, Some(&session), &note);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (head, body) = post(&addr, path, &auth, Some(&session), &list);
    let answer = message_with_id(&body, 2).unwrap_or_else(|| panic!("{host}: {head}\n{body}"));
    answer["result"]["tools"].as_array().map_or(0, Vec::len)
}

#[test]
fn each_snippet_parses_and_starts_a_server_that_lists_tools() {
    for h in hosts() {
        let (snippet, stderr) = print_config(&h);
        let entry = server_entry(&snippet, format_of(&stderr));
        let iso = Isolated::new(&h);
        let tools = if entry.get("url").is_some() {
            http_lists_tools(&h, &entry, &iso)
        } else {
            stdio_lists_tools(&h, &entry, &iso)
        };
        assert!(tools >= MIN_TOOLS, "{h}: the server listed {tools} tools");
        eprintln!("{h}: initialize + tools/list ok ({tools} tools)");
    }
}

/// The MCP Inspector's CLI (`npx @modelcontextprotocol/inspector --cli uidriver mcp`):
/// tools/list and a tools/call, through `scripts/inspector.sh` (which checks both answers).
#[test]
#[cfg_attr(
    not(has_npx),
    ignore = "npx (Node.js) is missing: the MCP Inspector CLI cannot run here"
)]
fn inspector_cli_lists_and_calls_tools() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/inspector.sh");
    let iso = Isolated::new("inspector");
    let mut c = Command::new(script);
    c.arg(EXE);
    iso.apply(&mut c);
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "scripts/inspector.sh failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("inspector tools/list:") && text.contains("inspector tools/call find_roots:")
    );
}
