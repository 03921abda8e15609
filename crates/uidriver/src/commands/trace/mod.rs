//! `uidriver trace list | view | replay`: reading back the traces `uidriver mcp` records of its
//! sessions (format and storage: `transports/src/trace/`). `view.rs` renders one as HTML,
//! `replay.rs` runs its acts again.

mod replay;
mod view;

use uidriver_transports::trace;

use super::exit;
use crate::cli::{TraceAction, TraceArgs};

pub async fn run(a: TraceArgs) -> u8 {
    match a.action {
        TraceAction::List { json } => list(json),
        TraceAction::View { id, output } => view::run(&id, &output),
        TraceAction::Replay { id, json, service } => replay::run(&id, json, &service).await,
    }
}

/// Prints the traces, oldest first: a line each, or a JSON array.
fn list(json: bool) -> u8 {
    let dir = trace::default_dir();
    let traces = trace::list(&dir);
    if json {
        match serde_json::to_string_pretty(&traces) {
            Ok(s) => super::say(&s),
            Err(e) => {
                eprintln!("uidriver trace list: {e}");
                return exit::UNAVAILABLE;
            }
        }
        return exit::OK;
    }
    if traces.is_empty() {
        super::say(&format!("no traces in {}", dir.display()));
        return exit::OK;
    }
    for t in &traces {
        super::say(&format!(
            "{}  {}  {} ({})  {} calls, {} acts  {} KB",
            t.id,
            t.started,
            t.client,
            t.transport,
            t.calls,
            t.acts,
            t.bytes.div_ceil(1024)
        ));
    }
    exit::OK
}

/// Reads a trace by id, or says why not (and where `list` looks).
fn read(cmd: &str, id: &str) -> Result<trace::Trace, u8> {
    let dir = trace::default_dir();
    trace::read(&dir, id).map_err(|e| {
        eprintln!(
            "uidriver trace {cmd}: cannot read trace {id:?} in {}: {e}\nhint: `uidriver trace list` shows the ids",
            dir.display()
        );
        exit::USAGE
    })
}
