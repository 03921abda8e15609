//! What can go wrong talking to Chromium, and the one place those failures become core's
//! catalogued [`uidriver_core::Error`] codes. Errors about the caller's request (a stale ref, a
//! covered element) are built as core errors where they are found; this enum is for the
//! transport, the process and the protocol.

use uidriver_core::{Delivery, Error as CoreError, ErrorCode};

/// A failure of the CDP transport, the browser process or a protocol call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CdpError {
    /// Chromium could not be started or did not open its DevTools port.
    #[error("could not start Chromium: {0}")]
    Launch(String),
    /// A local I/O operation failed (spawning, the profile dir, the HTTP endpoint).
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The WebSocket failed.
    #[error("DevTools WebSocket error: {0}")]
    WebSocket(#[from] Box<tokio_tungstenite::tungstenite::Error>),
    /// The connection to the browser is gone (the browser exited or closed the socket).
    #[error("the browser connection is closed")]
    Closed,
    /// The browser answered a command with an error.
    #[error("{method} failed: {message} ({code})")]
    Protocol {
        /// The CDP method.
        method: &'static str,
        /// The CDP error code.
        code: i64,
        /// The CDP error message.
        message: String,
    },
    /// A command got no reply before its deadline.
    #[error("{0} timed out")]
    Timeout(&'static str),
    /// The page target closed or crashed.
    #[error("the page closed: {0}")]
    TargetClosed(String),
    /// No browser page has this root key.
    #[error("no browser page {0}")]
    NoSuchPage(String),
    /// A reply did not have the expected shape.
    #[error("unexpected reply to {method}: {source}")]
    Decode {
        /// The CDP method.
        method: &'static str,
        /// The decoding error.
        source: serde_json::Error,
    },
    /// The caller's expression (`evaluate_browser`) threw.
    #[error("the expression threw: {0}")]
    Script(String),
    /// One of this crate's own page scripts failed (a bug or a page that breaks DOM APIs).
    #[error("page script failed: {0}")]
    PageScript(String),
    /// A navigation could not be done (no such history entry, a network error).
    #[error("{0}")]
    Navigation(String),
    /// An element the walker numbered is no longer in the page.
    #[error("{0}")]
    Gone(String),
    /// A JavaScript dialog blocks the page (see `dialog_state.rs`): the command was refused, or
    /// cut short when the dialog opened before its reply.
    #[error("{0}")]
    Dialog(crate::dialog_kind::Blocked),
}

impl CdpError {
    /// Whether the page (not the whole browser) is gone, judged from a protocol error.
    ///
    /// "Inspected target navigated or closed" is not gone: Chromium ends a command in flight
    /// with it when the page moves to another renderer (a cross-site navigation under site
    /// isolation) and the session lives on; a page that really closed fails the next command
    /// with "session … not found". Read as gone, a link to another site closed its root.
    pub(crate) fn is_target_gone(&self) -> bool {
        match self {
            CdpError::TargetClosed(_) => true,
            CdpError::Protocol { message, .. } => {
                let m = message.to_ascii_lowercase();
                m.contains("session with given id not found")
                    || m.contains("no target with given id")
                    || m.contains("target closed")
            }
            _ => false,
        }
    }
}

impl From<tokio_tungstenite::tungstenite::Error> for CdpError {
    fn from(e: tokio_tungstenite::tungstenite::Error) -> Self {
        CdpError::WebSocket(Box::new(e))
    }
}

impl From<CdpError> for CoreError {
    fn from(e: CdpError) -> Self {
        let msg = e.to_string();
        let code = match &e {
            _ if e.is_target_gone() => ErrorCode::TargetClosed,
            CdpError::Launch(_) | CdpError::Io(_) | CdpError::WebSocket(_) | CdpError::Closed => {
                ErrorCode::BackendUnavailable
            }
            CdpError::Timeout(_) => ErrorCode::Timeout,
            CdpError::NoSuchPage(_) => ErrorCode::RootNotFound,
            CdpError::Script(_) | CdpError::Navigation(_) => ErrorCode::InvalidArgs,
            CdpError::Gone(_) => ErrorCode::StaleRef,
            CdpError::Dialog(_) => ErrorCode::NotSupported,
            CdpError::Protocol { .. }
            | CdpError::Decode { .. }
            | CdpError::TargetClosed(_)
            | CdpError::PageScript(_) => ErrorCode::Internal,
        };
        let err = CoreError::new(code, msg);
        match code {
            ErrorCode::BackendUnavailable if matches!(e, CdpError::Launch(_)) => err.with_hint(
                "Check that /usr/lib/chromium/chromium exists (apt-get install chromium) or attach to a running browser by endpoint.",
            ),
            ErrorCode::BackendUnavailable => {
                err.with_hint("The browser exited or dropped the connection; launch_browser starts a new one.")
            }
            ErrorCode::NotSupported => {
                let err = err.with_hint(
                    "Answer the dialog first: observe_ui on this page (or on its dialog root, listed by find_roots) shows its buttons; press OK or Cancel.",
                );
                // A command cut short by a dialog was delivered (it may be what opened it).
                match &e {
                    CdpError::Dialog(b) if b.during => err.delivered(Delivery::Delivered),
                    _ => err,
                }
            }
            _ => err,
        }
    }
}

/// Result with a [`CdpError`].
pub type CdpResult<T> = std::result::Result<T, CdpError>;

/// Marks a core error as possibly delivered (input was in flight when it failed).
pub(crate) fn maybe_delivered(e: impl Into<CoreError>) -> CoreError {
    e.into().delivered(Delivery::Maybe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_to_catalogue_codes() {
        let c: CoreError = CdpError::Closed.into();
        assert_eq!(c.code, ErrorCode::BackendUnavailable);
        let gone = CdpError::Protocol {
            method: "Runtime.evaluate",
            code: -32001,
            message: "Session with given id not found.".into(),
        };
        assert_eq!(CoreError::from(gone).code, ErrorCode::TargetClosed);
        assert_eq!(
            CoreError::from(CdpError::Timeout("Page.navigate")).code,
            ErrorCode::Timeout
        );
        assert_eq!(
            CoreError::from(CdpError::NoSuchPage("k".into())).code,
            ErrorCode::RootNotFound
        );
        assert_eq!(maybe_delivered(CdpError::Closed).delivery, Delivery::Maybe);
    }
}
