//! The Linux backend's errors, and the one place they become catalogued core errors.
//!
//! D-Bus failures are classified where they happen (`classify`): a vanished peer or object is
//! [`LinuxError::Gone`] (the app exited or the widget was destroyed), a reply that never came is
//! [`LinuxError::Unresponsive`], a missing interface is [`LinuxError::Unsupported`]. Callers
//! decide what a failure means for an observation; this file only names it.

use std::time::Duration;

use uidriver_core::{Error, ErrorCode};

/// Everything that can go wrong in the Linux backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LinuxError {
    /// No accessibility bus could be found or reached.
    #[error("accessibility bus unavailable: {0}")]
    NoAccessibilityBus(String),
    /// The accessibility bus this backend was attached to went away (its daemon exited), and
    /// it could not be reached again yet.
    #[error("the accessibility bus is gone: {0}")]
    BusLost(String),
    /// No X11 display could be reached.
    #[error("X11 display unavailable: {0}")]
    NoDisplay(String),
    /// The application or object no longer exists (D-Bus `ServiceUnknown`, `UnknownObject`, ...).
    #[error("{what} is gone ({reason})")]
    Gone {
        /// What was being read.
        what: String,
        /// The D-Bus error name.
        reason: String,
    },
    /// The application did not answer within the per-call timeout.
    #[error("{what} did not answer within {timeout:?}")]
    Unresponsive {
        /// What was being read.
        what: String,
        /// The timeout that passed.
        timeout: Duration,
    },
    /// The object does not implement the interface or method.
    #[error("{what} is not supported by the object ({reason})")]
    Unsupported {
        /// The call.
        what: String,
        /// The D-Bus error name.
        reason: String,
    },
    /// The operation's deadline passed.
    #[error("deadline passed while {0}")]
    Deadline(String),
    /// The root is not (or no longer) listed.
    #[error("root not found: {0}")]
    RootNotFound(String),
    /// Arguments failed validation.
    #[error("{0}")]
    InvalidArgs(String),
    /// Another D-Bus failure (method error with an unexpected name, bad reply signature, I/O).
    #[error("D-Bus: {0}")]
    Dbus(#[from] zbus::Error),
    /// An X11 request failed.
    #[error("X11: {0}")]
    X11(String),
    /// No Wayland compositor could be reached at the configured socket, or it went away.
    #[error("Wayland compositor unavailable: {0}")]
    NoCompositor(String),
    /// A Wayland request failed (a protocol error, a compositor that did not answer).
    #[error("Wayland: {0}")]
    Wayland(String),
}

impl LinuxError {
    /// Whether the failure means the target disappeared.
    pub fn is_gone(&self) -> bool {
        matches!(self, LinuxError::Gone { .. })
    }
    /// Whether the failure means the whole application is gone (its bus name left the bus),
    /// not just one object (`UnknownObject`: a widget destroyed while the app lives).
    pub fn is_app_gone(&self) -> bool {
        matches!(self, LinuxError::Gone { reason, .. } if !reason.ends_with("UnknownObject"))
    }
    /// Whether the failure means the app did not answer.
    pub fn is_unresponsive(&self) -> bool {
        matches!(self, LinuxError::Unresponsive { .. })
    }
}

/// D-Bus error names that mean the peer or the object is gone. Chromium answers calls on
/// destroyed nodes with `UnknownMethod` naming no interface, which stays `Unsupported`.
const GONE_ERRORS: &[&str] = &[
    "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.UnknownObject",
    "org.freedesktop.DBus.Error.NameHasNoOwner",
    "org.freedesktop.DBus.Error.NoReply",
    "org.freedesktop.DBus.Error.Disconnected",
];

const UNSUPPORTED_ERRORS: &[&str] = &[
    "org.freedesktop.DBus.Error.UnknownMethod",
    "org.freedesktop.DBus.Error.UnknownInterface",
    "org.freedesktop.DBus.Error.UnknownProperty",
    "org.freedesktop.DBus.Error.NotSupported",
    "org.freedesktop.DBus.Error.InvalidArgs",
];

/// Sorts a zbus error into the variants callers act on.
pub(crate) fn classify(e: zbus::Error, what: impl FnOnce() -> String) -> LinuxError {
    match &e {
        zbus::Error::MethodError(name, _, _) => {
            let n = name.as_str();
            if GONE_ERRORS.contains(&n) {
                LinuxError::Gone {
                    what: what(),
                    reason: n.to_string(),
                }
            } else if UNSUPPORTED_ERRORS.contains(&n) {
                LinuxError::Unsupported {
                    what: what(),
                    reason: n.to_string(),
                }
            } else {
                LinuxError::Dbus(e)
            }
        }
        zbus::Error::InterfaceNotFound | zbus::Error::Unsupported => LinuxError::Unsupported {
            what: what(),
            reason: e.to_string(),
        },
        _ => LinuxError::Dbus(e),
    }
}

