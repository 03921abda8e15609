//! The step kinds of `act_ui`, defined once: each one's wire name, the fields it takes besides
//! `action`, and what it does. The list of names, the per-step field check, the `action` enum
//! of the JSON schema, [`crate::Step::name`] and the generated tool docs all read this table.
//! Beside them the event kinds of `desktop_input` ([`DesktopEvent`]): the service decodes them,
//! a backend names each event's report by them ([`crate::ScreenInput::event`]).

use crate::vocab::vocabulary;

vocabulary!(
    /// The kind of an `act_ui` step.
    ActionKind {
        /// Activate an element (button, menu item, link).
        Press = "press",
        /// Pointer click on a ref or at x, y.
        Click = "click",
        /// Replace an element's text.
        SetText = "setText",
        /// Insert text at the caret of ref, or of the focused element.
        TypeText = "typeText",
        /// Press key chords in order.
        Keypress = "keypress",
        /// Scroll by steps.
        Scroll = "scroll",
        /// Choose an option by label or value.
        Select = "select",
        /// Make checked.
        Check = "check",
        /// Make unchecked.
        Uncheck = "uncheck",
        /// Expand.
        Expand = "expand",
        /// Collapse.
        Collapse = "collapse",
        /// Give keyboard focus.
        Focus = "focus",
        /// Set a numeric value.
        SetValue = "setValue",
        /// Press, move along a path, release.
        Drag = "drag",
        /// Move the pointer.
        MoveMouse = "moveMouse",
        /// Move the pointer over a target and let hover effects settle.
        Hover = "hover",
        /// Put files on a file input.
        SetFiles = "setFiles",
        /// Pause.
        Wait = "wait",
    }
);

impl ActionKind {
    /// The fields this step accepts besides `action` (anything else is refused).
    pub fn fields(self) -> &'static [&'static str] {
        use ActionKind::*;
        match self {
            Press | Check | Uncheck | Expand | Collapse | Focus => &["ref"],
            Click => &["ref", "x", "y", "button", "count"],
            SetText | TypeText => &["ref", "text"],
            Keypress => &["ref", "keys"],
            Scroll => &["ref", "x", "y", "scrollX", "scrollY"],
            Select | SetValue => &["ref", "value"],
            Drag => &["ref", "path", "button"],
            MoveMouse | Hover => &["ref", "x", "y"],
            Wait => &["ms"],
            SetFiles => &["ref", "paths"],
        }
    }

    /// What the step does, in one line (the tool docs' table).
    pub fn doc(self) -> &'static str {
        use ActionKind::*;
        match self {
            Press => "activate an element (button, link, menu item: closed menus are opened first)",
            Click => "pointer click on ref, or at x, y of the state's image",
            SetText => "replace an element's text",
            TypeText => "insert text at the caret of ref, or of the focused element",
            Keypress => "key chords in order: \"ctrl+s\", \"ctrl+a Delete\" or a list",
            Scroll => "scroll ref, the point x, y, or the focused element by steps",
            Select => "choose an option by its label or value",
            Check => "make checked",
            Uncheck => "make unchecked",
            Expand => "expand",
            Collapse => "collapse",
            Focus => "give keyboard focus",
            SetValue => "set a numeric value (slider, spin button)",
            Drag => "press, move along path (from ref's centre when given), release",
            MoveMouse => "move the pointer",
            Hover => "move the pointer over a target and let hover effects settle",
            Wait => "pause ms milliseconds (at most 30000)",
            SetFiles => "put files (absolute paths) on a file input, its label or the button that opens its chooser",
        }
    }
}

vocabulary!(
    /// A mouse button.
    Button {
        /// Primary (the default).
        Left = "left",
        /// Secondary (context menus).
        Right = "right",
        /// Middle.
        Middle = "middle",
    }
);

vocabulary!(
    /// The kind of a `desktop_input` event: raw input at pixels of a screenshot
    /// ([`crate::ScreenInput`] once mapped to the screen).
    DesktopEvent {
        /// Move the pointer to x, y.
        MoveMouse = "moveMouse",
        /// Click at x, y (button, count).
        Click = "click",
        /// Turn the wheel at x, y (scrollX, scrollY).
        Scroll = "scroll",
        /// Press, move along path, release.
        Drag = "drag",
        /// Type text.
        TypeText = "typeText",
        /// Press key chords in order.
        Keypress = "keypress",
        /// Press one chord and keep it down.
        KeyDown = "keyDown",
        /// Release one chord.
        KeyUp = "keyUp",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_takes_fields_and_has_a_doc() {
        for k in ActionKind::ALL {
            assert!(!k.fields().is_empty(), "{k}");
            assert!(!k.doc().is_empty(), "{k}");
            assert_eq!(ActionKind::from_wire(k.as_str()), Some(*k));
        }
    }
}
