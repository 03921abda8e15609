//! Action steps and postconditions: the wire form a caller sends ([`RawStep`], [`Expect`]) and
//! the validated form backends receive ([`Step`]). Every field of every step is checked here,
//! before anything is sent to an application; running steps is each backend's `act`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::action_kind::{ActionKind, Button, DesktopEvent};
use crate::error::{Error, Result};
use crate::ids::ElementRef;
use crate::outline::quote;

/// Most steps one `act_ui` call may carry.
pub const MAX_STEPS: usize = 20;
/// Longest text a `setText`/`typeText` step may carry, in characters.
pub const MAX_TEXT_CHARS: usize = 100_000;
/// Longest `wait` step, milliseconds.
pub const MAX_WAIT_MS: u64 = 30_000;
/// Most files one `setFiles` step may carry.
pub const MAX_FILES: usize = 32;

/// A point in the pixels of the state's image (or of the screen when the state has no image).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// Horizontal pixel.
    pub x: f64,
    /// Vertical pixel.
    pub y: f64,
}

/// A scalar a `select` or `setValue` step carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// A number.
    Number(f64),
    /// Text.
    Text(String),
}

/// One step as a caller writes it: `{"action": "press", "ref": "@e12"}`.
/// Which fields apply depends on `action`; [`RawStep::validate`] checks that.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RawStep {
    /// Step kind.
    #[schemars(with = "ActionKind")]
    pub action: String,
    /// Element (@eN).
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub target: Option<ElementRef>,
    /// Image pixel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// Image pixel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// click/drag (default left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Button>")]
    pub button: Option<String>,
    /// Clicks, 1-3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u8>,
    /// setText (replace) or typeText (insert).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// keypress: "ctrl+s", "ctrl+a Delete" or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Keys>,
    /// select: option label/value; setValue: number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Scalar>,
    /// Steps (positive: right).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll_x: Option<i32>,
    /// Steps (positive: down).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll_y: Option<i32>,
    /// Drag points (2-50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<Point>>,
    /// wait: ms (0-30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// setFiles: absolute file paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
}

/// The steps of an `act_ui` call's arguments as the caller wrote them (`args.actions`), for
/// code that reads or rewrites a recorded call (traces, replay); `None` when they are not steps
/// (such a call was refused before anything was sent).
pub fn steps_of(args: &serde_json::Value) -> Option<Vec<RawStep>> {
    serde_json::from_value(args.get("actions")?.clone()).ok()
}

/// Writes `steps` back as `args.actions` (fields that were absent stay absent).
pub fn put_steps(args: &mut serde_json::Value, steps: &[RawStep]) {
    if let (Some(slot), Ok(v)) = (args.get_mut("actions"), serde_json::to_value(steps)) {
        *slot = v;
    }
}

/// Where a pointer step lands.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// An element of the state.
    Ref(ElementRef),
    /// A point in the state's image pixels.
    Point(Point),
}

impl Button {
    /// Parses a step's `button` field (absent means left); `at` names the step in errors.
    pub fn parse(at: &str, b: Option<&str>) -> Result<Button> {
        match b {
            None => Ok(Button::Left),
            Some(b) => Button::from_wire(b).ok_or_else(|| {
                Error::invalid(&format!("{at}.button"), "expected left, right or middle")
            }),
        }
    }
}

