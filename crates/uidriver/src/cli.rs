//! The command line, defined once with clap derive.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Let AI agents see and operate desktop applications and browser pages.
#[derive(Debug, Parser)]
#[command(name = "uidriver", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP on stdin/stdout (attached to the shared daemon, started when absent).
    Mcp(McpArgs),
    /// Call one tool through the daemon: `uidriver call observe_ui '{"root":"@r1"}'`.
    Call(CallArgs),
    /// Run, stop or query the daemon that owns states and refs.
    Daemon(DaemonArgs),
    /// List the tools with their descriptions (and schemas with --json).
    Tools {
        /// Print JSON: each tool as MCP lists it (title, description, annotations, input and output schemas).
        #[arg(long)]
        json: bool,
        /// Print the Markdown reference (the source of docs/TOOLS.md).
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
    },
    /// Print the error catalogue as Markdown (the source of docs/errors.md).
    Errors,
    /// Start an isolated desktop (Xvfb, private D-Bus, AT-SPI, openbox), optionally run a command inside.
    Sandbox(SandboxArgs),
    /// Check the display, buses, accessibility, XTEST, Composite, Chromium and tesseract.
    Doctor,
    /// Start a sandbox with sample apps and walk through find → observe → search → inspect → act.
    Demo(DemoArgs),
    /// The task suite: real tasks in real apps, each in its own sandbox, judged by what it leaves.
    #[cfg(feature = "tasks")]
    Tasks(TasksArgs),
    // A build without the `tasks` feature (scripts/demo.sh's): hidden from the help, and
    // `uidriver tasks …` says how to build the task suite instead of clap's "unrecognized
    // subcommand".
    /// Not in this build: `cargo build --release -p uidriver --features tasks` has the task suite.
    #[cfg(not(feature = "tasks"))]
    #[command(hide = true, disable_help_flag = true)]
    Tasks {
        /// Ignored.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Policy files: `uidriver policy check FILE` validates one and prints what it allows.
    Policy(PolicyArgs),
    /// Traces of MCP sessions: list them, view one as HTML, replay one's acts.
    Trace(TraceArgs),
}

/// `uidriver trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: TraceAction,
}

/// What `uidriver trace` does.
#[derive(Debug, Subcommand)]
pub enum TraceAction {
    /// List recorded traces (in $XDG_STATE_HOME/uidriver/traces), oldest first: id, start
    /// time, client, calls.
    List {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write one trace as a self-contained HTML file: a timeline, each call with its outcome,
    /// diff and screenshots inline.
    View {
        /// The trace id (from `uidriver trace list`).
        id: String,
        /// The HTML file to write.
        #[arg(short, long, value_name = "FILE.html")]
        output: PathBuf,
    },
    /// Run a trace's act_ui calls again on the current desktop, finding each element by role,
    /// name and path (not by ref), and report the first divergence (exit 1 when there is one).
    Replay {
        /// The trace id.
        id: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        service: ServiceFlags,
    },
}

/// `uidriver policy`.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: PolicyAction,
}

/// What `uidriver policy` does.
#[derive(Debug, Subcommand)]
pub enum PolicyAction {
    /// Validate a policy file (exit 0) and print what it allows and denies; an invalid file
    /// prints the error naming the bad key or value and exits 2.
    Check {
        /// The policy file (TOML).
        file: PathBuf,
    },
}

/// Options shared by everything that runs a service.
#[derive(Debug, Clone, Args)]
pub struct ServiceFlags {
    /// Allow evaluate_browser to run JavaScript in pages (also UIDRIVER_ALLOW_EVALUATE=1).
    #[arg(long)]
    pub allow_evaluate: bool,
    /// Daemon socket (default: per desktop, in $XDG_RUNTIME_DIR/uidriver).
    #[arg(long)]
    pub socket: Option<PathBuf>,
    /// Check every call against this policy file (TOML: allowed and denied tools, apps, browser
    /// origins, raw input, evaluate, headless default, secrets; see docs/POLICY.md). A client
    /// sends it with each call, so the shared daemon applies it to this client's calls only;
    /// `uidriver daemon --policy` applies it to every client's.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Let calls name any file this user can read or write (uploads, save_pdf, browser state,
    /// file:// pages). Without it they are confined to the MCP client's roots, else the
    /// policy's `[files] roots`, else the working directory (docs/SECURITY.md).
    #[arg(long)]
    pub allow_unrestricted_file_access: bool,
}