impl From<LinuxError> for Error {
    fn from(e: LinuxError) -> Self {
        let hint = match &e {
            LinuxError::BusLost(_) => Some(BUS_LOST_HINT),
            LinuxError::NoDisplay(_) => Some(NO_DISPLAY_HINT),
            _ => None,
        };
        let code = match &e {
            LinuxError::NoAccessibilityBus(_)
            | LinuxError::BusLost(_)
            | LinuxError::NoDisplay(_)
            | LinuxError::NoCompositor(_) => ErrorCode::BackendUnavailable,
            LinuxError::Gone { .. } => ErrorCode::TargetClosed,
            LinuxError::Unresponsive { .. } => ErrorCode::AppUnresponsive,
            LinuxError::Unsupported { .. } => ErrorCode::NotSupported,
            LinuxError::Deadline(_) => ErrorCode::Timeout,
            LinuxError::RootNotFound(_) => ErrorCode::RootNotFound,
            LinuxError::InvalidArgs(_) => ErrorCode::InvalidArgs,
            LinuxError::Dbus(zbus::Error::InputOutput(_)) => ErrorCode::BackendUnavailable,
            LinuxError::Dbus(_) | LinuxError::X11(_) | LinuxError::Wayland(_) => {
                ErrorCode::Internal
            }
        };
        let err = Error::new(code, e.to_string());
        match hint {
            Some(h) => err.with_hint(h),
            None => err,
        }
    }
}

/// What to do while the accessibility bus is away, and what its return does not bring back.
const BUS_LOST_HINT: &str =
    "Start the accessibility bus again (at-spi-bus-launcher; `uidriver doctor` checks it): \
the next call reconnects, no restart of uidriver needed. Applications started before the bus \
came back are not on the new bus: restart them to observe their trees.";

/// What to do while the X server is away.
const NO_DISPLAY_HINT: &str = "Start the X server again (`uidriver doctor` checks DISPLAY): the \
next call reconnects, no restart of uidriver needed. Applications that ran on the old server \
exited with it: start them again.";

#[cfg(test)]
mod tests {
    use super::*;

    fn method_error(name: &'static str) -> zbus::Error {
        let msg = zbus::message::Message::method_call("/x", "M")
            .and_then(|b| b.build(&()))
            .unwrap();
        zbus::Error::MethodError(
            zbus::names::OwnedErrorName::try_from(name).unwrap(),
            None,
            msg,
        )
    }

    #[test]
    fn dbus_errors_map_to_catalogued_codes() {
        let gone = classify(
            method_error("org.freedesktop.DBus.Error.ServiceUnknown"),
            || "x".into(),
        );
        assert_eq!(Error::from(gone).code, ErrorCode::TargetClosed);
        let obj = classify(
            method_error("org.freedesktop.DBus.Error.UnknownObject"),
            || "x".into(),
        );
        assert!(obj.is_gone());
        let m = classify(
            method_error("org.freedesktop.DBus.Error.UnknownMethod"),
            || "x".into(),
        );
        assert_eq!(Error::from(m).code, ErrorCode::NotSupported);
        let other = classify(method_error("org.example.Weird"), || "x".into());
        assert_eq!(Error::from(other).code, ErrorCode::Internal);
        let slow = LinuxError::Unresponsive {
            what: "GetItems".into(),
            timeout: Duration::from_millis(500),
        };
        assert_eq!(Error::from(slow).code, ErrorCode::AppUnresponsive);
    }

    /// Issue 14 item 3: a lost bus or X server is `backend_unavailable` naming what is missing,
    /// with a hint that says the next call reconnects (not `root_not_found`, not `internal`).
    #[test]
    fn a_lost_bus_or_display_is_backend_unavailable_naming_it() {
        let bus = Error::from(LinuxError::BusLost("unix:path=/x (I/O error)".into()));
        assert_eq!(bus.code, ErrorCode::BackendUnavailable);
        assert!(
            bus.message.contains("the accessibility bus is gone"),
            "{}",
            bus.message
        );
        assert!(bus.hint.contains("reconnects"), "{}", bus.hint);
        let x = Error::from(LinuxError::NoDisplay("the X server :9 is gone".into()));
        assert_eq!(x.code, ErrorCode::BackendUnavailable);
        assert!(x.hint.contains("X server"), "{}", x.hint);
    }
}
