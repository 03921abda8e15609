//! One MCP client session's trace: a record per call written as the call ends, with the
//! arguments redacted (policy secrets; text typed into password fields), and around each act
//! what a later replay and a reader need (the refs as role/name/path, the root, before/after
//! screenshots when the session read pixels or `--trace-screenshots` asked). The file is made
//! at the first call, so a session that only lists tools leaves nothing behind.

use std::collections::{HashMap, VecDeque};
use std::fs::{self, File};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use base64::Engine;
use serde_json::Value;
use uidriver_service::{private, redact_secrets, ToolName, ToolResult, REDACTED};

use super::capture;
use super::record::{outcome_of, Call, Client, Header, RootSeen, Target, FORMAT};
use super::store::{self, Limits, FILE};
use crate::caller::ToolCaller;

/// Text of a result kept in a record, in bytes (an outline of 2,000 lines is ~100 KB).
const TEXT_KEPT: usize = 64 << 10;
/// Structured results larger than this (serialized) are dropped from their record.
const STRUCTURED_KEPT: usize = 256 << 10;
/// Images of recent states kept in memory, to show as an act's "before".
const STATE_IMAGES: usize = 4;

/// How sessions are traced (`uidriver mcp`: `--no-trace`, `--trace-screenshots`, the policy).
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The traces directory ([`store::default_dir`]).
    pub dir: PathBuf,
    /// Size bounds.
    pub limits: Limits,
    /// Screenshots before and after every act, not only once the session read pixels.
    pub screenshots: bool,
    /// Values redacted from what is recorded (the policies' secrets).
    pub secrets: Vec<String>,
}

/// What one call needs recorded after it ends, gathered before it ran.
pub(crate) struct Pending {
    seq: u64,
    started: SystemTime,
    t0: Instant,
    root: Option<RootSeen>,
    targets: Vec<Target>,
    before: Option<Result<String, String>>,
}

/// The open trace file of a session.
struct Open {
    dir: PathBuf,
    file: File,
    bytes: u64,
}

/// What the session learnt from results: which root each state is of, how roots were listed,
/// whether pixels were read, the images of recent states.
#[derive(Default)]
struct Seen {
    state_root: HashMap<String, String>,
    roots: HashMap<String, RootSeen>,
    pixels: bool,
    images: VecDeque<(String, String)>,
}

/// A session's recorder.
pub(crate) struct Session {
    opts: Arc<TraceOptions>,
    transport: &'static str,
    seq: std::sync::atomic::AtomicU64,
    seen: Mutex<Seen>,
    /// `None` until the first record; `Err` once writing failed (the session goes on unrecorded).
    file: Arc<Mutex<Option<Result<Open, ()>>>>,
}

fn is_act(tool: &str) -> bool {
    matches!(
        ToolName::from_name(tool),
        Some(ToolName::ActUi | ToolName::DesktopInput)
    )
}

