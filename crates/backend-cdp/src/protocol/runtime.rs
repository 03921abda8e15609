//! The `Runtime` domain: evaluating scripts and calling functions on page objects (by value or
//! by handle), releasing handles, letting a held target run, and its console and exception
//! events (`log.rs`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Empty;

/// `Runtime.enable`: console calls and uncaught exceptions are reported as events (the ones
/// logged before it are replayed).
#[derive(Serialize)]
pub struct RuntimeEnable {}
command!(RuntimeEnable, "Runtime.enable", Empty);

/// `Runtime.evaluate`.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate<'a> {
    /// Source.
    pub expression: &'a str,
    /// A context (an isolated world); None is the page's main world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<i64>,
    /// Return JSON rather than a handle.
    pub return_by_value: bool,
    /// Wait for a returned promise.
    pub await_promise: bool,
    /// Treat as a user gesture (lets scripts open popups, play media).
    pub user_gesture: bool,
}
/// Reply of `Runtime.evaluate` and `Runtime.callFunctionOn`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    /// The value or handle.
    pub result: RemoteObject,
    /// Set when the script threw.
    pub exception_details: Option<ExceptionDetails>,
}
command!(Evaluate<'_>, "Runtime.evaluate", Evaluated);

/// `Runtime.callFunctionOn`.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CallFunctionOn<'a> {
    /// `function (…) { … }` source; `this` is the object.
    pub function_declaration: &'a str,
    /// The object `this` is bound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<&'a str>,
    /// Or a context to call in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<i64>,
    /// Arguments.
    pub arguments: Vec<CallArgument>,
    /// Return JSON rather than a handle.
    pub return_by_value: bool,
    /// Wait for a returned promise.
    pub await_promise: bool,
}
command!(CallFunctionOn<'_>, "Runtime.callFunctionOn", Evaluated);

/// An argument of `Runtime.callFunctionOn`: a JSON value or a remote object.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CallArgument {
    /// A JSON value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// A remote object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_id: Option<String>,
}

/// A value or handle in the page.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// The JSON value, when returned by value.
    pub value: Option<Value>,
    /// A handle, when returned by reference.
    pub object_id: Option<String>,
    /// A printable description.
    pub description: Option<String>,
    /// For values JSON cannot carry (`NaN`, `-0`, `Infinity`, bigints).
    pub unserializable_value: Option<String>,
}

/// Why a script threw.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExceptionDetails {
    /// Short text, e.g. `Uncaught`.
    pub text: String,
    /// The thrown value.
    pub exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// The most useful line: the exception's description or the text.
    pub fn message(&self) -> String {
        let d = self
            .exception
            .as_ref()
            .and_then(|e| e.description.clone())
            .unwrap_or_else(|| self.text.clone());
        d.lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect()
    }
}

/// `Runtime.releaseObject`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseObject<'a> {
    /// Handle.
    pub object_id: &'a str,
}
command!(ReleaseObject<'_>, "Runtime.releaseObject", Empty);

/// `Runtime.runIfWaitingForDebugger`: lets a held target run.
#[derive(Serialize)]
pub struct RunIfWaitingForDebugger {}
command!(
    RunIfWaitingForDebugger,
    "Runtime.runIfWaitingForDebugger",
    Empty
);