/// `uidriver mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Run the service inside this process instead of attaching to the daemon.
    #[arg(long)]
    pub standalone: bool,
    /// Serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio. ADDR must be a
    /// loopback address (127.0.0.1:8765; port 0 picks a free one) unless --allow-remote is
    /// given. Every request needs `Authorization: Bearer <token>`: --token-file, else
    /// $UIDRIVER_MCP_TOKEN, else a new token written to <runtime dir>/mcp-http-token (mode
    /// 0600). GET /healthz and /readyz answer without the token (probes).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// With --http: let ADDR be a non-loopback address (e.g. 0.0.0.0:8765 in a pod). Needs a
    /// token given by --token-file or $UIDRIVER_MCP_TOKEN (never a generated one).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// With --http: read the bearer token from FILE (e.g. a mounted Kubernetes Secret);
    /// surrounding whitespace is ignored.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<PathBuf>,
    /// With --allow-remote: accept only requests whose Host header is HOST (or HOST:PORT)
    /// besides loopback names; repeatable. Without it a remote server accepts any Host.
    #[arg(long, value_name = "HOST", requires = "allow_remote")]
    pub allow_host: Vec<String>,
    /// With --http: also accept requests whose Origin header is ORIGIN (scheme://host[:port]);
    /// repeatable. Requests without Origin, or from a loopback origin, are always accepted; any
    /// other Origin gets 403 (a web page must not reach the desktop).
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,
    /// Record no trace of this server's sessions (a policy's `[trace] record = false` does
    /// the same). Traces go to $XDG_STATE_HOME/uidriver/traces; see `uidriver trace`.
    #[arg(long)]
    pub no_trace: bool,
    /// Keep screenshots before and after every act in the trace (otherwise only once the
    /// session has read pixels).
    #[arg(long, conflicts_with = "no_trace")]
    pub trace_screenshots: bool,
    /// Print the configuration snippet of an MCP host (claude-desktop, claude-code, vscode,
    /// cursor, codex, stdio, http; `list` names them) and exit; docs/CLIENTS.md shows the same.
    #[arg(long, value_name = "HOST")]
    pub print_config: Option<String>,
    #[command(flatten)]
    pub service: ServiceFlags,
}

/// `uidriver call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// Tool name (see `uidriver tools`).
    pub tool: String,
    /// Arguments: JSON text, @file, or - for stdin (default {}).
    pub args: Option<String>,
    /// Print the structured result as JSON instead of the text.
    #[arg(long)]
    pub json: bool,
    /// Save attached images (PNG) into this directory as image-1.png, image-2.png, ….
    #[arg(long, value_name = "DIR")]
    pub images: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub service: ServiceFlags,
}

/// `uidriver daemon`.
#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// run (default), stop or status.
    #[arg(default_value = "run", value_parser = ["run", "stop", "status"])]
    pub action: String,
    /// Exit after this many seconds without a client (0: never).
    #[arg(long, default_value_t = 0)]
    pub idle_timeout: u64,
    #[command(flatten)]
    pub service: ServiceFlags,
}

/// `uidriver sandbox`.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// start (keep running, print its env), env (print the env of a running one), stop; omit
    /// to run the command after `--` inside and tear down afterwards.
    #[arg(value_parser = ["start", "env", "stop"])]
    pub action: Option<String>,
    /// Start this application inside and wait until its window is on the accessibility bus (repeatable).
    #[arg(long = "app", value_name = "CMD")]
    pub apps: Vec<String>,
    /// Name of a long-lived sandbox: its state dir `$TMPDIR/uidriver-sandbox-NAME` (private
    /// home and logs, kept after stop for the next start); default "default".
    #[arg(long, default_value = "default")]
    pub name: String,
    /// Screen size, e.g. 1280x800.
    #[arg(long, default_value = "1280x800")]
    pub size: String,
    /// Wayland instead of X11: a headless sway, apps as native Wayland clients
    /// (WAYLAND_DISPLAY, GDK_BACKEND=wayland, QT_QPA_PLATFORM=wayland; no DISPLAY).
    #[arg(long)]
    pub wayland: bool,
    /// With --wayland: XWayland for X11-only apps (DISPLAY set; started on the first X client).
    #[arg(long, requires = "wayland")]
    pub xwayland: bool,
    /// With --wayland: the compositor, sway (wlroots) or kwin (KDE's KWin, headless, in a KDE
    /// session: XDG_CURRENT_DESKTOP=KDE).
    #[arg(long, requires = "wayland", value_parser = ["sway", "kwin"], default_value = "sway")]
    pub compositor: String,
    /// The command to run inside (after `--`).
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// `uidriver demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Serve MCP on stdio inside the demo desktop instead of printing the walk-through.
    #[arg(long)]
    pub mcp: bool,
    /// Run the walk-through in this process (used inside the demo's own sandbox).
    #[arg(long, hide = true)]
    pub inside: bool,
}

