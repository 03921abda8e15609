//! The steps that change text, values and states: setText, typeText, keypress, select,
//! check/uncheck, expand/collapse, focus and setValue. Each reads the state it changes before
//! (to send nothing when it already holds) and after (the verification). Finding elements,
//! pointer delivery and hit-testing are `act.rs`'s.

use serde_json::{json, Value};
use uidriver_core::action::Button;
use uidriver_core::choose;
use uidriver_core::{Delivery, ElementRef, Error, KeyChord, Result, StepReport};
use uidriver_core::{DeliveryMethod, GroundingMethod, VerificationMethod};

use crate::act::{format_number, Actor, Elem};
use crate::error::maybe_delivered;
use crate::input::chord_events;
use crate::protocol::InsertText;
use crate::verify::{self, verify};

impl Actor<'_> {
    /// setText: focus, select all, insert the text as input events (`Input.insertText`), read back.
    pub(crate) async fn set_text(
        &self,
        r: &mut StepReport,
        t: ElementRef,
        text: &str,
    ) -> Result<()> {
        let el = self.element(r, t).await?;
        let kind = self.call(&el, EDIT_KIND_JS, vec![]).await?;
        if kind.as_str() == Some("no") {
            return Err(Error::unsupported(format!(
                "{t} is not an editable text field"
            )));
        }
        r.delivery.method = DeliveryMethod::CdpInput;
        r.delivery.delivered = Delivery::Maybe;
        self.call(&el, FOCUS_SELECT_JS, vec![json!(true)]).await?;
        if text.is_empty() {
            for ev in chord_events(&KeyChord::parse("Delete").map_err(Error::internal)?) {
                self.page
                    .send(&ev, self.deadline)
                    .await
                    .map_err(maybe_delivered)?;
            }
        } else {
            self.page
                .send(&InsertText { text }, self.deadline)
                .await
                .map_err(maybe_delivered)?;
        }
        r.delivery.delivered = Delivery::Delivered;
        let mut value = self.call(&el, READ_VALUE_JS, vec![]).await?;
        if value.as_str() != Some(text) && kind.as_str() != Some("editable") {
            // Some inputs (number, date) reject typed text that is not in their format, or a
            // page script rewrote it; set the value the way the page's own script would.
            value = self.call(&el, SET_VALUE_JS, vec![json!(text)]).await?;
            r.delivery.method = DeliveryMethod::CdpDom;
            r.delivery.detail = Some("typed text did not take; the value was set through the DOM with input and change events".into());
        }
        let ok =
            value.as_str().map(|v| v.trim_end_matches('\n')) == Some(text.trim_end_matches('\n'));
        let shown = value.as_str().map(|v| v.chars().count()).unwrap_or(0);
        verify(
            r,
            VerificationMethod::ReadBack,
            ok,
            "",
            &format!("the field holds other text ({shown} chars)"),
        );
        Ok(())
    }

    /// typeText: insert at the caret (of `t`, or of whatever has focus), read back.
    pub(crate) async fn type_text(
        &self,
        r: &mut StepReport,
        t: Option<ElementRef>,
        text: &str,
    ) -> Result<()> {
        let el = match t {
            Some(t) => {
                let el = self.element(r, t).await?;
                self.call(&el, FOCUS_SELECT_JS, vec![json!(false)]).await?;
                Some(el)
            }
            None => {
                r.grounding.method = GroundingMethod::Focus;
                None
            }
        };
        r.delivery.method = DeliveryMethod::CdpInput;
        r.delivery.delivered = Delivery::Maybe;
        self.page
            .send(&InsertText { text }, self.deadline)
            .await
            .map_err(maybe_delivered)?;
        r.delivery.delivered = Delivery::Delivered;
        let value = match &el {
            Some(el) => self.call(el, READ_VALUE_JS, vec![]).await?,
            // Whatever has the focus, inside cross-origin frames too.
            None => match self.focused().await? {
                (frame, Some(obj)) => {
                    let p = frame.as_deref().unwrap_or(self.page);
                    let v = p.call_on(&obj, READ_VALUE_JS, vec![], self.deadline).await;
                    p.release(&obj).await;
                    v?
                }
                (_, None) => Value::Null,
            },
        };
        let ok = value.as_str().is_some_and(|v| v.contains(text));
        verify(
            r,
            VerificationMethod::ReadBack,
            ok,
            "the text is in the field",
            "the text is not in the field",
        );
        Ok(())
    }

    /// keypress: chords as key events to the focused element (`t` focused first).
    pub(crate) async fn keypress(
        &self,
        r: &mut StepReport,
        t: Option<ElementRef>,
        keys: &[KeyChord],
    ) -> Result<()> {
        // Count keydowns where they should land: the window of the target's document, or of
        // whatever has the focus (inside cross-origin frames too: their own world sees them).
        let (frame, focused) = match t {
            Some(t) => {
                let el = self.element(r, t).await?;
                self.call(&el, "function () { this.focus(); }", vec![])
                    .await?;
                (el.frame.clone(), Some(el.obj))
            }
            None => {
                r.grounding.method = GroundingMethod::Focus;
                self.focused().await?
            }
        };
        let page = frame.as_deref().unwrap_or(self.page);
        let win = match &focused {
            Some(obj) => {
                page.send(
                    &crate::protocol::CallFunctionOn {
                        function_declaration:
                            "function () { return this.ownerDocument.defaultView; }",
                        object_id: Some(obj),
                        return_by_value: false,
                        ..Default::default()
                    },
                    self.deadline,
                )
                .await?
                .result
                .object_id
            }
            None => {
                page.eval_world("window", false, self.deadline)
                    .await?
                    .result
                    .object_id
            }
        };
        if let Some(w) = &win {
            verify::probe(page, w, &["keydown"], self.deadline).await?;
        }
        r.delivery.method = DeliveryMethod::CdpInput;
        r.delivery.delivered = Delivery::Maybe;
        'keys: for chord in keys {
            for ev in chord_events(chord) {
                match self.page.send(&ev, self.deadline).await {
                    Ok(_) => {}
                    // A key that opened a JavaScript dialog: its reply waits for the dialog.
                    Err(e) if crate::dialog_state::blocked_by(&e).is_some() => break 'keys,
                    Err(e) => return Err(maybe_delivered(e)),
                }
            }
        }
        r.delivery.delivered = Delivery::Delivered;
        r.delivery.detail = Some(format!("{} chord(s)", keys.len()));
        if let Some(d) = self.page.dialog() {
            verify::opened_by_step(r, &d);
            return Ok(());
        }
        if let Some(seen) = verify::counted(r, page, self.deadline).await? {
            let n = seen.get("keydown").and_then(Value::as_u64).unwrap_or(0);
            // Each chord sends its modifiers' keydowns too; at least one per chord must land.
            let ok = n >= keys.len() as u64;
            verify(
                r,
                VerificationMethod::State,
                ok,
                &format!("the page received {n} keydown events"),
                "the keys did not reach the page",
            );
        }
        Ok(())
    }

    /// select: an option of a `<select>` by label or value. A label that fits no option as
    /// written is matched by core's rule ([`choose::pick`]: folded, then a unique prefix).
    pub(crate) async fn select(&self, r: &mut StepReport, t: ElementRef, want: &str) -> Result<()> {
        let el = self.element(r, t).await?;
        r.delivery.method = DeliveryMethod::CdpDom;
        r.delivery.delivered = Delivery::Maybe;
        let mut v = self.call(&el, SELECT_JS, vec![json!(want)]).await?;
        if v.get("err").and_then(Value::as_str) == Some("not-select") {
            r.delivery.delivered = Delivery::NotDelivered;
            return self.select_aria(r, &el, want).await;
        }
        if v.get("err").and_then(Value::as_str) == Some("no-option") {
            let labels = labels_of(v.get("labels"));
            let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
            let picked = choose::pick(&refs, want, &t.to_string());
            let (i, _) = picked.inspect_err(|_| r.delivery.delivered = Delivery::NotDelivered)?;
            v = self.call(&el, SELECT_JS, vec![json!(labels[i])]).await?;
        }
        if let Some(err) = v.get("err").and_then(Value::as_str) {
            r.delivery.delivered = Delivery::NotDelivered;
            return Err(match err {
                "disabled" => Error::unsupported("that option is disabled"),
                _ => Error::unsupported(format!("{t} is not a <select> or an option of one")),
            });
        }
        r.delivery.delivered = Delivery::Delivered;
        let ok = v.get("ok").and_then(Value::as_bool) == Some(true);
        verify(
            r,
            VerificationMethod::ReadBack,
            ok,
            "",
            "the option is not selected",
        );
        Ok(())
    }

    /// select on an ARIA widget (listbox, combobox with a popup list, tab list, radio group,
    /// menu): the option is clicked with real pointer events, as a user would (opening a
    /// combobox first when its list is not shown), and its selected state read back.
    async fn select_aria(&self, r: &mut StepReport, el: &Elem, want: &str) -> Result<()> {
        let t = el.r;
        let mut found = self.aria_option(el, want).await?;
        if found.as_ref().err().map(String::as_str) == Some("closed") {
            // A collapsed combobox or popup button: open it, then wait for its options.
            self.pointer_click(r, el, Button::Left, 1, true).await?;
            for _ in 0..40 {
                found = self.aria_option(el, want).await?;
                if found.as_ref().err().map(String::as_str) != Some("closed") {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
        }
        if let Err(e) = &found {
            if let Some(json) = e.strip_prefix("no-option:") {
                let labels = labels_of(serde_json::from_str::<Value>(json).ok().as_ref());
                let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
                let (i, _) = choose::pick(&refs, want, &t.to_string())?;
                found = self.aria_option(el, &labels[i]).await?;
            }
        }
        let option = match found {
            Ok(o) => el.sibling(o),
            Err(e) => {
                return Err(match e.as_str() {
                    _ if e == "disabled" => Error::unsupported("that option is disabled"),
                    _ if e == "closed" => Error::unsupported(format!(
                        "the options of {t} did not show after clicking it"
                    )),
                    _ if e == "hidden" => Error::unsupported(format!(
                        "that option of {t} is not shown; show it first (expand or scroll its container)"
                    )),
                    _ => Error::unsupported(format!(
                        "{t} is not a <select>, an ARIA listbox, combobox, tab list, radio group or menu, nor an option of one"
                    )),
                })
            }
        };
        if self
            .call(&option, ARIA_SELECTED_JS, vec![])
            .await?
            .as_bool()
            == Some(true)
        {
            verify(
                r,
                VerificationMethod::ReadBack,
                true,
                "the option was already selected: nothing was sent",
                "",
            );
            return Ok(());
        }
        self.pointer_click(r, &option, Button::Left, 1, true)
            .await?;
        let mut ok = false;
        for _ in 0..20 {
            ok = self
                .call(&option, ARIA_SELECTED_JS, vec![])
                .await?
                .as_bool()
                == Some(true)
                || self
                    .call(el, ARIA_SHOWS_JS, vec![json!(want)])
                    .await?
                    .as_bool()
                    == Some(true);
            if ok {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        verify(
            r,
            VerificationMethod::ReadBack,
            ok,
            "the option reads back selected",
            "the option was clicked but does not read back selected",
        );
        Ok(())
    }

    /// The option of an ARIA widget labelled `want` (its handle), or why not: `not-aria`,
    /// `no-option:["label", …]`, `disabled`, `closed` (not rendered, in a combobox or popup that a click
    /// opens), `hidden` (not rendered otherwise).
    async fn aria_option(
        &self,
        el: &Elem,
        want: &str,
    ) -> Result<std::result::Result<String, String>> {
        let ev = self
            .page_of(el)
            .send(
                &crate::protocol::CallFunctionOn {
                    function_declaration: ARIA_OPTION_JS,
                    object_id: Some(&el.obj),
                    arguments: vec![crate::protocol::CallArgument {
                        value: Some(json!(want)),
                        object_id: None,
                    }],
                    return_by_value: false,
                    ..Default::default()
                },
                self.deadline,
            )
            .await?;
        if let Some(x) = ev.exception_details {
            return Err(Error::internal(format!("select: {}", x.message())));
        }
        Ok(match (ev.result.object_id, ev.result.value) {
            (Some(o), _) => Ok(o),
            (None, Some(Value::String(why))) => Err(why),
            _ => Err("not-aria".into()),
        })
    }

    /// check/uncheck/expand/collapse: read the state, click only when it differs, read back.
    async fn toggle(
        &self,
        r: &mut StepReport,
        t: ElementRef,
        read: &str,
        want: bool,
        what: &str,
    ) -> Result<()> {
        let el = self.element(r, t).await?;
        let now = self.call(&el, read, vec![]).await?;
        let Some(now) = now.as_bool() else {
            return Err(Error::unsupported(format!(
                "{t} has no {what} state to change"
            )));
        };
        if now == want {
            r.verification.method = VerificationMethod::ReadBack;
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!(
                "already {}",
                if want {
                    what.to_string()
                } else {
                    format!("not {what}")
                }
            ));
            return Ok(());
        }
        // A <details> toggles through its <summary>.
        let click_target = if what == "expanded" {
            let ev = self
                .page_of(&el)
                .send(
                    &crate::protocol::CallFunctionOn {
                        function_declaration: SUMMARY_JS,
                        object_id: Some(&el.obj),
                        return_by_value: false,
                        ..Default::default()
                    },
                    self.deadline,
                )
                .await?;
            ev.result.object_id.map(|obj| el.sibling(obj))
        } else {
            None
        };
        self.pointer_click(
            r,
            click_target.as_ref().unwrap_or(&el),
            Button::Left,
            1,
            true,
        )
        .await?;
        let after = self.call(&el, read, vec![]).await?;
        let ok = after.as_bool() == Some(want);
        verify(
            r,
            VerificationMethod::ReadBack,
            ok,
            "",
            &format!(
                "still {}",
                if want {
                    format!("not {what}")
                } else {
                    what.to_string()
                }
            ),
        );
        Ok(())
    }

    /// setValue: a range or number input's value, read back (it may snap to the step).
    pub(crate) async fn set_value(&self, r: &mut StepReport, t: ElementRef, v: f64) -> Result<()> {
        let el = self.element(r, t).await?;
        let kind = self
            .call(
                &el,
                "function () { return this.localName === 'input' ? this.type : ''; }",
                vec![],
            )
            .await?;
        if !matches!(kind.as_str(), Some("range" | "number")) {
            return self.set_value_aria(r, &el, v).await;
        }
        r.delivery.method = DeliveryMethod::CdpDom;
        r.delivery.delivered = Delivery::Maybe;
        let got = self
            .call(&el, SET_VALUE_JS, vec![json!(format_number(v))])
            .await?;
        r.delivery.delivered = Delivery::Delivered;
        r.delivery.detail = Some("value set with input and change events".into());
        let now = got.as_str().and_then(|s| s.parse::<f64>().ok());
        let ok = now.is_some_and(|n| (n - v).abs() < 1e-9);
        let detail = match now {
            Some(n) if !ok => format!(
                "the value is {} (clamped or snapped to the step)",
                format_number(n)
            ),
            _ => "the value was not accepted".into(),
        };
        verify(
            r,
            VerificationMethod::ReadBack,
            ok,
            "the value is set",
            &detail,
        );
        Ok(())
    }

    /// setValue on an ARIA slider or spin button: focused, then moved with the keys its
    /// keyboard contract defines (Home/End for the ends, arrows a step at a time), each key
    /// read back, until the value is reached, passed, or stops moving.
    async fn set_value_aria(&self, r: &mut StepReport, el: &Elem, v: f64) -> Result<()> {
        let t = el.r;
        let read = |info: Value| -> Option<(f64, f64, f64)> {
            let f = |k: &str| info.get(k).and_then(Value::as_f64);
            Some((
                f("now")?,
                f("min").unwrap_or(f64::MIN),
                f("max").unwrap_or(f64::MAX),
            ))
        };
        let Some((mut now, min, max)) = read(self.call(el, ARIA_VALUE_JS, vec![]).await?) else {
            return Err(Error::unsupported(format!(
                "{t} is not a range or number input nor an ARIA slider or spin button with a value; use setText for text"
            )));
        };
        if v < min || v > max {
            return Err(Error::invalid(
                "value",
                format!(
                    "{} is outside {t}'s range {}..{}",
                    format_number(v),
                    format_number(min),
                    format_number(max)
                ),
            ));
        }
        let same = |a: f64| (a - v).abs() < 1e-9;
        if same(now) {
            verify(
                r,
                VerificationMethod::ReadBack,
                true,
                "the value was already that: nothing was sent",
                "",
            );
            return Ok(());
        }
        self.call(el, "function () { this.focus(); }", vec![])
            .await?;
        r.delivery.method = DeliveryMethod::CdpInput;
        r.delivery.delivered = Delivery::Maybe;
        let mut presses = 0u32;
        while presses < MAX_VALUE_KEYS && !same(now) {
            let key = match () {
                _ if same(min) => "Home",
                _ if same(max) => "End",
                _ if now < v => "Right",
                _ => "Left",
            };
            let chord = KeyChord::parse(key).map_err(Error::internal)?;
            for ev in chord_events(&chord) {
                self.page
                    .send(&ev, self.deadline)
                    .await
                    .map_err(maybe_delivered)?;
            }
            r.delivery.delivered = Delivery::Delivered;
            presses += 1;
            let before = now;
            now = read(self.call(el, ARIA_VALUE_JS, vec![]).await?).map_or(before, |x| x.0);
            // Stuck, or stepped past the value (it is between two steps).
            if (now - before).abs() < 1e-12 || (before - v).signum() != (now - v).signum() {
                break;
            }
        }
        r.delivery.detail = Some(format!("{presses} key(s) on the focused {t}"));
        let detail = format!(
            "the value is {} (the keys do not reach {} from there)",
            format_number(now),
            format_number(v)
        );
        verify(
            r,
            VerificationMethod::ReadBack,
            same(now),
            "the value is set",
            &detail,
        );
        Ok(())
    }

    /// check/uncheck: click only when the state differs, then read it back.
    pub(crate) async fn check(&self, r: &mut StepReport, t: ElementRef, want: bool) -> Result<()> {
        self.toggle(r, t, CHECKED_JS, want, "checked").await
    }

    /// expand/collapse (a `<details>` through its summary, else `aria-expanded`).
    pub(crate) async fn expand(&self, r: &mut StepReport, t: ElementRef, want: bool) -> Result<()> {
        self.toggle(r, t, EXPANDED_JS, want, "expanded").await
    }

    /// focus: `element.focus()`, verified by where focus is.
    pub(crate) async fn focus(&self, r: &mut StepReport, t: ElementRef) -> Result<()> {
        let el = self.element(r, t).await?;
        r.delivery.method = DeliveryMethod::CdpDom;
        r.delivery.delivered = Delivery::Maybe;
        let ok = self.call(&el, FOCUS_JS, vec![]).await?;
        r.delivery.delivered = Delivery::Delivered;
        verify(
            r,
            VerificationMethod::Focus,
            ok.as_bool() == Some(true),
            "the element has keyboard focus",
            "focus went elsewhere",
        );
        Ok(())
    }
}

/// What kind of text field the element is: `input`, `textarea`, `editable`, or `no`.
const EDIT_KIND_JS: &str = include_str!("js/edit_kind.js");

/// Focuses the element and selects its whole text (`all`) or puts the caret at the end.
const FOCUS_SELECT_JS: &str = include_str!("js/focus_select.js");

/// The text a field holds now (value, or the editing host's text).
const READ_VALUE_JS: &str = include_str!("js/read_value.js");

/// Sets `value` the way a page's own script would, then fires input and change.
const SET_VALUE_JS: &str = include_str!("js/set_value.js");

/// Picks an option by value or label (exact, then case-insensitive) and fires input/change; no
/// fit answers the labels, for core's rule to choose from.
const SELECT_JS: &str = include_str!("js/select.js");

/// The option labelled `want` of an ARIA widget (`this`, or the widget `this` is an option of;
/// a combobox's list through aria-controls / aria-owns), or a string saying why not.
const ARIA_OPTION_JS: &str = include_str!("js/aria_option.js");

/// Whether an ARIA option is selected (aria-selected, or aria-checked for radios).
const ARIA_SELECTED_JS: &str = include_str!("js/aria_selected.js");

/// Whether a combobox now shows `want` (its value, or its text when it is not an input).
const ARIA_SHOWS_JS: &str = include_str!("js/aria_shows.js");

/// An ARIA slider's or spin button's value and range, or null.
const ARIA_VALUE_JS: &str = include_str!("js/aria_value.js");

/// Key presses setValue sends to an ARIA slider at most.
const MAX_VALUE_KEYS: u32 = 300;

/// Checked state: native checkbox/radio, else aria-checked/aria-pressed; null when none.
const CHECKED_JS: &str = include_str!("js/checked.js");

/// Expanded state: a details element (or its summary), else aria-expanded; null when none.
const EXPANDED_JS: &str = include_str!("js/expanded.js");

/// The element to click to toggle: a `<details>`' summary, else the element.
const SUMMARY_JS: &str = include_str!("js/summary.js");

/// Focuses the element and says whether it (deeply) holds focus now.
const FOCUS_JS: &str = include_str!("js/focus.js");

/// Option labels a page script answered (an array of strings; anything else is none).
fn labels_of(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|l| l.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}