/// Key chords as a caller writes them: one string (`"ctrl+h"`, or several chords separated by
/// spaces, `"ctrl+a Delete"`) or a list (`["shift+Tab", "Return"]`). One chord is the common
/// case, so it needs no brackets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Keys {
    /// One string.
    One(String),
    /// A list.
    List(Vec<String>),
}

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a chord such as \"ctrl+s\" or a list of chords")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Keys, E> {
                Ok(Keys::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Keys, A::Error> {
                let mut v = Vec::new();
                while let Some(k) = seq.next_element::<String>()? {
                    v.push(k);
                }
                Ok(Keys::List(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl Keys {
    /// The chords, parsed; `at` names the field in errors (`actions[0].keys`).
    pub fn chords(&self, at: &str) -> Result<Vec<KeyChord>> {
        let list: Vec<&str> = match self {
            Keys::One(s) => s.split_whitespace().collect(),
            Keys::List(v) => v.iter().map(String::as_str).collect(),
        };
        if list.is_empty() || list.len() > 50 {
            return Err(Error::invalid(
                at,
                "expected 1 to 50 chords, e.g. \"ctrl+s\"",
            ));
        }
        list.iter()
            .enumerate()
            .map(|(i, k)| KeyChord::parse(k).map_err(|e| Error::invalid(&format!("{at}[{i}]"), e)))
            .collect()
    }
}

/// A parsed key chord: modifiers and one key name (`Return`, `F2`, `a`, `ä`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyChord {
    /// Ctrl held.
    pub ctrl: bool,
    /// Shift held.
    pub shift: bool,
    /// Alt held.
    pub alt: bool,
    /// Super (Windows/Meta) held.
    pub super_: bool,
    /// The key: a named key (see [`NAMED_KEYS`]) or one character.
    pub key: String,
}

/// Key names a chord may use besides single characters (case-insensitive on input).
pub const NAMED_KEYS: &[&str] = &[
    "Return",
    "Enter",
    "Tab",
    "Escape",
    "BackSpace",
    "Delete",
    "Insert",
    "Home",
    "End",
    "Page_Up",
    "Page_Down",
    "Left",
    "Right",
    "Up",
    "Down",
    "space",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "Menu",
    "Print",
    "Pause",
    "plus",
    "minus",
];

/// Characters of a caller's chord an error shows: enough to recognise it, never an echo of a
/// long or binary input (issue 14: a chord of 130 control characters made a 1.6 kB message).
const SHOWN_CHARS: usize = 32;

impl KeyChord {
    /// Parses `ctrl+s`, `shift+Tab`, `F2`, `ctrl+plus`, `+`.
    pub fn parse(s: &str) -> std::result::Result<KeyChord, String> {
        if s.is_empty() {
            return Err("empty key chord".into());
        }
        let mut chord = KeyChord {
            ctrl: false,
            shift: false,
            alt: false,
            super_: false,
            key: String::new(),
        };
        // A lone "+" or a chord ending in "++" means the plus key itself.
        let (mods, key) = if s == "+" {
            ("", "+")
        } else if let Some(stripped) = s.strip_suffix("++") {
            (stripped, "+")
        } else {
            match s.rsplit_once('+') {
                Some((m, k)) => (m, k),
                None => ("", s),
            }
        };
        if !mods.is_empty() {
            for m in mods.split('+') {
                match m.to_ascii_lowercase().as_str() {
                    "ctrl" | "control" => chord.ctrl = true,
                    "shift" => chord.shift = true,
                    "alt" => chord.alt = true,
                    "super" | "meta" | "cmd" | "win" => chord.super_ = true,
                    other => {
                        return Err(format!(
                            "unknown modifier {} in {}",
                            quote(other, SHOWN_CHARS),
                            quote(s, SHOWN_CHARS)
                        ))
                    }
                }
            }
        }
        if key.is_empty() {
            return Err(format!("chord {} has no key", quote(s, SHOWN_CHARS)));
        }
        if key.chars().count() == 1 {
            chord.key = key.to_string();
        } else if let Some(n) = NAMED_KEYS.iter().find(|n| n.eq_ignore_ascii_case(key)) {
            chord.key = if *n == "Enter" {
                "Return".into()
            } else {
                n.to_string()
            };
        } else {
            return Err(format!(
                "unknown key {}; use one character or one of {}",
                quote(key, SHOWN_CHARS),
                NAMED_KEYS.join(", ")
            ));
        }
        Ok(chord)
    }
}

/// A validated step.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Activate an element (button, menu item, link).
    Press(ElementRef),
    /// Pointer click.
    Click {
        /// Where.
        target: Target,
        /// Which button.
        button: Button,
        /// 1–3.
        count: u8,
    },
    /// Replace an element's text.
    SetText(ElementRef, String),
    /// Insert text at the caret (of `ref`, or of the focused element).
    TypeText(Option<ElementRef>, String),
    /// Key chords, in order.
    Keypress(Option<ElementRef>, Vec<KeyChord>),
    /// Scroll by steps.
    Scroll {
        /// What to scroll (None: the point or the focused element).
        target: Option<Target>,
        /// Horizontal steps.
        dx: i32,
        /// Vertical steps.
        dy: i32,
    },
    /// Choose an option by label or value.
    Select(ElementRef, String),
    /// Make checked.
    Check(ElementRef),
    /// Make unchecked.
    Uncheck(ElementRef),
    /// Expand.
    Expand(ElementRef),
    /// Collapse.
    Collapse(ElementRef),
    /// Give keyboard focus.
    Focus(ElementRef),
    /// Set a numeric value.
    SetValue(ElementRef, f64),
    /// Press, move along the path, release.
    Drag {
        /// Points (image pixels); the first may be replaced by `from`'s centre.
        path: Vec<Point>,
        /// Start at this element's centre.
        from: Option<ElementRef>,
        /// Which button.
        button: Button,
    },
    /// Move the pointer.
    MoveMouse(Target),
    /// Move the pointer over a target and let hover effects settle.
    Hover(Target),
    /// Pause.
    Wait(u64),
    /// Put files on a file input (the element, its label, or a control that opens its
    /// chooser); the paths were checked to be readable files.
    SetFiles(ElementRef, Vec<std::path::PathBuf>),
}

impl Step {
    /// The wire name of the step.
    pub fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// The kind of the step.
    pub fn kind(&self) -> ActionKind {
        match self {
            Step::Press(_) => ActionKind::Press,
            Step::Click { .. } => ActionKind::Click,
            Step::SetText(..) => ActionKind::SetText,
            Step::TypeText(..) => ActionKind::TypeText,
            Step::Keypress(..) => ActionKind::Keypress,
            Step::Scroll { .. } => ActionKind::Scroll,
            Step::Select(..) => ActionKind::Select,
            Step::Check(_) => ActionKind::Check,
            Step::Uncheck(_) => ActionKind::Uncheck,
            Step::Expand(_) => ActionKind::Expand,
            Step::Collapse(_) => ActionKind::Collapse,
            Step::Focus(_) => ActionKind::Focus,
            Step::SetValue(..) => ActionKind::SetValue,
            Step::Drag { .. } => ActionKind::Drag,
            Step::MoveMouse(_) => ActionKind::MoveMouse,
            Step::Hover(_) => ActionKind::Hover,
            Step::Wait(_) => ActionKind::Wait,
            Step::SetFiles(..) => ActionKind::SetFiles,
        }
    }

    /// Every element ref the step names.
    pub fn refs(&self) -> Vec<ElementRef> {
        let t = |t: &Target| match t {
            Target::Ref(r) => Some(*r),
            Target::Point(_) => None,
        };
        match self {
            Step::Press(r)
            | Step::SetText(r, _)
            | Step::Select(r, _)
            | Step::Check(r)
            | Step::Uncheck(r)
            | Step::Expand(r)
            | Step::Collapse(r)
            | Step::Focus(r)
            | Step::SetValue(r, _)
            | Step::SetFiles(r, _) => vec![*r],
            Step::TypeText(r, _) | Step::Keypress(r, _) => r.iter().copied().collect(),
            Step::Click { target, .. } | Step::MoveMouse(target) | Step::Hover(target) => {
                t(target).into_iter().collect()
            }
            Step::Scroll { target, .. } => target.as_ref().and_then(t).into_iter().collect(),
            Step::Drag { from, .. } => from.iter().copied().collect(),
            Step::Wait(_) => vec![],
        }
    }

    /// Whether the step needs raw coordinates of an image.
    pub fn uses_points(&self) -> bool {
        match self {
            Step::Click { target, .. } | Step::MoveMouse(target) | Step::Hover(target) => {
                matches!(target, Target::Point(_))
            }
            Step::Scroll { target, .. } => matches!(target, Some(Target::Point(_))),
            Step::Drag { .. } => true,
            _ => false,
        }
    }

    /// Whether the step can only be done with physical pointer input.
    pub fn is_pointer_only(&self) -> bool {
        matches!(
            self,
            Step::Click { .. } | Step::Drag { .. } | Step::MoveMouse(_) | Step::Hover(_)
        )
    }
}

impl RawStep {
    fn present_fields(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut add = |present: bool, name: &'static str| {
            if present {
                v.push(name)
            }
        };
        add(self.target.is_some(), "ref");
        add(self.x.is_some(), "x");
        add(self.y.is_some(), "y");
        add(self.button.is_some(), "button");
        add(self.count.is_some(), "count");
        add(self.text.is_some(), "text");
        add(self.keys.is_some(), "keys");
        add(self.value.is_some(), "value");
        add(self.scroll_x.is_some(), "scrollX");
        add(self.scroll_y.is_some(), "scrollY");
        add(self.path.is_some(), "path");
        add(self.ms.is_some(), "ms");
        add(self.paths.is_some(), "paths");
        v
    }

    /// Checks every field and builds the typed step. `at` names the step in messages
    /// (e.g. `actions[2]`).
    pub fn validate(&self, at: &str) -> Result<Step> {
        let action = self.action.as_str();
        let kind = ActionKind::from_wire(action).ok_or_else(|| {
            let all: Vec<&str> = ActionKind::ALL.iter().map(|k| k.as_str()).collect();
            Error::invalid(
                &format!("{at}.action"),
                format!(
                    "unknown action {:?}; expected one of {}",
                    truncate(action),
                    all.join(", ")
                ),
            )
        })?;
        let allowed = kind.fields();
        for f in self.present_fields() {
            if !allowed.contains(&f) {
                return Err(Error::invalid(
                    &format!("{at}.{f}"),
                    format!("not a field of {action} (allowed: {})", allowed.join(", ")),
                ));
            }
        }
        let v = Fields { raw: self, at };
        let name = kind.as_str();
        Ok(match kind {
            ActionKind::Press => Step::Press(v.element(name)?),
            ActionKind::Check => Step::Check(v.element(name)?),
            ActionKind::Uncheck => Step::Uncheck(v.element(name)?),
            ActionKind::Expand => Step::Expand(v.element(name)?),
            ActionKind::Collapse => Step::Collapse(v.element(name)?),
            ActionKind::Focus => Step::Focus(v.element(name)?),
            ActionKind::Click => v.click()?,
            ActionKind::SetText => Step::SetText(v.element(name)?, v.text(name)?),
            ActionKind::TypeText => v.type_text()?,
            ActionKind::Keypress => v.keypress()?,
            ActionKind::Scroll => v.scroll()?,
            ActionKind::Select => Step::Select(v.element(name)?, v.option()?),
            ActionKind::SetValue => Step::SetValue(v.element(name)?, v.number()?),
            ActionKind::Drag => v.drag()?,
            ActionKind::MoveMouse => Step::MoveMouse(v.target(name)?),
            ActionKind::Hover => Step::Hover(v.target(name)?),
            ActionKind::Wait => v.wait()?,
            ActionKind::SetFiles => Step::SetFiles(v.element(name)?, v.files()?),
        })
    }
}

/// The fields of one raw step, read and checked one kind of value at a time.
struct Fields<'a> {
    raw: &'a RawStep,
    at: &'a str,
}

impl Fields<'_> {
    fn invalid(&self, field: &str, message: impl std::fmt::Display) -> Error {
        Error::invalid(&format!("{}.{field}", self.at), message)
    }

    fn element(&self, what: &str) -> Result<ElementRef> {
        self.raw
            .target
            .ok_or_else(|| self.invalid("ref", format!("{what} needs an element ref (@eN)")))
    }

    fn target(&self, what: &str) -> Result<Target> {
        match (self.raw.target, self.raw.x, self.raw.y) {
            (Some(r), None, None) => Ok(Target::Ref(r)),
            (None, Some(x), Some(y)) => {
                check_coord(self.at, "x", x)?;
                check_coord(self.at, "y", y)?;
                Ok(Target::Point(Point { x, y }))
            }
            (Some(_), _, _) => {
                Err(self.invalid("x", format!("{what} takes either ref or x and y, not both")))
            }
            _ => Err(self.invalid("ref", format!("{what} needs ref, or both x and y"))),
        }
    }

    fn button(&self) -> Result<Button> {
        Button::parse(self.at, self.raw.button.as_deref())
    }

    fn text(&self, what: &str) -> Result<String> {
        let t = self
            .raw
            .text
            .clone()
            .ok_or_else(|| self.invalid("text", format!("{what} needs text")))?;
        if t.chars().count() > MAX_TEXT_CHARS {
            return Err(self.invalid("text", format!("longer than {MAX_TEXT_CHARS} characters")));
        }
        Ok(t)
    }

    fn click(&self) -> Result<Step> {
        let count = self.raw.count.unwrap_or(1);
        if !(1..=3).contains(&count) {
            return Err(self.invalid("count", "expected 1, 2 or 3"));
        }
        Ok(Step::Click {
            target: self.target("click")?,
            button: self.button()?,
            count,
        })
    }

    fn type_text(&self) -> Result<Step> {
        let t = self.text("typeText")?;
        if t.is_empty() {
            return Err(self.invalid("text", "typeText needs non-empty text"));
        }
        Ok(Step::TypeText(self.raw.target, t))
    }

    fn keypress(&self) -> Result<Step> {
        let keys = self.raw.keys.as_ref().ok_or_else(|| {
            self.invalid(
                "keys",
                "keypress needs keys, e.g. \"ctrl+s\" or [\"ctrl+a\", \"Delete\"]",
            )
        })?;
        let chords = keys.chords(&format!("{}.keys", self.at))?;
        Ok(Step::Keypress(self.raw.target, chords))
    }

    fn scroll(&self) -> Result<Step> {
        let dx = self.raw.scroll_x.unwrap_or(0);
        let dy = self.raw.scroll_y.unwrap_or(0);
        if dx == 0 && dy == 0 {
            return Err(self.invalid("scrollY", "scroll needs a non-zero scrollX or scrollY"));
        }
        if dx.abs() > 100 || dy.abs() > 100 {
            return Err(self.invalid("scrollY", "at most 100 steps"));
        }
        let r = self.raw;
        let target = if r.target.is_none() && r.x.is_none() && r.y.is_none() {
            None
        } else {
            Some(self.target("scroll")?)
        };
        Ok(Step::Scroll { target, dx, dy })
    }

    /// A `select` option: a label or value, numbers as written.
    fn option(&self) -> Result<String> {
        match &self.raw.value {
            Some(Scalar::Text(s)) if !s.is_empty() => Ok(s.clone()),
            Some(Scalar::Number(n)) => Ok(format_number(*n)),
            _ => Err(self.invalid("value", "select needs the option's label or value")),
        }
    }

    /// A `setValue` number (a numeric string is accepted).
    fn number(&self) -> Result<f64> {
        let n = match &self.raw.value {
            Some(Scalar::Number(n)) => Some(*n),
            Some(Scalar::Text(s)) => s.trim().parse::<f64>().ok(),
            None => None,
        };
        n.filter(|n| n.is_finite())
            .ok_or_else(|| self.invalid("value", "setValue needs a number"))
    }

    fn drag(&self) -> Result<Step> {
        let path = self.raw.path.clone().unwrap_or_default();
        let min = if self.raw.target.is_some() { 1 } else { 2 };
        if path.len() < min || path.len() > 50 {
            return Err(self.invalid("path", format!("expected {min} to 50 points")));
        }
        for (i, p) in path.iter().enumerate() {
            check_coord(self.at, &format!("path[{i}].x"), p.x)?;
            check_coord(self.at, &format!("path[{i}].y"), p.y)?;
        }
        Ok(Step::Drag {
            path,
            from: self.raw.target,
            button: self.button()?,
        })
    }

    fn wait(&self) -> Result<Step> {
        let ms = self
            .raw
            .ms
            .ok_or_else(|| self.invalid("ms", "wait needs ms"))?;
        if ms > MAX_WAIT_MS {
            return Err(self.invalid("ms", format!("at most {MAX_WAIT_MS}")));
        }
        Ok(Step::Wait(ms))
    }
}

