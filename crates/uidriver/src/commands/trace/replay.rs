//! `uidriver trace replay ID`: a trace's `act_ui` calls run again, in order, on the desktop
//! as it is now, through the daemon. Refs of the recorded session mean nothing here, so each
//! act's root is found again by app, kind and title, observed afresh, and each element it
//! named by role, name and ancestor path (and which of equal ones it was), exactly as the
//! recorder wrote them down (`transports/src/trace/capture.rs`). The first act that cannot be
//! set up, or whose outcome (overall or of a step) differs from the recorded one, is the
//! divergence: replay stops there and says why. Other acting tools (raw input, navigation)
//! are not replayed, and listed as such.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use uidriver_service::{ToolName, REDACTED};
use uidriver_transports::trace::{same_elements, Call, RootSeen};
use uidriver_transports::ToolCaller;

use super::super::daemon::connect;
use super::super::{exit, say};
use crate::cli::ServiceFlags;

/// How long an act's root may take to show up (a dialog the previous act opened).
const ROOT_WAIT: Duration = Duration::from_secs(8);

/// Whether a recorded call of `tool` is one of `act_ui`'s, the calls replay runs again.
fn is_act(tool: &str) -> bool {
    tool == ToolName::ActUi.as_str()
}

/// Whether a recorded call of `tool` changed something (the registry does not say the tool
/// only reads) but is not replayed: every acting tool but `act_ui`.
fn not_replayed(tool: &str) -> bool {
    ToolName::from_name(tool).is_some_and(|t| t != ToolName::ActUi && !t.read_only())
}

/// Where the replay left the recorded path.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Divergence {
    /// The recorded call's `seq`.
    seq: u64,
    /// The step, when a step's outcome differed.
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<usize>,
    /// What went differently.
    reason: String,
}

/// The replay's report.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    trace: String,
    /// `act_ui` calls in the trace.
    acts: usize,
    /// Of which replayed with the recorded outcome.
    matched: usize,
    /// Other acting calls, not replayed: `#seq tool`.
    not_replayed: Vec<String>,
    divergence: Option<Divergence>,
}

pub async fn run(id: &str, json: bool, flags: &ServiceFlags) -> u8 {
    let mut t = match super::read("replay", id) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let policy = match super::super::policy::load("trace replay", flags) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let client = match connect(flags, policy, 600, "uidriver trace replay").await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("uidriver trace replay: {e}");
            return exit::UNAVAILABLE;
        }
    };
    t.calls.sort_by_key(|c| c.seq);
    let mut report = Report {
        trace: t.header.id.clone(),
        acts: t.calls.iter().filter(|c| is_act(&c.tool)).count(),
        matched: 0,
        not_replayed: t
            .calls
            .iter()
            .filter(|c| not_replayed(&c.tool))
            .map(|c| format!("#{} {}", c.seq, c.tool))
            .collect(),
        divergence: None,
    };
    for c in t.calls.iter().filter(|c| is_act(&c.tool)) {
        match replay_one(&client, c).await {
            Ok(outcome) => {
                report.matched += 1;
                if !json {
                    say(&format!("#{} act_ui: {outcome}, as recorded", c.seq));
                }
            }
            Err(d) => {
                report.divergence = Some(d);
                break;
            }
        }
    }
    print_report(&report, json);
    if report.divergence.is_some() {
        exit::TOOL_ERROR
    } else {
        exit::OK
    }
}

fn print_report(r: &Report, json: bool) {
    if json {
        say(&serde_json::to_string_pretty(r).unwrap_or_default());
        return;
    }
    if !r.not_replayed.is_empty() {
        say(&format!("not replayed: {}", r.not_replayed.join(", ")));
    }
    match &r.divergence {
        None => say(&format!(
            "replayed {} of {} acts of trace {}: no divergence",
            r.matched, r.acts, r.trace
        )),
        Some(d) => say(&format!(
            "diverged at #{}{}: {} ({} of {} acts matched before)",
            d.seq,
            d.step.map(|s| format!(" step {s}")).unwrap_or_default(),
            d.reason,
            r.matched,
            r.acts
        )),
    }
}

