//! The records of a trace file, one JSON object a line: a session header first, then one record
//! per call. `uidriver trace list | view | replay` read them back, so this file is the format's
//! one definition; how records are written and bounded is `store.rs`'s and `session.rs`'s job.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Version of the record format; a reader refuses a trace whose header names another.
pub const FORMAT: u32 = 1;

/// The first line of a trace: which session it is.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// Always `"session"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// [`FORMAT`].
    pub format: u32,
    /// The trace id (its directory's name).
    pub id: String,
    /// When the session's first call came, RFC 3339 UTC.
    pub started: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The MCP client's name and version from its `initialize` (when it sent one).
    pub client: Option<Client>,
    /// The uidriver version that recorded it.
    pub uidriver: String,
}

/// Who the client said it was.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Client {
    /// `clientInfo.name`.
    pub name: String,
    /// `clientInfo.version`.
    pub version: String,
}

/// One tool call: what was asked, what came back, and how long it took.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// Always `"call"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Order of arrival in the session, from 1 (records are written as calls end).
    pub seq: u64,
    /// The tool.
    pub tool: String,
    /// When the call came, RFC 3339 UTC.
    pub started: String,
    /// Milliseconds the call took (not counting what the trace captured around it).
    pub ms: u64,
    /// The arguments, with secrets and text typed into password fields redacted.
    pub args: Value,
    /// The text the model read (capped).
    pub text: String,
    /// The structured result (`null` when it was too large to keep).
    pub structured: Value,
    /// Whether the call answered an error.
    pub is_error: bool,
    /// `act_ui`'s outcome (`worked`, `didnt`, `unknown`), an error's code, or `ok`.
    pub outcome: String,
    /// Images the result carried.
    pub images: usize,
    /// For an `act_ui`: the root its state was of, so a replay can find it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<RootSeen>,
    /// For an `act_ui`: each ref it named, as found in its state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<Target>,
    /// PNG file (beside the trace file) of the screen before an act.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// PNG file of the screen after an act.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// What the trace could not keep (text cut, structure dropped, a screenshot missing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The root of an act's state, as `find_roots` showed it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RootSeen {
    /// Its ref in the recorded session (meaningless later).
    #[serde(rename = "ref")]
    pub r: String,
    /// Application name.
    pub app: String,
    /// `window`, `dialog`, `browser_page`, ….
    pub kind: String,
    /// Title.
    pub title: String,
}

/// An element an act named, by what stays true across sessions: role, name and the ancestor
/// path (`search_ui`'s `path`), and which of the elements sharing all three it was.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Target {
    /// The ref in the recorded state.
    #[serde(rename = "ref")]
    pub r: String,
    /// Canonical role.
    pub role: String,
    /// Accessible name, when it had one.
    pub name: Option<String>,
    /// Names of its ancestors, outermost first (`None`: the state's search did not reach it).
    pub path: Option<String>,
    /// Index among the elements of the state with the same role, name and path.
    pub nth: usize,
    /// A password field: text typed into it is redacted.
    pub secret: bool,
}

/// A line of a trace file.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// The session header.
    Header(Header),
    /// A call.
    Call(Box<Call>),
}

/// Parses one line; `None` for a line of another kind or an unreadable one (a trace cut off
/// mid-line by a crash keeps its earlier records).
pub fn parse_line(line: &str) -> Option<Line> {
    let v: Value = serde_json::from_str(line).ok()?;
    match v.get("type")?.as_str()? {
        "session" => serde_json::from_value(v).ok().map(Line::Header),
        "call" => serde_json::from_value(v)
            .ok()
            .map(|c| Line::Call(Box::new(c))),
        _ => None,
    }
}

/// The outcome word of a result: `act_ui`'s `outcome`, else an error's code, else `ok`.
pub fn outcome_of(structured: &Value, is_error: bool) -> String {
    if let Some(o) = structured.get("outcome").and_then(Value::as_str) {
        return o.to_string();
    }
    if is_error {
        return structured
            .pointer("/error/code")
            .and_then(Value::as_str)
            .unwrap_or("error")
            .to_string();
    }
    "ok".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_round_trip_and_a_torn_line_is_skipped() {
        let h = Header {
            kind: "session".into(),
            format: FORMAT,
            id: "t1".into(),
            started: "2026-12-03T01:00:00Z".into(),
            transport: "stdio".into(),
            client: Some(Client {
                name: "c".into(),
                version: "1".into(),
            }),
            uidriver: "0.1.0".into(),
        };
        let text = serde_json::to_string(&h).unwrap();
        assert_eq!(parse_line(&text), Some(Line::Header(h)));
        assert_eq!(parse_line(&text[..text.len() / 2]), None);
        assert_eq!(parse_line(r#"{"type":"other"}"#), None);
    }

    #[test]
    fn the_outcome_is_the_acts_then_the_errors_code() {
        assert_eq!(outcome_of(&json!({"outcome": "didnt"}), true), "didnt");
        assert_eq!(
            outcome_of(&json!({"error": {"code": "stale_state"}}), true),
            "stale_state"
        );
        assert_eq!(outcome_of(&json!({"roots": []}), false), "ok");
    }
}