/// `uidriver tasks`.
#[cfg(feature = "tasks")]
#[derive(Debug, Args)]
pub struct TasksArgs {
    /// list, show ID, run, merge, osworld-deps, or osworld-cache fetch.
    #[command(subcommand)]
    pub action: TasksAction,
    /// Only tasks matching: comma-separated ids, domains or substrings of `domain/id`.
    #[arg(long, global = true, value_name = "PATTERN")]
    pub only: Option<String>,
    /// Only tasks of this domain.
    #[arg(long, global = true)]
    pub domain: Option<String>,
    /// Only the quick subset (one task per domain).
    #[arg(long, global = true)]
    pub quick: bool,
    /// Print JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// The suite directory (default: $UIDRIVER_TASKS_DIR, else ./tasks, else the source
    /// tree's).
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Read OSWorld's task files from DIR (the OSWorld tree or its
    /// evaluation_examples/examples) instead of the suite; tasks whose setup steps or checkers
    /// have no counterpart are listed as skipped, with the reason.
    #[arg(long, global = true, value_name = "DIR")]
    pub osworld: Option<PathBuf>,
    /// Where OSWorld's downloads come from: a directory of files named by the SHA-256 (hex) of
    /// the whole URL or by its last path segment (`tasks osworld-cache fetch` fills one).
    #[arg(long, global = true, value_name = "DIR")]
    pub osworld_cache: Option<PathBuf>,
    /// Only the I-th of N deterministic slices of the selection (1 <= I <= N), dealt in order
    /// of domain then id so every domain spreads over the shards; `tasks merge` joins the
    /// shards' JSON reports.
    #[arg(long, global = true, value_name = "I/N")]
    pub shard: Option<uidriver_tasks::Shard>,
}

/// What `uidriver tasks` does.
#[cfg(feature = "tasks")]
#[derive(Debug, Subcommand)]
pub enum TasksAction {
    /// List the tasks.
    List,
    /// Show one task: instruction, setup, evaluator, solution.
    Show {
        /// The task id.
        id: String,
    },
    /// Run tasks, each in a fresh sandbox, and report pass/fail per task and domain.
    Run {
        /// The agent: a shell command run in the sandbox with the instruction in
        /// $UIDRIVER_TASK_INSTRUCTION, the task JSON on stdin, `uidriver mcp` on PATH and an
        /// MCP endpoint at $UIDRIVER_MCP_URL (bearer $UIDRIVER_MCP_TOKEN). Default: each
        /// task's scripted solution.
        #[arg(long, value_name = "CMD")]
        agent: Option<String>,
        /// Leave a failing task's sandbox running to inspect it.
        #[arg(long)]
        keep: bool,
        /// Sandboxes run at a time.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Run every task on a Wayland desktop (a headless sway, apps as native Wayland
        /// clients) instead of X11.
        #[arg(long)]
        wayland: bool,
        /// Where agent logs go (default: $TMPDIR/uidriver-tasks-PID).
        #[arg(long, value_name = "DIR")]
        log_dir: Option<PathBuf>,
        /// Also write the JSON report (as --json prints it) to FILE, e.g. a shard's on a
        /// shared volume.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
    },
    /// Merge the JSON reports of a run's shards into the report of the whole run (the same
    /// table and totals); overlapping reports or a missing shard are refused.
    Merge {
        /// The shards' reports (`tasks run --shard I/N --report FILE`).
        #[arg(required = true)]
        reports: Vec<PathBuf>,
    },
    /// Install the Python packages OSWorld's own setup controller, getters and metrics
    /// import, into the virtual environment OSWorld tasks run with (default:
    /// $UIDRIVER_OSWORLD_VENV, else ~/.local/share/uidriver/osworld-venv); prints what it
    /// holds and its size.
    OsworldDeps {
        /// Also install the heavy packages (easyocr, which pulls torch): without them the
        /// few metrics that import them are skipped by name.
        #[arg(long)]
        heavy: bool,
        /// The environment to make or update.
        #[arg(long, value_name = "DIR")]
        venv: Option<PathBuf>,
        /// The system interpreter the environment is made from.
        #[arg(long, value_name = "PATH", default_value = "/usr/bin/python3")]
        python: PathBuf,
    },
    /// OSWorld's download cache (what `--osworld-cache` reads).
    OsworldCache {
        #[command(subcommand)]
        action: OsworldCacheAction,
    },
}

/// What `uidriver tasks osworld-cache` does.
#[cfg(feature = "tasks")]
#[derive(Debug, Subcommand)]
pub enum OsworldCacheAction {
    /// Download every file the OSWorld tasks under DIR need (their `download` steps and
    /// `cloud_file` getters; narrowed by --only and --domain) into CACHE, each named by the
    /// SHA-256 of its URL; partial files are resumed, CACHE/manifest.json records each file's
    /// size, SHA-256 and HTTP status, and complete files are not fetched again. Exit 0 when
    /// every file is there, 1 when some failed (listed), 2 on a bad command line.
    Fetch {
        /// The OSWorld tree (the repository, its evaluation_examples, or examples).
        dir: PathBuf,
        /// The cache directory to fill (created if missing).
        #[arg(long, value_name = "CACHE")]
        cache: PathBuf,
        /// Files downloaded at a time.
        #[arg(long, default_value_t = 4)]
        jobs: usize,
        /// Attempts after the first for a failure that may pass (5xx, a reset, a timeout).
        #[arg(long, default_value_t = 3)]
        retries: u32,
        /// Seconds to wait to connect, and between two reads of an answer.
        #[arg(long, value_name = "SECS", default_value_t = 30.0)]
        timeout: f64,
    },
}
