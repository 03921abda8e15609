//! The one published error catalogue: every code with its meaning, retry advice and hint,
//! plus the error value that carries a code, a message and whether input was delivered.
//!
//! `docs/errors.md` is checked against [`ErrorCode::catalogue_markdown`] by a test, so the
//! code, the hints and the docs cannot drift apart. Backends map their own errors to a code in
//! one `From` impl each; nothing else invents codes.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Delivery;

/// A public error code.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// Arguments failed validation.
    InvalidArgs,
    /// The state is unknown, evicted, from an earlier daemon, or older than the resource's epoch.
    StaleState,
    /// The element ref is not in the state, or its element is gone.
    StaleRef,
    /// More than one element matches where one was required.
    AmbiguousTarget,
    /// The root is unknown or no longer exists.
    RootNotFound,
    /// The target closed (during or before the call).
    TargetClosed,
    /// The step needs foreground input that the policy or the platform does not allow.
    ForegroundRequired,
    /// The `expect` postcondition did not become true.
    PostconditionFailed,
    /// The operation ran out of time.
    Timeout,
    /// The application does not answer.
    AppUnresponsive,
    /// The backend cannot do this.
    NotSupported,
    /// The screen changed since the image the coordinates refer to.
    GuiFrameStale,
    /// A policy forbids this.
    PolicyDenied,
    /// The backend needed for this is not available.
    BackendUnavailable,
    /// The caller cancelled the call (MCP `notifications/cancelled`, the daemon's `cancel`).
    Cancelled,
    /// A bug in uidriver.
    Internal,
}

/// One catalogue row.
#[derive(Copy, Clone, Debug)]
pub struct CodeInfo {
    /// Wire name.
    pub name: &'static str,
    /// What it means.
    pub meaning: &'static str,
    /// Whether and how to retry.
    pub retry: &'static str,
    /// What to do next.
    pub hint: &'static str,
}

