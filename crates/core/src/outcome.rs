//! Evidence of what an action did: the outcome of each step, how it was grounded, how it was
//! delivered (and whether input reached the app, so a caller knows if a retry is safe), and how
//! the effect was verified. Deciding the outcome from evidence is [`StepReport::conclude`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::vocab::vocabulary;

vocabulary!(
    /// How a step's target was found.
    GroundingMethod {
        /// A ref of the base state.
        Ref = "ref",
        /// A point of the state's image or the screen.
        Point = "point",
        /// The element that has the keyboard focus.
        Focus = "focus",
        /// No target (`wait`), or none was found.
        None = "none",
    }
);

vocabulary!(
    /// How a step's input was delivered.
    DeliveryMethod {
        /// The element's own action (AT-SPI `Action`).
        SemanticAction = "semantic-action",
        /// The element's text interface (AT-SPI `EditableText`).
        EditableText = "editable-text",
        /// The element's value interface (AT-SPI `Value`).
        Value = "value",
        /// The container's selection interface (AT-SPI `Selection`).
        Selection = "selection",
        /// Moving the keyboard focus.
        Focus = "focus",
        /// Synthetic pointer or keyboard input through the X server (XTEST).
        Xtest = "xtest",
        /// Synthetic pointer or keyboard input through a Wayland compositor's virtual input
        /// devices (`zwlr_virtual_pointer_v1`, `zwp_virtual_keyboard_v1`).
        VirtualInput = "virtual-input",
        /// Pointer or key events dispatched to a page's renderer (CDP `Input`).
        CdpInput = "cdp-input",
        /// A change made through the page's DOM.
        CdpDom = "cdp-dom",
        /// Nothing was delivered.
        None = "none",
    }
);

vocabulary!(
    /// How a step's effect was checked.
    VerificationMethod {
        /// The target's value, text or state read back and compared with what was asked.
        ReadBack = "read-back",
        /// The target's states (checked, expanded, selected, …).
        State = "state",
        /// Where the keyboard focus is.
        Focus = "focus",
        /// The application's own events.
        Event = "event",
        /// The element under the pointer received the input.
        Pointer = "pointer",
        /// A root opened, closed or was replaced (a dialog, a new document).
        RootChange = "root-change",
        /// The call's `expect` condition.
        Postcondition = "postcondition",
        /// The pixels of a region with no accessible content, read by OCR before and after.
        Pixels = "pixels",
        /// Nothing could be checked.
        None = "none",
    }
);

macro_rules! none_by_default {
    ($($t:ty),+) => {$(
        impl Default for $t {
            fn default() -> Self {
                <$t>::None
            }
        }
    )+};
}
none_by_default!(GroundingMethod, DeliveryMethod, VerificationMethod);

impl DeliveryMethod {
    /// Whether the step went through the machine's own input (the real pointer or keyboard, as
    /// XTEST or a compositor's virtual devices), which can move focus and the pointer, rather
    /// than through the element or the page.
    pub fn is_desktop_input(self) -> bool {
        matches!(self, DeliveryMethod::Xtest | DeliveryMethod::VirtualInput)
    }
}

/// The verdict on one step.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Delivered and the effect was observed.
    Worked,
    /// The step was not performed, or its effect is verifiably absent.
    Didnt,
    /// Delivered (or maybe delivered) but the effect could not be confirmed.
    Unknown,
}

impl Outcome {
    /// Wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Worked => "worked",
            Outcome::Didnt => "didnt",
            Outcome::Unknown => "unknown",
        }
    }
}

/// Whether input reached an application.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// Input was sent.
    Delivered,
    /// Nothing was sent; retrying is safe.
    NotDelivered,
    /// Input may have been sent; replaying it could act twice.
    Maybe,
}

/// How the target of a step was found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Grounding {
    /// How the target was found.
    pub method: GroundingMethod,
    /// The element acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<crate::ElementRef>,
    /// The screen point used, for pointer input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<(i32, i32)>,
}