/// Replays one act; its outcome when it matched the recorded one.
async fn replay_one(caller: &dyn ToolCaller, c: &Call) -> Result<String, Divergence> {
    let diverge = |step: Option<usize>, reason: String| Divergence {
        seq: c.seq,
        step,
        reason,
    };
    if c.args.to_string().contains(REDACTED) {
        return Err(diverge(
            None,
            "the trace redacted a value of this act (a secret or a password field's text), so it cannot be typed again".into(),
        ));
    }
    let recorded = c.root.as_ref().ok_or_else(|| {
        diverge(
            None,
            "the trace does not say which root this act was on".into(),
        )
    })?;
    let root = find_root(caller, recorded)
        .await
        .map_err(|why| diverge(None, why))?;
    let points = uidriver_core::action::steps_of(&c.args)
        .is_some_and(|steps| steps.iter().any(|s| s.x.is_some()));
    let mode = if points { "visual" } else { "semantic" };
    let seen = caller
        .call(
            ToolName::ObserveUi.as_str(),
            json!({ "root": root, "mode": mode }),
        )
        .await;
    let Some(state) = seen.structured["stateId"].as_str().map(String::from) else {
        return Err(diverge(
            None,
            format!("observing {root}: {}", first_line(&seen.text)),
        ));
    };
    let mut args = c.args.clone();
    args["stateId"] = json!(state);
    let mut renamed: Vec<(String, String)> = Vec::new();
    for target in &c.targets {
        let same = same_elements(caller, &state, &target.role, target.name.as_deref(), None).await;
        let Some(now) = pick(&same, target.path.as_deref(), target.nth) else {
            return Err(diverge(
                None,
                format!(
                    "no {} “{}” in {} now ({} of that role and name, the trace used #{})",
                    target.role,
                    target.name.as_deref().unwrap_or(""),
                    target.path.as_deref().unwrap_or("the root"),
                    same.len(),
                    target.nth + 1
                ),
            ));
        };
        renamed.push((target.r.clone(), now.to_string()));
    }
    rename_refs(&mut args, &renamed);
    let r = caller.call(ToolName::ActUi.as_str(), args).await;
    let outcome = r.structured["outcome"]
        .as_str()
        .unwrap_or("error")
        .to_string();
    let steps = |v: &Value| -> Vec<String> {
        v["steps"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s["outcome"].as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let (was, now) = (steps(&c.structured), steps(&r.structured));
    if let Some(i) = (0..was.len().max(now.len())).find(|&i| was.get(i) != now.get(i)) {
        return Err(diverge(
            Some(i),
            format!(
                "step {i} {} now, {} when recorded: {}",
                now.get(i).map_or("did not run", String::as_str),
                was.get(i).map_or("did not run", String::as_str),
                first_line(&r.text)
            ),
        ));
    }
    if outcome != c.outcome {
        return Err(diverge(
            None,
            format!(
                "outcome {outcome} now, {} when recorded: {}",
                c.outcome,
                first_line(&r.text)
            ),
        ));
    }
    Ok(outcome)
}

/// The ref among `same` (elements with the recorded role and name) that is the recorded one:
/// the `nth` with the same ancestor path, else the `nth` whose path agrees below its first
/// label (the root's own, which changes with a window title: "*Untitled 1 - Mousepad" once
/// edited; the root itself was matched by `find_root`).
fn pick<'a>(same: &'a [Value], path: Option<&str>, nth: usize) -> Option<&'a str> {
    fn below(p: Option<&str>) -> Option<&str> {
        p.map(|p| p.split_once(" › ").map_or("", |(_, rest)| rest))
    }
    let exact: Vec<&Value> = same
        .iter()
        .filter(|m| path.is_none() || m["path"].as_str() == path)
        .collect();
    let loose: Vec<&Value> = same
        .iter()
        .filter(|m| below(m["path"].as_str()) == below(path))
        .collect();
    exact
        .get(nth)
        .or_else(|| loose.get(nth))
        .and_then(|m| m["ref"].as_str())
}