impl ErrorCode {
    /// Every code, in catalogue order.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidArgs,
        ErrorCode::StaleState,
        ErrorCode::StaleRef,
        ErrorCode::AmbiguousTarget,
        ErrorCode::RootNotFound,
        ErrorCode::TargetClosed,
        ErrorCode::ForegroundRequired,
        ErrorCode::PostconditionFailed,
        ErrorCode::Timeout,
        ErrorCode::AppUnresponsive,
        ErrorCode::NotSupported,
        ErrorCode::GuiFrameStale,
        ErrorCode::PolicyDenied,
        ErrorCode::BackendUnavailable,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
    ];

    /// The catalogue row: the single place a code's words live.
    pub fn info(self) -> CodeInfo {
        let (name, meaning, retry, hint) = match self {
            ErrorCode::InvalidArgs => (
                "invalid_args",
                "The arguments failed validation; nothing was sent to any application.",
                "Do not retry unchanged.",
                "Fix the field named in the message; the tool's input schema lists every field.",
            ),
            ErrorCode::StaleState => (
                "stale_state",
                "The stateId is unknown, was evicted, comes from an earlier daemon, or another write to the same application happened after it was observed.",
                "Safe to retry after a new observation.",
                "Call observe_ui on the root again and use the new stateId.",
            ),
            ErrorCode::StaleRef => (
                "stale_ref",
                "The element ref does not exist in this state, or its element no longer exists.",
                "Safe to retry after a new observation.",
                "Observe again (or search_ui in the newest state) and use a ref from that state.",
            ),
            ErrorCode::AmbiguousTarget => (
                "ambiguous_target",
                "More than one element or root matches where exactly one is needed.",
                "Retry with a narrower target.",
                "Use a ref instead of text, or add role or app filters.",
            ),
            ErrorCode::RootNotFound => (
                "root_not_found",
                "The root ref is unknown or its window or page no longer exists.",
                "Safe to retry after find_roots.",
                "Call find_roots and pick a current root.",
            ),
            ErrorCode::TargetClosed => (
                "target_closed",
                "The window, dialog or page closed; its states can no longer be acted on.",
                "Do not replay the action; it may have caused the close.",
                "Call find_roots; a successor root may be listed.",
            ),
            ErrorCode::ForegroundRequired => (
                "foreground_required",
                "The step needs real pointer or keyboard input (or focus), which the headless policy forbids or the platform refused; nothing was sent.",
                "Retry with headless: false if moving the pointer and focus is acceptable.",
                "Use a semantic step (press, setText, setValue) or allow foreground input.",
            ),
            ErrorCode::PostconditionFailed => (
                "postcondition_failed",
                "The steps were delivered but the expected text, role or value did not appear (or disappear) in time.",
                "Do not replay blindly: observe first, the action may have had another effect.",
                "Look at the successor state in the result to see what did change.",
            ),
            ErrorCode::Timeout => (
                "timeout",
                "The operation did not finish within its deadline.",
                "Check delivery before retrying: input may have been sent.",
                "Raise timeoutMs, or observe to see the current state.",
            ),
            ErrorCode::AppUnresponsive => (
                "app_unresponsive",
                "The application did not answer accessibility calls in time (it may be busy or stopped).",
                "Retry later; other applications are not affected.",
                "Look again in a moment (observe_ui with timeoutMs above 8000 waits for a busy app), or check whether the application is frozen.",
            ),
            ErrorCode::NotSupported => (
                "not_supported",
                "The backend or element cannot perform this operation.",
                "Do not retry unchanged.",
                "Try another step kind (e.g. click instead of press), or another mode.",
            ),
            ErrorCode::GuiFrameStale => (
                "gui_frame_stale",
                "The screen changed since the image the coordinates refer to (window moved, resized or covered); nothing was sent.",
                "Safe to retry with coordinates from a fresh image.",
                "Observe again (mode visual or fused) or take a new desktop_screenshot.",
            ),
            ErrorCode::PolicyDenied => (
                "policy_denied",
                "A policy forbids this: a rule of a --policy file (the message names the rule and the file), the daemon's evaluate switch, or the file roots (a path or file:// URL outside the MCP client's roots, else the working directory; the message names the path and where the roots came from). A denied call sends nothing; a result showing a denied app or origin, or a local file outside the roots (a page that navigated there), is withheld, its delivery says what ran.",
                "Do not retry unchanged or work around it.",
                "Use an allowed tool, target or file, or ask the user to change the policy (`uidriver policy check FILE` shows what it allows; evaluate_browser also needs --allow-evaluate; files outside the roots need --allow-unrestricted-file-access or `[files] unrestricted = true`).",
            ),
            ErrorCode::BackendUnavailable => (
                "backend_unavailable",
                "The backend this call needs is not available (no display, no accessibility bus, no browser).",
                "Retry after fixing the environment.",
                "Run `uidriver doctor`; `uidriver sandbox` starts a private desktop.",
            ),
            ErrorCode::Cancelled => (
                "cancelled",
                "The caller cancelled the call; it stopped at the next safe point (between two steps of a batch, or at once for a call that only reads). What ran before is reported: an act's steps that were sent keep their delivery, the step refused for the cancellation and those after it were not sent.",
                "Safe to call again: nothing was sent after the cancellation. Observe first if earlier steps were delivered.",
                "Observe to see the state the delivered steps left; call again with a longer patience if the cancel was a timeout of yours.",
            ),
            ErrorCode::Internal => (
                "internal",
                "An internal error in uidriver.",
                "Check delivery before retrying.",
                "Report it with the daemon log (stderr).",
            ),
        };
        CodeInfo {
            name,
            meaning,
            retry,
            hint,
        }
    }

    /// Wire name.
    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    /// The catalogue as a Markdown table (what `docs/errors.md` contains).
    pub fn catalogue_markdown() -> String {
        let mut s = String::from("| code | meaning | retry | hint |\n| --- | --- | --- | --- |\n");
        for c in ErrorCode::ALL {
            let i = c.info();
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                i.name, i.meaning, i.retry, i.hint
            ));
        }
        s
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with its public code, whether input was delivered, and a hint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Error {
    /// The catalogued code.
    pub code: ErrorCode,
    /// What happened, specifically. Never contains typed text or field values.
    pub message: String,
    /// What to do next; defaults to the catalogue's hint.
    pub hint: String,
    /// Whether input reached an application.
    pub delivery: Delivery,
    /// Extra structured facts (e.g. `reason: evicted`, `cause: closed`): always an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub details: Option<serde_json::Value>,
}

impl Error {
    /// An error that sent nothing.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            hint: code.info().hint.to_string(),
            delivery: Delivery::NotDelivered,
            details: None,
        }
    }
    /// Sets the delivery disposition.
    pub fn delivered(mut self, d: Delivery) -> Self {
        self.delivery = d;
        self
    }
    /// Replaces the catalogue hint with a more specific one.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self
    }
    /// Attaches structured details.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }
    /// `invalid_args` naming a field.
    pub fn invalid(field: &str, why: impl fmt::Display) -> Self {
        Error::new(ErrorCode::InvalidArgs, format!("{field}: {why}"))
    }
    /// `not_supported`.
    pub fn unsupported(what: impl Into<String>) -> Self {
        Error::new(ErrorCode::NotSupported, what)
    }
    /// `internal`.
    pub fn internal(what: impl Into<String>) -> Self {
        Error::new(ErrorCode::Internal, what)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Result with a core [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_distinct_name_and_text() {
        let mut names = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            let i = c.info();
            assert!(names.insert(i.name));
            assert!(!i.meaning.is_empty() && !i.retry.is_empty() && !i.hint.is_empty());
            let wire = serde_json::to_value(c).unwrap();
            assert_eq!(wire, serde_json::Value::String(i.name.into()));
        }
    }
}
