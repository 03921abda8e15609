//! One file per subcommand; `run` dispatches.

mod call;
mod daemon;
mod demo;
mod doctor;
mod mcp;
mod policy;
mod sandbox;
#[cfg(feature = "tasks")]
mod tasks;
mod tools;
mod trace;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// Exit codes of the CLI (documented in README.md).
pub mod exit {
    /// The call succeeded.
    pub const OK: u8 = 0;
    /// The tool answered with an error (other than invalid_args).
    pub const TOOL_ERROR: u8 = 1;
    /// Bad command line or arguments (invalid_args).
    pub const USAGE: u8 = 2;
    /// The daemon or environment is unavailable.
    pub const UNAVAILABLE: u8 = 3;
    /// Stopped by SIGINT or SIGTERM (`tasks run`: after stopping what it started).
    #[cfg(feature = "tasks")]
    pub const INTERRUPTED: u8 = 130;
}

/// Writes a line of command output to stdout (the only place the CLI prints results).
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

pub async fn run(cli: Cli) -> ExitCode {
    let code = match cli.command {
        Command::Call(a) => call::run(a).await,
        Command::Mcp(a) => mcp::run(a).await,
        Command::Daemon(a) => daemon::run(a).await,
        Command::Tools { json, markdown } => tools::list(json, markdown),
        Command::Errors => tools::errors(),
        Command::Sandbox(a) => sandbox::run(a).await,
        Command::Doctor => doctor::run().await,
        Command::Demo(a) => demo::run(a).await,
        #[cfg(feature = "tasks")]
        Command::Tasks(a) => tasks::run(a).await,
        #[cfg(not(feature = "tasks"))]
        Command::Tasks { .. } => {
            eprintln!(
                "uidriver: `uidriver tasks` is not in this build (built without the `tasks` \
                 feature, as scripts/demo.sh builds it); build the task suite with \
                 `cargo build --release -p uidriver --features tasks`"
            );
            exit::USAGE
        }
        Command::Policy(a) => policy::run(a),
        Command::Trace(a) => trace::run(a).await,
    };
    ExitCode::from(code)
}
