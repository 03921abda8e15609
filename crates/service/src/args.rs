//! Decoding tool arguments: JSON in, a typed value out, or `invalid_args` naming the exact field
//! (`actions[2].count`) and what was wrong. Nothing reaches a backend before this succeeds.

use serde::de::DeserializeOwned;
use serde_json::Value;
use uidriver_core::Error;

/// Characters of a field path an error shows.
const MAX_PATH_CHARS: usize = 80;

/// Decodes `args` into `T`; unknown fields and wrong types are rejected naming the field.
pub fn decode<T: DeserializeOwned>(args: Value) -> Result<T, Error> {
    let args = match args {
        Value::Null => Value::Object(Default::default()),
        Value::Object(_) => args,
        other => {
            return Err(Error::invalid(
                "arguments",
                format!("expected a JSON object, got {}", kind(&other)),
            ))
        }
    };
    serde_path_to_error::deserialize::<_, T>(args).map_err(|e| {
        let path = e.path().to_string();
        // The path holds the caller's keys (an unknown field's name): shown shortened, like
        // the message (issue 14: the `tool_args` fuzz target found a 1 kB key echoed whole).
        let field = if path == "." || path.is_empty() {
            "arguments".to_string()
        } else if path.chars().count() > MAX_PATH_CHARS {
            let mut p: String = path.chars().take(MAX_PATH_CHARS).collect();
            p.push('…');
            p
        } else {
            path
        };
        Error::invalid(&field, clean(&e.into_inner().to_string()))
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde's messages are good but sometimes carry a trailing position; keep them short and never
/// echo long input back.
fn clean(msg: &str) -> String {
    let msg = msg.split(" at line ").next().unwrap_or(msg);
    let mut s: String = msg.chars().take(300).collect();
    if msg.chars().count() > 300 {
        s.push('…');
    }
    s
}
