//! How MCP hosts are told to start uidriver: one row per host, printed by
//! `uidriver mcp --print-config HOST` and shown in `docs/CLIENTS.md`. The table is the one
//! place a snippet is written; `tests/clients.rs` checks that the docs show exactly what the
//! command prints, parses each snippet and starts what it names.

use crate::commands::{exit, say};

/// One host's configuration.
pub struct Host {
    /// The name `--print-config` takes.
    pub name: &'static str,
    /// Where the snippet goes.
    pub file: &'static str,
    /// `json` or `toml`.
    pub format: &'static str,
    /// The snippet, as printed.
    pub snippet: &'static str,
}

/// The `mcpServers` shape most hosts read (Claude Desktop, Cursor, and many others).
const MCP_SERVERS: &str = r#"{
  "mcpServers": {
    "uidriver": {
      "command": "uidriver",
      "args": ["mcp"]
    }
  }
}
"#;

/// Every host with a snippet. Commands name `uidriver`, found on the host's PATH (give the full
/// path where the host starts servers with a smaller PATH).
pub const HOSTS: &[Host] = &[
    Host {
        name: "claude-desktop",
        file: "~/.config/Claude/claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/)",
        format: "json",
        snippet: MCP_SERVERS,
    },
    Host {
        name: "claude-code",
        file: ".mcp.json in the project (or run: claude mcp add uidriver -- uidriver mcp)",
        format: "json",
        snippet: r#"{
  "mcpServers": {
    "uidriver": {
      "type": "stdio",
      "command": "uidriver",
      "args": ["mcp"],
      "env": {}
    }
  }
}
"#,
    },
    Host {
        name: "vscode",
        file: ".vscode/mcp.json in the workspace (or the user's mcp.json)",
        format: "json",
        snippet: r#"{
  "servers": {
    "uidriver": {
      "type": "stdio",
      "command": "uidriver",
      "args": ["mcp"]
    }
  }
}
"#,
    },
    Host {
        name: "cursor",
        file: "~/.cursor/mcp.json (or .cursor/mcp.json in the project)",
        format: "json",
        snippet: MCP_SERVERS,
    },
    Host {
        name: "codex",
        file: "~/.codex/config.toml",
        format: "toml",
        snippet: r#"[mcp_servers.uidriver]
command = "uidriver"
args = ["mcp"]
"#,
    },
    Host {
        name: "stdio",
        file: "any host that starts a server process and speaks MCP on its stdin/stdout",
        format: "json",
        snippet: r#"{
  "mcpServers": {
    "uidriver": {
      "command": "uidriver",
      "args": ["mcp", "--trace-screenshots"],
      "env": { "UIDRIVER_LOG": "info" }
    }
  }
}
"#,
    },
    Host {
        name: "http",
        file: "hosts that connect to a URL; first run: UIDRIVER_MCP_TOKEN=<token> uidriver mcp --http 127.0.0.1:8765",
        format: "json",
        snippet: r#"{
  "mcpServers": {
    "uidriver": {
      "type": "http",
      "url": "http://127.0.0.1:8765/mcp",
      "headers": { "Authorization": "Bearer ${UIDRIVER_MCP_TOKEN}" }
    }
  }
}
"#,
    },
];

/// `uidriver mcp --print-config HOST`: the snippet on stdout, where it goes on stderr (so
/// `> file` keeps only the snippet); `list` prints the host names.
pub fn print(host: &str) -> u8 {
    if host == "list" {
        for h in HOSTS {
            say(h.name);
        }
        return exit::OK;
    }
    match HOSTS.iter().find(|h| h.name == host) {
        Some(h) => {
            eprintln!("# {} ({}): {}", h.name, h.format, h.file);
            say(h.snippet.trim_end());
            exit::OK
        }
        None => {
            let names: Vec<&str> = HOSTS.iter().map(|h| h.name).collect();
            eprintln!(
                "uidriver mcp: no configuration for host {host:?}\nhint: --print-config takes one of {}",
                names.join(", ")
            );
            exit::USAGE
        }
    }
}