/// How input was delivered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryEvidence {
    /// The channel the input took.
    pub method: DeliveryMethod,
    /// Whether input reached the app.
    pub delivered: Delivery,
    /// Detail such as the action name used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Default for DeliveryEvidence {
    fn default() -> Self {
        DeliveryEvidence {
            method: DeliveryMethod::None,
            delivered: Delivery::NotDelivered,
            detail: None,
        }
    }
}

/// How the effect was checked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    /// What was checked.
    pub method: VerificationMethod,
    /// `Some(true)` confirmed, `Some(false)` refuted, `None` not checkable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    /// What was seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The report of one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepReport {
    /// Position in the batch (0-based).
    pub index: usize,
    /// The step's action name.
    pub action: String,
    /// The verdict.
    pub outcome: Outcome,
    /// How the target was found.
    pub grounding: Grounding,
    /// How input was delivered.
    pub delivery: DeliveryEvidence,
    /// How the effect was checked.
    pub verification: Verification,
    /// The error, when the step did not work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

impl StepReport {
    /// Starts a report for a step that has not run yet.
    pub fn new(index: usize, action: &str) -> Self {
        StepReport {
            index,
            action: action.to_string(),
            outcome: Outcome::Unknown,
            grounding: Grounding::default(),
            delivery: DeliveryEvidence::default(),
            verification: Verification::default(),
            error: None,
        }
    }

    /// Sets the outcome from the evidence: an error that sent nothing is `didnt`; a refuted check
    /// is `didnt` when nothing may have reached the app and `unknown`... never `worked` without
    /// a positive check, except for steps that have nothing to verify (`wait`).
    pub fn conclude(mut self) -> Self {
        self.outcome = match (
            &self.error,
            self.delivery.delivered,
            self.verification.passed,
        ) {
            (Some(_), Delivery::NotDelivered, _) => Outcome::Didnt,
            (Some(_), _, _) => Outcome::Unknown,
            (None, _, Some(true)) => Outcome::Worked,
            (None, Delivery::NotDelivered, Some(false)) => Outcome::Didnt,
            (None, Delivery::Delivered, Some(false)) => Outcome::Didnt,
            (None, _, _)
                if self.delivery.method == DeliveryMethod::None && self.action == "wait" =>
            {
                Outcome::Worked
            }
            (None, _, _) => Outcome::Unknown,
        };
        self
    }

    /// Marks a step refused before delivery.
    pub fn refused(index: usize, action: &str, err: Error) -> Self {
        let mut r = StepReport::new(index, action);
        r.delivery.delivered = err.delivery;
        r.error = Some(err);
        r.conclude()
    }
}

/// How an `expect` postcondition ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExpectVerdict {
    /// It became true after delivery.
    Verified,
    /// It was already true before delivery (so it proves nothing about the action).
    Preexisting,
    /// It did not become true in time.
    Failed,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn outcome_follows_evidence() {
        let mut r = StepReport::new(0, "press");
        r.delivery.delivered = Delivery::Delivered;
        r.verification.passed = Some(true);
        assert_eq!(r.clone().conclude().outcome, Outcome::Worked);
        r.verification.passed = None;
        assert_eq!(r.clone().conclude().outcome, Outcome::Unknown);
        r.verification.passed = Some(false);
        assert_eq!(r.clone().conclude().outcome, Outcome::Didnt);
        let refused = StepReport::refused(
            1,
            "keypress",
            Error::new(ErrorCode::ForegroundRequired, "headless"),
        );
        assert_eq!(refused.outcome, Outcome::Didnt);
        let maybe = StepReport::refused(
            1,
            "click",
            Error::new(ErrorCode::Timeout, "x").delivered(Delivery::Maybe),
        );
        assert_eq!(maybe.outcome, Outcome::Unknown);
    }
}
