//! The envelopes of the wire: a [`Request`] going out, an [`Incoming`] reply or event coming
//! in (routed by `client.rs`), and an [`Event`] as subscribers receive it.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// An outgoing message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request<'a, P: Serialize> {
    /// Correlates the reply.
    pub id: u64,
    /// The method.
    pub method: &'static str,
    /// The params.
    pub params: &'a P,
    /// The flattened session of a page, or none for the browser.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<&'a str>,
}

/// An incoming message: a reply (with `id`) or an event (with `method`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Incoming {
    /// Set on replies.
    pub id: Option<u64>,
    /// Set on events.
    pub method: Option<String>,
    /// The session an event or reply belongs to.
    pub session_id: Option<String>,
    /// A successful reply.
    pub result: Option<Box<RawValue>>,
    /// A failed reply.
    pub error: Option<ProtocolError>,
    /// An event's params, undecoded: only the subscriber that wants them decodes them
    /// (`dialog_state.rs` reads the dialog events').
    pub params: Option<Box<RawValue>>,
}

/// The error of a failed reply.
#[derive(Debug, Clone, Deserialize)]
pub struct ProtocolError {
    /// JSON-RPC style code.
    pub code: i64,
    /// Message.
    pub message: String,
}

/// An event, as routed to subscribers.
#[derive(Debug)]
pub struct Event {
    /// The event name, e.g. `Page.loadEventFired`.
    pub method: String,
    /// The session it came from (None for browser-level events).
    pub session_id: Option<String>,
    /// Its params, undecoded.
    pub params: Option<Box<RawValue>>,
}
