//! What a JavaScript dialog is, as the lowest modules need to know it: its [`Kind`], and
//! [`Blocked`], what a command of its page reports when the dialog refused it or cut it short
//! (carried by `CdpError::Dialog`). Imports nothing of this crate, so `error.rs` can name it;
//! the state of open dialogs is `dialog_state.rs`'s.

use std::time::Duration;

/// The four kinds of JavaScript dialog.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `alert()`: OK only.
    Alert,
    /// `confirm()`: OK → true, Cancel → false.
    Confirm,
    /// `prompt()`: OK → the field's text, Cancel → null.
    Prompt,
    /// Leaving a page whose `beforeunload` handler asked to stay.
    BeforeUnload,
}

impl Kind {
    /// The kind of `Page.javascriptDialogOpening`'s `type`.
    pub(crate) fn parse(s: &str) -> Kind {
        match s {
            "alert" => Kind::Alert,
            "prompt" => Kind::Prompt,
            "beforeunload" => Kind::BeforeUnload,
            _ => Kind::Confirm,
        }
    }

    /// "an alert", "a confirm", … (for messages).
    pub(crate) fn a(self) -> &'static str {
        match self {
            Kind::Alert => "an alert",
            Kind::Confirm => "a confirm",
            Kind::Prompt => "a prompt",
            Kind::BeforeUnload => "a beforeunload",
        }
    }

    /// The name the page's script uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Alert => "alert",
            Kind::Confirm => "confirm",
            Kind::Prompt => "prompt",
            Kind::BeforeUnload => "beforeunload",
        }
    }

    /// The labels of accept and dismiss (None: the dialog has no dismiss button).
    pub(crate) fn buttons(self) -> (&'static str, Option<&'static str>) {
        match self {
            Kind::Alert => ("OK", None),
            Kind::BeforeUnload => ("Leave", Some("Cancel")),
            Kind::Confirm | Kind::Prompt => ("OK", Some("Cancel")),
        }
    }
}

/// How long a command may wait unanswered while a dialog is open in another page of the
/// browser before it is taken as blocked by it (the largest page's walk takes ~2 s).
pub(crate) const PEER_GRACE: Duration = Duration::from_secs(5);

/// A command refused (or ended) because a dialog is open on its page.
#[derive(Clone, Debug)]
pub struct Blocked {
    /// The dialog's kind.
    pub kind: Kind,
    /// The start of its message.
    pub message: String,
    /// The dialog opened while the command ran (the command was delivered; it may be what
    /// opened it), rather than before it was sent.
    pub during: bool,
    /// The dialog is another page's (a popup sharing this page's renderer, presumably: the
    /// command waited [`PEER_GRACE`] unanswered while it was open).
    pub elsewhere: bool,
}

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (k, m) = (self.kind.a(), &self.message);
        if self.elsewhere {
            write!(
                f,
                "{k} dialog of another page ({m:?}) seems to block this page too (it shares its renderer): no answer for {} s",
                PEER_GRACE.as_secs()
            )
        } else if self.during {
            write!(f, "{k} dialog opened ({m:?}) and blocks the page")
        } else {
            write!(f, "{k} dialog ({m:?}) blocks this page")
        }
    }
}