impl Fields<'_> {
    /// The paths of a `setFiles` step: 1 to [`MAX_FILES`], each absolute (the daemon's working
    /// directory is not the caller's) and a regular file this process can open. Checked here,
    /// once for every backend, so a missing file is refused before anything reaches the page;
    /// the error names the path (the caller's own argument), shortened.
    fn files(&self) -> Result<Vec<std::path::PathBuf>> {
        let paths = self.raw.paths.as_deref().unwrap_or_default();
        if paths.is_empty() || paths.len() > MAX_FILES {
            return Err(self.invalid("paths", format!("expected 1 to {MAX_FILES} file paths")));
        }
        paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let bad = |why: &str| {
                    self.invalid(&format!("paths[{i}]"), format!("{} {why}", quote(p, 120)))
                };
                let path = std::path::PathBuf::from(p);
                if !path.is_absolute() {
                    return Err(bad("is not an absolute path"));
                }
                match std::fs::metadata(&path) {
                    Ok(m) if m.is_file() => {}
                    Ok(_) => return Err(bad("is not a regular file")),
                    Err(_) => return Err(bad("does not exist")),
                }
                std::fs::File::open(&path).map_err(|_| bad("cannot be read"))?;
                Ok(path)
            })
            .collect()
    }
}

/// The refusal of `setFiles` by a backend without file inputs (desktop apps take files
/// through their own dialogs; `who` names the backend). Nothing was sent.
pub fn set_files_unsupported(who: &str) -> Error {
    Error::unsupported(format!(
        "{who} has no file inputs: setFiles works on browser pages only; nothing was sent"
    ))
    .with_hint("In a desktop app, open its file dialog (press its Open… control) and type the path into the dialog's name field.")
}

