//! Postconditions: what an `act_ui` call (or `wait_for`) expects to see, and the pure check of
//! a state against it. The waiting and re-observing loop is `watch.rs`; this file only judges.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::action::MAX_WAIT_MS;
use crate::error::{Error, Result};
use crate::ids::ElementRef;
use crate::state::State;
use crate::vocab::{Role, StateFlag};

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

/// A postcondition checked after the steps: text, role or value appears (or is `gone`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Expect {
    /// Text to appear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Role to appear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Value to have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Element to check.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub target: Option<ElementRef>,
    /// Only inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_ref: Option<ElementRef>,
    /// Wait for false.
    #[serde(default)]
    pub gone: bool,
    /// ms (default 3000, max 30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl Expect {
    /// Checks that the postcondition names something to look for.
    pub fn validate(&self) -> Result<()> {
        if self.text.is_none() && self.role.is_none() && self.value.is_none() {
            return Err(Error::invalid("expect", "needs text, role or value"));
        }
        if let Some(r) = &self.role {
            if crate::vocab::Role::from_wire(r).is_none() {
                return Err(Error::invalid(
                    "expect.role",
                    format!("unknown role {:?}", truncate(r)),
                ));
            }
        }
        if self.timeout_ms.is_some_and(|t| t > MAX_WAIT_MS) {
            return Err(Error::invalid(
                "expect.timeoutMs",
                format!("at most {MAX_WAIT_MS}"),
            ));
        }
        Ok(())
    }
    /// The timeout to use.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms.unwrap_or(3000))
    }
}

/// Whether `state` satisfies the condition (ignoring `gone`; see [`Expect::holds`]).
fn present(state: &State, e: &Expect) -> bool {
    let role = e.role.as_deref().and_then(Role::from_wire);
    let text = e.text.as_ref().map(|t| t.trim().to_lowercase());
    let value = e.value.as_ref().map(|v| v.trim().to_string());
    let candidates: Vec<usize> = match (e.target, e.scope_ref) {
        (Some(r), _) => match state.resolve(r) {
            Ok(i) => vec![i],
            Err(_) => return false,
        },
        (None, Some(s)) => match state.resolve(s) {
            Ok(i) => state.subtree(i),
            Err(_) => return false,
        },
        (None, None) => (0..state.len()).collect(),
    };
    candidates.into_iter().any(|i| {
        let n = &state.snapshot.nodes[i];
        if e.target.is_none() && n.has_state(StateFlag::Hidden) {
            return false;
        }
        if role.is_some_and(|r| n.role != r) {
            return false;
        }
        if let Some(v) = &value {
            let nv = n
                .numeric
                .map(|num| format_num(num.current))
                .or_else(|| n.value.known().map(|s| s.trim().to_string()));
            if nv.as_deref() != Some(v.as_str()) {
                return false;
            }
        }
        if let Some(t) = &text {
            let fields = [
                n.name.text(),
                n.value.text(),
                n.description.text(),
                n.visual_text.as_deref(),
            ];
            if !fields
                .iter()
                .flatten()
                .any(|f| f.to_lowercase().contains(t.as_str()))
            {
                return false;
            }
        }
        true
    })
}

fn format_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

impl Expect {
    /// Whether the postcondition holds in `state` (`gone` inverts it).
    pub fn holds(&self, state: &State) -> bool {
        present(state, self) != self.gone
    }

    /// A one-line description for results, e.g. `text "Saved" appears`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.text {
            parts.push(format!("text {}", crate::outline::quote(t, 60)));
        }
        if let Some(r) = &self.role {
            parts.push(format!("role {r}"));
        }
        if let Some(v) = &self.value {
            parts.push(format!("value {}", crate::outline::quote(v, 60)));
        }
        if let Some(r) = self.target {
            parts.push(format!("on {r}"));
        }
        if let Some(r) = self.scope_ref {
            parts.push(format!("inside {r}"));
        }
        format!(
            "{} {}",
            parts.join(", "),
            if self.gone { "is gone" } else { "is present" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expect_needs_a_condition() {
        assert!(Expect::default().validate().is_err());
        let e = Expect {
            text: Some("Saved".into()),
            ..Expect::default()
        };
        assert!(e.validate().is_ok());
        let e = Expect {
            role: Some("flying".into()),
            ..Expect::default()
        };
        assert!(e.validate().is_err());
    }
}