impl Session {
    pub(crate) fn new(opts: Arc<TraceOptions>, transport: &'static str) -> Session {
        Session {
            opts,
            transport,
            seq: std::sync::atomic::AtomicU64::new(1),
            seen: Mutex::new(Seen::default()),
            file: Arc::new(Mutex::new(None)),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Gathers, before `tool` runs, what its record needs from the state it acts on.
    pub(crate) async fn before(
        &self,
        caller: &dyn ToolCaller,
        tool: &str,
        args: &Value,
    ) -> Pending {
        let seq = self.seq.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut p = Pending {
            seq,
            started: SystemTime::now(),
            t0: Instant::now(),
            root: None,
            targets: Vec::new(),
            before: None,
        };
        if !is_act(tool) {
            return p;
        }
        let state = args["stateId"].as_str().unwrap_or_default().to_string();
        if tool == ToolName::ActUi.as_str() {
            for r in capture::refs_of(args) {
                p.targets.extend(capture::target(caller, &state, &r).await);
            }
            let (root_ref, known) = {
                let seen = self.seen();
                let r = seen.state_root.get(&state).cloned();
                let known = r.as_ref().and_then(|r| seen.roots.get(r).cloned());
                (r, known)
            };
            p.root = match (known, root_ref) {
                (Some(k), _) => Some(k),
                (None, Some(r)) => capture::root(caller, &r).await,
                (None, None) => None,
            };
        }
        let (wanted, image) = {
            let seen = self.seen();
            let image = seen.images.iter().find(|(s, _)| *s == state).cloned();
            (self.opts.screenshots || seen.pixels, image)
        };
        if wanted {
            p.before = Some(match image {
                Some((_, png)) => Ok(png),
                None => capture::screenshot(caller).await,
            });
        }
        p.t0 = Instant::now();
        p
    }

    /// Records the call `p` was gathered for, now that it answered `r`.
    pub(crate) async fn after(
        &self,
        caller: &dyn ToolCaller,
        client: Option<Client>,
        p: Pending,
        tool: &str,
        args: &Value,
        r: &ToolResult,
    ) {
        let ms = p.t0.elapsed().as_millis() as u64;
        self.learn(tool, args, r);
        let after = match (&p.before, r.images.first()) {
            (None, _) => None,
            (Some(_), Some(img)) if tool == ToolName::ActUi.as_str() => Some(Ok(img.data.clone())),
            (Some(_), _) => Some(capture::screenshot(caller).await),
        };
        let mut call = self.record(&p, tool, args, r, ms);
        let header = Header {
            kind: "session".into(),
            format: FORMAT,
            id: String::new(),
            started: store::rfc3339(p.started),
            transport: self.transport.into(),
            client,
            uidriver: env!("CARGO_PKG_VERSION").into(),
        };
        let (opts, file) = (self.opts.clone(), self.file.clone());
        let shots = [("before", p.before), ("after", after)];
        let write = tokio::task::spawn_blocking(move || {
            let mut guard = file.lock().unwrap_or_else(|e| e.into_inner());
            if guard.is_none() {
                *guard = Some(open(&opts, header).map_err(|e| {
                    tracing::warn!("cannot start a trace in {}: {e}", opts.dir.display());
                }));
            }
            let Some(Ok(open)) = guard.as_mut() else {
                return;
            };
            if let Err(e) = write_call(open, &opts.limits, &mut call, shots) {
                tracing::warn!("trace {}: {e}; recording stops", open.dir.display());
                *guard = Some(Err(()));
            }
        });
        let _ = write.await;
    }

    /// The record of a call, redacted and capped (screenshots are added when written).
    fn record(&self, p: &Pending, tool: &str, args: &Value, r: &ToolResult, ms: u64) -> Call {
        let mut args = args.clone();
        redact_typed_secrets(&mut args, &p.targets);
        redact_secrets(&mut args, &self.opts.secrets);
        let mut text = Value::String(r.text.clone());
        redact_secrets(&mut text, &self.opts.secrets);
        let mut structured = r.structured.clone();
        redact_secrets(&mut structured, &self.opts.secrets);
        let mut notes = Vec::new();
        let mut text = text.as_str().unwrap_or_default().to_string();
        if text.len() > TEXT_KEPT {
            notes.push(format!("text cut at {TEXT_KEPT} of {} bytes", text.len()));
            text.truncate(text.floor_char_boundary_compat(TEXT_KEPT));
        }
        let size = serde_json::to_string(&structured).map_or(0, |s| s.len());
        let outcome = outcome_of(&structured, r.is_error);
        if size > STRUCTURED_KEPT {
            notes.push(format!("structured result of {size} bytes not kept"));
            structured = Value::Null;
        }
        Call {
            kind: "call".into(),
            seq: p.seq,
            tool: tool.into(),
            started: store::rfc3339(p.started),
            ms,
            args,
            text,
            structured,
            is_error: r.is_error,
            outcome,
            images: r.images.len(),
            root: p.root.clone(),
            targets: p.targets.clone(),
            before: None,
            after: None,
            notes,
        }
    }

    /// Remembers what later records need from a result: states' roots, listed roots, images.
    fn learn(&self, tool: &str, args: &Value, r: &ToolResult) {
        let mut seen = self.seen();
        let s = &r.structured;
        if tool == ToolName::FindRoots.as_str() {
            for root in capture::roots_in(s) {
                seen.roots.insert(root.r.clone(), root);
            }
        }
        let base_root = args["stateId"]
            .as_str()
            .and_then(|b| seen.state_root.get(b).cloned());
        for state in [s, &s["successor"]] {
            let (Some(id), root) = (state["stateId"].as_str(), state["root"].as_str()) else {
                continue;
            };
            if let Some(root) = root.map(String::from).or(base_root.clone()) {
                seen.state_root.insert(id.to_string(), root);
            }
        }
        if let Some(img) = r.images.first() {
            seen.pixels = true;
            let state = s["successor"]["stateId"].as_str().or(s["stateId"].as_str());
            if let Some(state) = state {
                seen.images.push_back((state.to_string(), img.data.clone()));
                if seen.images.len() > STATE_IMAGES {
                    seen.images.pop_front();
                }
            }
        }
    }
}

/// Text and values of steps aimed at password fields become [`REDACTED`]. Steps that do not
/// read as steps (the call was refused, nothing sent) are kept whole only when the call names no
/// password field.
fn redact_typed_secrets(args: &mut Value, targets: &[Target]) {
    let secret = |r: &str| targets.iter().any(|t| t.secret && r == t.r.as_str());
    let Some(mut steps) = uidriver_core::action::steps_of(args) else {
        if targets.iter().any(|t| t.secret) {
            if let Some(a) = args.get_mut("actions") {
                *a = Value::String(REDACTED.into());
            }
        }
        return;
    };
    for step in &mut steps {
        if step.target.is_some_and(|e| secret(&e.to_string())) {
            if step.text.is_some() {
                step.text = Some(REDACTED.into());
            }
            if step.value.is_some() {
                step.value = Some(uidriver_core::action::Scalar::Text(REDACTED.into()));
            }
        }
    }
    uidriver_core::action::put_steps(args, &steps);
}

/// Makes the session's trace directory (after pruning old ones) and writes its header.
fn open(opts: &TraceOptions, mut header: Header) -> std::io::Result<Open> {
    // Traces hold what the user saw and typed: owner-only, whatever the umask.
    if let Some(parent) = opts.dir.parent().filter(|p| p.ends_with("uidriver")) {
        private::dir(parent)?;
    }
    private::dir(&opts.dir)?;
    for gone in store::prune(&opts.dir, &opts.limits, opts.limits.per_trace) {
        tracing::debug!("pruned trace {}", gone.display());
    }
    header.id = store::new_id(SystemTime::now());
    let dir = opts.dir.join(&header.id);
    fs::create_dir(&dir)?;
    private::dir(&dir)?;
    let mut file = private::file_options()
        .create_new(true)
        .append(true)
        .open(dir.join(FILE))?;
    let mut line = serde_json::to_vec(&header)?;
    line.push(b'\n');
    file.write_all(&line)?;
    Ok(Open {
        dir,
        file,
        bytes: line.len() as u64,
    })
}

/// Writes a call's screenshots (while the trace has room) and its line.
fn write_call(
    open: &mut Open,
    limits: &Limits,
    call: &mut Call,
    shots: [(&str, Option<Result<String, String>>); 2],
) -> std::io::Result<()> {
    for (when, shot) in shots {
        let png = match shot {
            None => continue,
            Some(Err(why)) => {
                call.notes.push(format!("{when}: {why}"));
                continue;
            }
            Some(Ok(b64)) => base64::engine::general_purpose::STANDARD.decode(b64),
        };
        let Ok(png) = png else {
            call.notes.push(format!("{when}: the image was not base64"));
            continue;
        };
        if open.bytes + png.len() as u64 > limits.per_trace {
            call.notes
                .push(format!("{when}: screenshot not kept (trace full)"));
            continue;
        }
        let name = format!("{:04}-{when}.png", call.seq);
        private::write(&open.dir.join(&name), &png)?;
        open.bytes += png.len() as u64;
        match when {
            "before" => call.before = Some(name),
            _ => call.after = Some(name),
        }
    }
    let mut line = serde_json::to_vec(&call)?;
    if open.bytes + line.len() as u64 > limits.per_trace {
        call.structured = Value::Null;
        call.text
            .truncate(call.text.floor_char_boundary_compat(2048));
        call.notes
            .push("trace full: structure dropped, text cut".into());
        line = serde_json::to_vec(&call)?;
    }
    line.push(b'\n');
    open.file.write_all(&line)?;
    open.bytes += line.len() as u64;
    Ok(())
}

/// `str::floor_char_boundary` (unstable on this toolchain).
trait FloorBoundary {
    fn floor_char_boundary_compat(&self, at: usize) -> usize;
}

impl FloorBoundary for String {
    fn floor_char_boundary_compat(&self, at: usize) -> usize {
        let mut i = at.min(self.len());
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_for_password_fields_is_redacted_and_other_steps_kept() {
        let mut args = json!({"stateId": "s1", "actions": [
            {"action": "typeText", "ref": "@e3", "text": "hunter2"},
            {"action": "typeText", "ref": "@e4", "text": "alice"}
        ]});
        let t = |r: &str, secret| Target {
            r: r.into(),
            role: "text".into(),
            name: None,
            path: None,
            nth: 0,
            secret,
        };
        redact_typed_secrets(&mut args, &[t("@e3", true), t("@e4", false)]);
        assert_eq!(args["actions"][0]["text"], REDACTED);
        assert_eq!(args["actions"][1]["text"], "alice");
        let mut other = json!({"app": "mousepad"});
        redact_typed_secrets(&mut other, &[]);
        assert_eq!(other, json!({"app": "mousepad"}), "no field is added");
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        let s = "ab€".to_string();
        assert_eq!(s.floor_char_boundary_compat(3), 2);
        assert_eq!(s.floor_char_boundary_compat(99), s.len());
    }
}
