//! The uidriver binary: parses the command line, installs the one log writer (stderr, filtered
//! by `UIDRIVER_LOG`), chooses the backends, and hands off to the libraries. In MCP stdio mode
//! stdout carries only protocol frames, which is why nothing here prints to stdout except the
//! CLI commands whose output is their result.

mod backends;
mod cli;
mod clients;
mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_env("UIDRIVER_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("uidriver: cannot start the async runtime: {e}");
            return ExitCode::from(3);
        }
    };
    let code = runtime.block_on(commands::run(cli));
    // Background tasks (D-Bus readers, CDP sockets) must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    code
}