fn check_coord(at: &str, field: &str, v: f64) -> Result<()> {
    if !v.is_finite() || !(0.0..=100_000.0).contains(&v) {
        return Err(Error::invalid(
            &format!("{at}.{field}"),
            "expected a pixel between 0 and 100000",
        ));
    }
    Ok(())
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Validates a whole batch: 1–20 steps, every one valid.
pub fn validate_steps(raw: &[RawStep]) -> Result<Vec<Step>> {
    if raw.is_empty() || raw.len() > MAX_STEPS {
        return Err(Error::invalid(
            "actions",
            format!("expected 1 to {MAX_STEPS} steps, got {}", raw.len()),
        ));
    }
    raw.iter()
        .enumerate()
        .map(|(i, s)| s.validate(&format!("actions[{i}]")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: serde_json::Value) -> RawStep {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn set_files_takes_readable_absolute_files() {
        let dir = std::env::temp_dir().join(format!("uidriver-setfiles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.txt");
        std::fs::write(&f, "x").unwrap();
        let step = |paths: serde_json::Value| {
            raw(serde_json::json!({"action": "setFiles", "ref": "@e1", "paths": paths}))
                .validate("actions[0]")
        };
        let ok = step(serde_json::json!([f.display().to_string()])).unwrap();
        assert_eq!(ok, Step::SetFiles("@e1".parse().unwrap(), vec![f.clone()]));
        assert_eq!(ok.refs().len(), 1);
        let missing = dir.join("missing.txt").display().to_string();
        let e = step(serde_json::json!([f.display().to_string(), missing])).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidArgs);
        assert!(
            e.message.starts_with("actions[0].paths[1]: "),
            "{}",
            e.message
        );
        assert!(e.message.contains("missing.txt") && e.message.contains("does not exist"));
        let e = step(serde_json::json!([dir.display().to_string()])).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{}", e.message);
        let e = step(serde_json::json!(["a.txt"])).unwrap_err();
        assert!(e.message.contains("not an absolute path"), "{}", e.message);
        assert!(step(serde_json::json!([])).is_err());
        let e = raw(serde_json::json!({"action": "setFiles", "paths": [f.display().to_string()]}))
            .validate("actions[0]")
            .unwrap_err();
        assert!(e.message.contains("needs an element ref"), "{}", e.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_are_one_string_or_a_list() {
        let chords = |v: serde_json::Value| {
            raw(serde_json::json!({"action": "keypress", "keys": v}))
                .validate("actions[0]")
                .map(|s| match s {
                    Step::Keypress(_, c) => c.len(),
                    _ => 0,
                })
        };
        assert_eq!(chords(serde_json::json!("ctrl+h")).unwrap(), 1);
        assert_eq!(chords(serde_json::json!("ctrl+a  Delete")).unwrap(), 2);
        assert_eq!(
            chords(serde_json::json!(["shift+Tab", "Return"])).unwrap(),
            2
        );
        let e = chords(serde_json::json!("")).unwrap_err();
        assert!(
            e.message.starts_with("actions[0].keys: expected 1 to 50"),
            "{}",
            e.message
        );
        let e = chords(serde_json::json!("ctrl+nosuchkey")).unwrap_err();
        assert!(e.message.starts_with("actions[0].keys[0]"), "{}", e.message);
        let bad =
            serde_json::from_value::<RawStep>(serde_json::json!({"action": "keypress", "keys": 5}));
        assert!(bad.unwrap_err().to_string().contains("a chord such as"));
    }

    #[test]
    fn validates_fields_per_action() {
        let ok = raw(serde_json::json!({"action": "press", "ref": "@e12"}));
        assert_eq!(
            ok.validate("a").unwrap(),
            Step::Press("@e12".parse().unwrap())
        );
        let bad = raw(serde_json::json!({"action": "press", "ref": "@e1", "text": "x"}));
        let e = bad.validate("actions[0]").unwrap_err();
        assert!(e.message.starts_with("actions[0].text"), "{}", e.message);
        let click = raw(serde_json::json!({"action": "click", "x": 10, "y": 20, "count": 2}));
        assert!(matches!(
            click.validate("a").unwrap(),
            Step::Click { count: 2, .. }
        ));
        let c4 = raw(serde_json::json!({"action": "click", "ref": "@e1", "count": 4}));
        assert!(c4.validate("a").unwrap_err().message.contains("count"));
        let both = raw(serde_json::json!({"action": "click", "ref": "@e1", "x": 1, "y": 1}));
        assert!(both.validate("a").is_err());
        let unknown = raw(serde_json::json!({"action": "teleport"}));
        assert!(unknown
            .validate("a")
            .unwrap_err()
            .message
            .contains("unknown action"));
        assert!(serde_json::from_value::<RawStep>(
            serde_json::json!({"action": "press", "bogus": 1})
        )
        .is_err());
        assert!(validate_steps(&[]).is_err());
        assert!(validate_steps(&vec![ok.clone(); 21]).is_err());
        assert_eq!(validate_steps(&vec![ok; 20]).unwrap().len(), 20);
    }

    #[test]
    fn parses_chords() {
        let c = KeyChord::parse("ctrl+s").unwrap();
        assert!(c.ctrl && !c.shift && c.key == "s");
        let c = KeyChord::parse("shift+Tab").unwrap();
        assert!(c.shift && c.key == "Tab");
        assert_eq!(KeyChord::parse("enter").unwrap().key, "Return");
        assert_eq!(KeyChord::parse("ctrl++").unwrap().key, "+");
        assert_eq!(KeyChord::parse("+").unwrap().key, "+");
        assert_eq!(KeyChord::parse("ä").unwrap().key, "ä");
        assert!(KeyChord::parse("hyper+x").is_err());
        assert!(KeyChord::parse("ctrl+").is_err());
        assert!(KeyChord::parse("Fooo").is_err());
    }

    /// Issue 14 (found by the `tool_args` fuzz target, kept in
    /// `fuzz/regressions/tool_args/act_ui-long-chord-message`): an unknown chord was echoed
    /// whole, twice, escaped, so 130 control characters made a 1.6 kB error.
    #[test]
    fn chord_errors_do_not_echo_long_input() {
        let long = format!("ct{}rl+'s", "\u{7f}".repeat(500));
        for chord in [long.clone(), format!("{long}+"), "x".repeat(5000)] {
            let e = KeyChord::parse(&chord).unwrap_err();
            assert!(e.len() < 800, "{} bytes: {e}", e.len());
        }
    }
}
