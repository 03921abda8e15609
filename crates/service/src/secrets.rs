//! The one rule for secrets, whatever backend read the tree: a password field's text is never
//! shown or read. Its value becomes `••••` when it holds anything (so an agent can tell a
//! filled field from an empty one) and `read_text` refuses it. Backends must not read the
//! characters in the first place (AT-SPI and the page walker report only whether there are
//! any); this is the guarantee above them.
//!
//! A policy's `[secrets]` adds literal values: wherever one appears in a result (text,
//! structured fields, error messages, OCR lines), it becomes [`REDACTED`] before the result
//! leaves the service. Pixels of attached images are not redacted.

use serde_json::Value;
use uidriver_core::{Evidence, Node, Snapshot};

use crate::ToolResult;

/// What a filled secret shows (also what a trace keeps of a secret).
pub const REDACTED: &str = "••••";

/// Whether `node` holds a secret (core's one rule).
pub(crate) fn is_secret(node: &Node) -> bool {
    node.is_secret()
}

/// Replaces every secret's value by [`REDACTED`] (or nothing when empty).
pub(crate) fn redact(snapshot: &mut Snapshot) {
    for n in snapshot.nodes.iter_mut().filter(|n| is_secret(n)) {
        if let Evidence::Known(v) = &n.value {
            if !v.is_empty() && v != REDACTED {
                n.value = Evidence::Known(REDACTED.to_string());
            }
        }
        n.text_len = None;
    }
}

/// Replaces every occurrence of each of `secrets` in the result's text and in every string of
/// its structured content by [`REDACTED`]. Longer secrets go first, so one that contains
/// another is hidden whole.
pub(crate) fn redact_values(result: &mut ToolResult, secrets: &[String]) {
    let mut text = Value::String(std::mem::take(&mut result.text));
    redact_secrets(&mut text, secrets);
    if let Value::String(t) = text {
        result.text = t;
    }
    redact_secrets(&mut result.structured, secrets);
}

/// Replaces every occurrence of each of `secrets` in every string of `value` (keys stay) by
/// [`REDACTED`], longer secrets first. The one redaction of literal secrets: results here, and
/// what a trace keeps of a call's arguments (`transports/src/trace/`).
pub fn redact_secrets(value: &mut Value, secrets: &[String]) {
    if secrets.is_empty() {
        return;
    }
    let mut ordered: Vec<&str> = secrets.iter().map(String::as_str).collect();
    ordered.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let hide = |text: &mut String| {
        for s in &ordered {
            if text.contains(s) {
                *text = text.replace(s, REDACTED);
            }
        }
    };
    redact_json(value, &hide);
}

fn redact_json(v: &mut Value, hide: &impl Fn(&mut String)) {
    match v {
        Value::String(s) => hide(s),
        Value::Array(items) => items.iter_mut().for_each(|i| redact_json(i, hide)),
        Value::Object(map) => map.values_mut().for_each(|i| redact_json(i, hide)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidriver_core::Role;

    #[test]
    fn policy_secrets_are_hidden_in_text_fields_and_errors() {
        let mut r = ToolResult {
            text: "token sk-abc and sk-abcdef".into(),
            structured: serde_json::json!({"nodes": [{"name": "key sk-abcdef"}], "n": 3}),
            images: vec![],
            is_error: false,
        };
        redact_values(&mut r, &["sk-abc".into(), "sk-abcdef".into()]);
        assert_eq!(r.text, format!("token {REDACTED} and {REDACTED}"));
        assert_eq!(r.structured["nodes"][0]["name"], format!("key {REDACTED}"));
        assert_eq!(r.structured["n"], 3);
        let mut e = ToolResult::error(&uidriver_core::Error::internal("saw sk-abc"));
        redact_values(&mut e, &["sk-abc".into()]);
        assert!(!e.text.contains("sk-abc") && !e.structured.to_string().contains("sk-abc"));
    }

    #[test]
    fn a_password_value_never_survives_a_look() {
        let mut s = Snapshot::default();
        let mut pw = Node {
            role: Role::PasswordText,
            value: Evidence::Known("hunter2".into()),
            text_len: Some(7),
            ..Node::default()
        };
        let plain = Node {
            role: Role::Text,
            value: Evidence::Known("visible".into()),
            ..Node::default()
        };
        pw.parent = None;
        s.nodes = vec![pw, plain];
        redact(&mut s);
        assert_eq!(s.nodes[0].value, Evidence::Known(REDACTED.into()));
        assert_eq!(s.nodes[0].text_len, None);
        assert_eq!(s.nodes[1].value, Evidence::Known("visible".into()));
    }
}
