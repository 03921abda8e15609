//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) of a page.
//!
//! While one is open the page's renderer waits inside the dialog: `Runtime.evaluate`,
//! `Input.dispatch*Event` and the other renderer commands get no reply until it closes (the
//! click that opened it too: its `mouseReleased` is answered only after the dialog is gone).
//! So each page keeps its dialog state from the `Page.javascriptDialogOpening` / `…Closed`
//! events ([`Dialogs`], one listener task per page session), every command on the page's
//! session passes [`Dialogs::bound`] (refused at once while a dialog is open, ended when one
//! opens while it waits), and the open dialog is shown and answered as elements of its own:
//!
//! - a root of kind `dialog` beside its page (key `<page key>:dialog:<seq>`, a new root per
//!   dialog), named by its message, in the page's lane;
//! - a snapshot: the dialog, its message, a text field for a prompt (holding the text OK will
//!   send, the default prompt at first) and its buttons (OK and Cancel; alert: OK only;
//!   beforeunload: Leave and Cancel); observing the page itself while it is open gives that
//!   snapshot under the page's document node, so the agent sees why the page cannot be read;
//! - steps: press OK/Cancel → `Page.handleJavaScriptDialog`, verified by the closing event
//!   (its answer is the one sent); setText/typeText on the field store the prompt's answer.
//!
//! Pointer steps that open a dialog end on its opening event (`act.rs` asks [`blocked_by`];
//! `verify.rs` reports the opening as the step's effect).
//! A popup of a same-site page shares the opener's renderer, so its dialog blocks the opener
//! too, which hears nothing of it: [`Peers`] tells every page of the browser which dialogs are
//! open, and a command left unanswered meanwhile ends after a grace period, naming the dialog.
//!
//! The layers, lowest first: `dialog_kind.rs` names the kinds and what a blocked command
//! reports (imports nothing of this crate, so `error.rs` can carry it); `dialog_state.rs` keeps
//! each page's state and bounds its commands (below `page.rs`, which holds it); this module,
//! above the page, shows the dialog (`dialog/view.rs`: snapshots, handles; its root is listed
//! by `roots.rs`) and answers it (`dialog/steps.rs`).
//!
//! [`Dialogs`]: crate::dialog_state::Dialogs
//! [`Dialogs::bound`]: crate::dialog_state::Dialogs::bound
//! [`blocked_by`]: crate::dialog_state::blocked_by
//! [`Peers`]: crate::dialog_state::Peers

mod steps;
mod view;

pub(crate) use steps::{act, wants};
pub(crate) use view::{is_handle, page_snapshot, snapshot, text_of};