/// The root now showing what `recorded` showed: same app, kind and title, else the only root
/// of that app and kind; waited for up to [`ROOT_WAIT`].
async fn find_root(caller: &dyn ToolCaller, recorded: &RootSeen) -> Result<String, String> {
    let t0 = Instant::now();
    loop {
        let listed = caller.call(ToolName::FindRoots.as_str(), json!({})).await;
        let roots = listed.structured["roots"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let same =
            |r: &Value| r["app"] == recorded.app.as_str() && r["kind"] == recorded.kind.as_str();
        let exact: Vec<&Value> = roots
            .iter()
            .filter(|r| same(r) && r["title"] == recorded.title.as_str())
            .collect();
        let alike: Vec<&Value> = roots.iter().filter(|r| same(r)).collect();
        let pick = match (exact.as_slice(), alike.as_slice()) {
            ([one, ..], _) | ([], [one]) => one["ref"].as_str().map(String::from),
            _ => None,
        };
        if let Some(r) = pick {
            return Ok(r);
        }
        if t0.elapsed() > ROOT_WAIT {
            return Err(format!(
                "no {} “{}” of {} on this desktop ({} roots of that app and kind)",
                recorded.kind,
                recorded.title,
                recorded.app,
                alike.len()
            ));
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Replaces each recorded ref by its counterpart now, in steps and the expect, all at once
/// (a new ref may be another recorded one's old name).
fn rename_refs(args: &mut Value, renamed: &[(String, String)]) {
    let swap = |v: &mut Value| {
        let now = renamed.iter().find(|(from, _)| v == from.as_str());
        if let Some((_, to)) = now {
            *v = json!(to);
        }
    };
    if let Some(mut steps) = uidriver_core::action::steps_of(args) {
        for step in &mut steps {
            let now = step.target.and_then(|e| {
                let was = e.to_string();
                renamed.iter().find(|(from, _)| *from == was)
            });
            if let Some((_, to)) = now {
                step.target = to.parse().ok();
            }
        }
        uidriver_core::action::put_steps(args, &steps);
    }
    if let Some(e) = args.get_mut("expect") {
        for k in ["ref", "scopeRef"] {
            if let Some(r) = e.get_mut(k) {
                swap(r);
            }
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_element_is_picked_by_path_then_by_its_path_below_the_root() {
        let same = vec![
            json!({"ref": "@e1", "path": "window \"A\" › panel \"P\""}),
            json!({"ref": "@e2", "path": "window \"*A\" › panel \"Q\""}),
            json!({"ref": "@e3", "path": "window \"*A\" › panel \"Q\""}),
        ];
        assert_eq!(
            pick(&same, Some("window \"A\" › panel \"P\""), 0),
            Some("@e1")
        );
        assert_eq!(
            pick(&same, Some("window \"A\" › panel \"Q\""), 1),
            Some("@e3")
        );
        assert_eq!(pick(&same, Some("window \"A\" › panel \"Q\""), 2), None);
        assert_eq!(pick(&same, Some("window \"A\" › panel \"R\""), 0), None);
    }

    #[test]
    fn acting_calls_but_act_ui_are_listed_as_not_replayed() {
        for t in [
            "desktop_input",
            "navigate_browser",
            "close_root",
            "save_browser_state",
        ] {
            assert!(not_replayed(t), "{t}");
        }
        for t in ["act_ui", "observe_ui", "wait_for", "no_such_tool"] {
            assert!(!not_replayed(t), "{t}");
        }
    }

    #[test]
    fn refs_are_renamed_in_steps_and_the_expect_only() {
        let mut a = json!({"stateId": "s9", "actions": [
            {"action": "press", "ref": "@e2"}, {"action": "typeText", "ref": "@e3", "text": "@e2"}
        ], "expect": {"scopeRef": "@e2", "text": "x"}});
        let map = [
            ("@e2".to_string(), "@e3".to_string()),
            ("@e3".to_string(), "@e7".to_string()),
        ];
        rename_refs(&mut a, &map);
        assert_eq!(a["actions"][0]["ref"], "@e3");
        assert_eq!(a["actions"][1]["ref"], "@e7");
        assert_eq!(a["actions"][1]["text"], "@e2");
        assert_eq!(a["expect"]["scopeRef"], "@e3");
    }
}
