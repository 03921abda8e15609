//! The data a backend hands to core: roots, nodes and snapshots, in platform-neutral terms.
//!
//! Everything here is plain data. How a snapshot becomes a stored state with refs is
//! `state.rs`; how it is shown is `outline.rs`.

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::vocab::{CapSet, Role, StateSet};

/// A property read from a platform: known, known to be absent, or not readable.
///
/// A failed read is never turned into "absent" or `false`: `Unknown` withholds judgement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Evidence<T> {
    /// The platform answered with this value.
    Known(T),
    /// The platform answered that there is none.
    #[default]
    Absent,
    /// The read failed or timed out.
    Unknown,
}

impl<T> Evidence<T> {
    /// The value when known.
    pub fn known(&self) -> Option<&T> {
        match self {
            Evidence::Known(v) => Some(v),
            _ => None,
        }
    }
    /// Whether the read failed.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Evidence::Unknown)
    }
}

impl Evidence<String> {
    /// Known and non-empty text, or `None`.
    pub fn text(&self) -> Option<&str> {
        match self {
            Evidence::Known(s) if !s.is_empty() => Some(s),
            _ => None,
        }
    }
    /// Builds from platform text where an empty string means "none".
    pub fn from_text(s: impl Into<String>) -> Self {
        let s = s.into();
        if s.is_empty() {
            Evidence::Absent
        } else {
            Evidence::Known(s)
        }
    }
}

/// A rectangle in screen pixels (x, y of the top-left corner).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Bounds {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width.
    pub width: i32,
    /// Height.
    pub height: i32,
}

impl Bounds {
    /// Creates a rectangle.
    pub fn new(x: i32, y: i32, width: i32, height: i32) -> Self {
        Bounds {
            x,
            y,
            width,
            height,
        }
    }
    /// Whether it has a positive area.
    pub fn is_visible(&self) -> bool {
        self.width > 0 && self.height > 0
    }
    /// The centre point.
    pub fn center(&self) -> (i32, i32) {
        (
            self.x.saturating_add(self.width / 2),
            self.y.saturating_add(self.height / 2),
        )
    }
    /// The right edge (exclusive). Saturating, as in every method here: rectangles come from
    /// apps and pages, and an extent of `i32::MAX` must not overflow.
    fn right(&self) -> i32 {
        self.x.saturating_add(self.width)
    }
    /// The bottom edge (exclusive).
    fn bottom(&self) -> i32 {
        self.y.saturating_add(self.height)
    }
    /// Whether a point lies inside.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x && y >= self.y && x < self.right() && y < self.bottom()
    }
    /// Whether `other` lies entirely inside (with `slack` pixels of tolerance).
    pub fn encloses(&self, other: &Bounds, slack: i32) -> bool {
        other.x >= self.x.saturating_sub(slack)
            && other.y >= self.y.saturating_sub(slack)
            && other.right() <= self.right().saturating_add(slack)
            && other.bottom() <= self.bottom().saturating_add(slack)
    }
    /// The overlapping part, if any.
    pub fn intersect(&self, other: &Bounds) -> Option<Bounds> {
        let x0 = self.x.max(other.x);
        let y0 = self.y.max(other.y);
        let x1 = self.right().min(other.right());
        let y1 = self.bottom().min(other.bottom());
        (x1 > x0 && y1 > y0)
            .then(|| Bounds::new(x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0)))
    }
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}+{}+{}", self.width, self.height, self.x, self.y)
    }
}

/// A numeric value with its range (sliders, spin buttons, progress bars).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NumericValue {
    /// Current value.
    pub current: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Smallest step, 0 when continuous or unknown.
    pub step: f64,
}

/// Where a backend stopped describing a subtree, and how much it left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Children not described, when the backend could count them.
    pub skipped: Option<u32>,
    /// Why: `deadline`, `cap`, `unresponsive`, `depth`, `error`; or on purpose: `hidden` (not
    /// on screen), `offscreen` (a read can reach them: `expand_ui`, or a search by a cell's
    /// address), `scroll` (only scrolling brings them into view).
    pub reason: String,
}

/// One element as a backend describes it.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// Canonical role.
    pub role: Role,
    /// The platform's own role name, for `inspect_ui`.
    pub native_role: String,
    /// Accessible name.
    pub name: Evidence<String>,
    /// Accessible description.
    pub description: Evidence<String>,
    /// Current value as text (entry text, selected option, formatted number). Redacted for passwords.
    pub value: Evidence<String>,
    /// Numeric value and range, for range controls.
    pub numeric: Option<NumericValue>,
    /// Length of the element's text in characters, when it has text.
    pub text_len: Option<u32>,
    /// State tokens.
    pub states: Evidence<StateSet>,
    /// What can be done with it.
    pub caps: CapSet,
    /// The platform's action names, in platform order.
    pub actions: Vec<String>,
    /// Screen rectangle.
    pub bounds: Option<Bounds>,
    /// The developer-assigned id (AT-SPI accessible-id, DOM id).
    pub native_id: Option<String>,
    /// The backend's identity for the live element (bus name + object path, backend DOM node id).
    /// Used to match refs across states and to address the element when acting.
    pub handle: String,
    /// Text seen on screen inside this element's box (OCR), when an image was read.
    pub visual_text: Option<String>,
    /// Index of the parent in the snapshot (None for the root).
    pub parent: Option<usize>,
    /// Indices of the children, in order.
    pub children: Vec<usize>,
    /// Set when the backend did not describe all children.
    pub truncated: Option<Truncation>,
}

// The vocabulary macro does not derive Default; unknown is the honest default role.
#[allow(clippy::derivable_impls)]
impl Default for Role {
    fn default() -> Self {
        Role::Unknown
    }
}

/// Whether an element of `role` with `states` holds a secret (a password field): its value is
/// redacted in looks and traces and read back only by length. The one rule; the wire form is
/// [`is_secret_on_wire`].
pub fn is_secret(role: Role, states: StateSet) -> bool {
    role == Role::PasswordText || states.contains(crate::vocab::StateFlag::Password)
}

/// [`is_secret`] on the wire spellings of a role and its state tokens (a trace's node).
pub fn is_secret_on_wire<'a>(role: &str, states: impl IntoIterator<Item = &'a str>) -> bool {
    let role = Role::from_wire(role).unwrap_or(Role::Unknown);
    let states = states
        .into_iter()
        .filter_map(crate::vocab::StateFlag::from_wire)
        .collect();
    is_secret(role, states)
}

impl Node {
    /// Whether the node holds a secret ([`is_secret`]).
    pub fn is_secret(&self) -> bool {
        is_secret(self.role, self.state_set())
    }

    /// Whether the node carries a state (false when states are unknown).
    pub fn has_state(&self, f: crate::vocab::StateFlag) -> bool {
        self.states.known().is_some_and(|s| s.contains(f))
    }
    /// Known state set or empty.
    pub fn state_set(&self) -> StateSet {
        self.states.known().copied().unwrap_or_default()
    }
}

/// A kind of root.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RootKind {
    /// A top-level application window.
    Window,
    /// A dialog.
    Dialog,
    /// A menu surface.
    Menu,
    /// A popover or other transient surface.
    Popover,
    /// A sheet attached to a window.
    Sheet,
    /// A browser page reached over CDP.
    BrowserPage,
}

impl RootKind {
    /// Wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RootKind::Window => "window",
            RootKind::Dialog => "dialog",
            RootKind::Menu => "menu",
            RootKind::Popover => "popover",
            RootKind::Sheet => "sheet",
            RootKind::BrowserPage => "browser_page",
        }
    }
}

/// The physical resource live work is serialized on: one lane and one epoch per key. The key is
/// the backend's own, opaque to core and the service; backends choose what it names (Linux: the
/// process, as focus, menus and input cross the windows of one app; CDP: the page target).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ResourceKey(String);

impl ResourceKey {
    /// A key from its backend's spelling (e.g. `desktop-pid:4242`, `cdp:TARGET`).
    pub fn new(key: impl Into<String>) -> Self {
        ResourceKey(key.into())
    }

    /// The backend's spelling.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A root as a backend lists it. `key` is the backend's durable identity for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootInfo {
    /// The backend's identity (e.g. X11 window id + pid + process start time). Never shown to models.
    pub key: String,
    /// Which backend owns it (`linux`, `cdp`).
    pub backend: String,
    /// Kind of surface.
    pub kind: RootKind,
    /// Application name.
    pub app: String,
    /// Owning process.
    pub pid: Option<u32>,
    /// Window title or page title.
    pub title: String,
    /// Whether it has keyboard focus (the active window / the focused page).
    pub focused: bool,
    /// Whether it is modal.
    pub modal: bool,
    /// Screen rectangle.
    pub bounds: Option<Bounds>,
    /// The lane its live work runs in.
    pub resource: ResourceKey,
    /// Stacking position, higher is nearer the front.
    pub stacking: Option<u32>,
    /// False for windows whose application exposes no accessibility tree (observed visually).
    pub has_tree: bool,
    /// Minimized, unmapped or otherwise not on screen.
    pub hidden: bool,
    /// The backend's id of the native window showing this root, when it has one (the X11 window
    /// id on Linux): capture and the frame lease use it; core and the service never decode it.
    pub window_id: Option<u64>,
    /// A page URL, for browser pages.
    pub url: Option<String>,
}

/// Time spent producing a snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// Wall time of the whole observation, milliseconds.
    pub total_ms: f64,
    /// Time spent describing the tree (accessibility calls), milliseconds.
    pub describe_ms: f64,
    /// Platform calls made (D-Bus calls, CDP commands).
    pub calls: u32,
    /// Other named phases (capture, ocr, boxes), milliseconds.
    #[serde(flatten)]
    pub phases: BTreeMap<String, f64>,
}

/// Raw pixels from a capture, before scaling and encoding (RGB, 3 bytes a pixel).
#[derive(Clone, Debug)]
pub struct RawImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major RGB bytes.
    pub rgb: Vec<u8>,
    /// The screen rectangle the pixels show.
    pub screen: Bounds,
    /// True when the pixels came from the screen (another window may cover the target).
    pub maybe_occluded: bool,
}

/// An image attached to a state: PNG bytes and the exact mapping to the screen.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageInfo {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// The screen rectangle the image shows.
    pub screen: Bounds,
    /// Whether another window may cover parts of it.
    pub maybe_occluded: bool,
    /// PNG bytes (not serialized into JSON results; sent as image content).
    #[serde(skip)]
    pub png: std::sync::Arc<Vec<u8>>,
    /// The native window the image belongs to ([`RootInfo::window_id`]; the frame lease checks
    /// it before coordinate input).
    pub window_id: Option<u64>,
}

impl ImageInfo {
    /// Maps an image pixel to a screen pixel (per axis, using the delivered size).
    pub fn to_screen(&self, x: f64, y: f64) -> (i32, i32) {
        // Multiply before dividing: exact for every whole-pixel input (dividing first loses the
        // far edge by one pixel for ~5% of window sizes).
        (
            self.screen.x
                + (x * self.screen.width as f64 / self.width.max(1) as f64).floor() as i32,
            self.screen.y
                + (y * self.screen.height as f64 / self.height.max(1) as f64).floor() as i32,
        )
    }
    /// Maps a screen rectangle into image pixels.
    pub fn to_image(&self, b: &Bounds) -> Bounds {
        let sx = self.width as f64 / self.screen.width.max(1) as f64;
        let sy = self.height as f64 / self.screen.height.max(1) as f64;
        Bounds::new(
            ((b.x - self.screen.x) as f64 * sx).round() as i32,
            ((b.y - self.screen.y) as f64 * sy).round() as i32,
            (b.width as f64 * sx).round() as i32,
            (b.height as f64 * sy).round() as i32,
        )
    }
}

/// One word or line found by OCR, in screen coordinates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OcrText {
    /// The text.
    pub text: String,
    /// Screen rectangle.
    pub bounds: Bounds,
    /// Confidence 0–100.
    pub confidence: f32,
}

/// What a backend returns for one look at one root.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Nodes in pre-order; index 0 is the root element.
    pub nodes: Vec<Node>,
    /// True when every showing node was described.
    pub complete: bool,
    /// Time spent.
    pub timings: Timings,
    /// Things the reader should know (e.g. "cache incomplete: walked 3 containers").
    pub notes: Vec<String>,
}

impl Snapshot {
    /// Index of the first focused node.
    pub fn focused(&self) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.has_state(crate::vocab::StateFlag::Focused))
    }
    /// A copy where the subtree at `at` is replaced by `sub` (whose node 0 is the new `at`).
    /// Used when a truncated region is read again; the result is in pre-order.
    ///
    /// `sub` comes from a backend, so it is checked first: an empty or malformed region is an
    /// error (saying which), never a panic or a tree whose links lie.
    ///
    /// # Errors
    /// When `at` is not a node of this tree, or either tree fails [`Snapshot::check`].
    pub fn graft(&self, at: usize, sub: &Snapshot) -> Result<Snapshot, String> {
        if at >= self.nodes.len() {
            return Err(format!("node {at} is not in the tree"));
        }
        self.check().map_err(|why| format!("the tree: {why}"))?;
        sub.check().map_err(|why| format!("the region: {why}"))?;
        let mut out = Snapshot {
            nodes: Vec::with_capacity(self.nodes.len() + sub.nodes.len()),
            complete: self.complete && sub.complete,
            timings: sub.timings.clone(),
            notes: self.notes.clone(),
        };
        out.notes.extend(sub.notes.iter().cloned());
        // Walk the old tree in pre-order; at `at`, walk `sub` instead.
        enum From {
            Old(usize),
            Sub(usize),
        }
        let mut stack = vec![(From::Old(0), None::<usize>)];
        while let Some((from, parent)) = stack.pop() {
            let (node, kids): (&Node, Vec<From>) = match from {
                From::Old(i) if i == at => (
                    &sub.nodes[0],
                    sub.nodes[0]
                        .children
                        .iter()
                        .map(|&c| From::Sub(c))
                        .collect(),
                ),
                From::Old(i) => (
                    &self.nodes[i],
                    self.nodes[i]
                        .children
                        .iter()
                        .map(|&c| From::Old(c))
                        .collect(),
                ),
                From::Sub(i) => (
                    &sub.nodes[i],
                    sub.nodes[i]
                        .children
                        .iter()
                        .map(|&c| From::Sub(c))
                        .collect(),
                ),
            };
            let idx = out.nodes.len();
            let mut n = node.clone();
            n.parent = parent;
            n.children.clear();
            out.nodes.push(n);
            if let Some(p) = parent {
                out.nodes[p].children.push(idx);
            }
            for k in kids.into_iter().rev() {
                stack.push((k, Some(idx)));
            }
        }
        if at == 0 {
            out.nodes[0].parent = None;
        }
        Ok(out)
    }

    /// Renumbers the nodes into pre-order (each subtree contiguous, children in their order)
    /// for a backend that appended a subtree after reading the rest (a frame read on its own).
    /// Nodes not reachable from node 0 are dropped.
    pub fn into_preorder(mut self) -> Snapshot {
        let n = self.nodes.len();
        if n == 0 {
            return self;
        }
        // (old index, parent's new index) in visiting order. Each node is taken once, under the
        // first parent that lists it, and links are rebuilt from the walk: a backend's tree
        // with a cycle, a shared child or an index out of range gives a valid tree, not a loop
        // or a panic.
        let mut seen = vec![false; n];
        let mut order: Vec<(usize, Option<usize>)> = Vec::with_capacity(n);
        let mut stack = vec![(0usize, None)];
        while let Some((i, parent)) = stack.pop() {
            if i >= n || seen[i] {
                continue;
            }
            seen[i] = true;
            let me = order.len();
            order.push((i, parent));
            stack.extend(self.nodes[i].children.iter().rev().map(|&c| (c, Some(me))));
        }
        let mut old: Vec<Option<Node>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        let mut out: Vec<Node> = Vec::with_capacity(order.len());
        for (i, parent) in order {
            // Always Some: `seen` let each index into `order` once.
            let Some(mut node) = old[i].take() else {
                continue;
            };
            node.parent = parent;
            node.children.clear();
            if let Some(p) = parent {
                let me = out.len();
                out[p].children.push(me);
            }
            out.push(node);
        }
        self.nodes = out;
        self
    }

    /// Checks structural invariants (a root node, parents precede children, links agree, no
    /// child listed twice). The service refuses a backend's tree that fails it, so code after
    /// that may index a checked tree by its links.
    ///
    /// # Errors
    /// The first broken invariant, in words.
    pub fn check(&self) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("no root node".into());
        }
        let links: usize = self.nodes.iter().map(|n| n.children.len()).sum();
        if links != self.nodes.len() - 1 {
            // Every other node is in its parent's list (checked below), so more links than
            // nodes means a child listed twice: walking the tree would visit it twice.
            return Err(format!(
                "{links} child links for {} nodes",
                self.nodes.len()
            ));
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if i == 0 && n.parent.is_some() {
                return Err("root has a parent".into());
            }
            if i > 0 {
                let p = n.parent.ok_or(format!("node {i} has no parent"))?;
                if p >= i {
                    return Err(format!("node {i} parent {p} is not before it"));
                }
                if !self.nodes[p].children.contains(&i) {
                    return Err(format!("node {i} missing from parent {p}'s children"));
                }
            }
            for &c in &n.children {
                if c >= self.nodes.len() || self.nodes[c].parent != Some(i) {
                    return Err(format!("node {i} lists bad child {c}"));
                }
            }
        }
        Ok(())
    }
}

/// A page of text read from an element.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TextSlice {
    /// The text of the range.
    pub text: String,
    /// Start offset in characters.
    pub start: u32,
    /// End offset in characters (exclusive).
    pub end: u32,
    /// Total length in characters.
    pub total: u32,
    /// Runs of the range with formatting (bold, italic, underline, strikethrough), when the
    /// backend reads it; plain text has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub styles: Vec<TextStyle>,
}

/// Characters `start..end` (offsets in the whole text) that carry `style`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TextStyle {
    /// First character.
    pub start: u32,
    /// End (exclusive).
    pub end: u32,
    /// `bold`, `italic`, `underline`, `strikethrough`.
    pub style: Vec<String>,
}

impl TextSlice {
    /// `start..end` in a text of `total` characters, clamped so that start ≤ end ≤ total: the
    /// one rule of ranges for the service and every backend.
    pub fn clamp(start: u32, end: u32, total: u32) -> (u32, u32) {
        let s = start.min(total);
        (s, end.clamp(s, total))
    }

    /// The characters `start..end` (clamped) of a whole text.
    pub fn of(text: &str, start: u32, end: u32) -> TextSlice {
        let total = text.chars().count() as u32;
        let (s, e) = TextSlice::clamp(start, end, total);
        TextSlice {
            text: text
                .chars()
                .skip(s as usize)
                .take((e - s) as usize)
                .collect(),
            start: s,
            end: e,
            total,
            styles: Vec::new(),
        }
    }

    /// The characters `start..end` (clamped) of a whole text whose styled runs are `runs`
    /// (offsets in the whole text): the runs that fall in the slice, clipped to it.
    pub fn of_styled(text: &str, start: u32, end: u32, runs: &[TextStyle]) -> TextSlice {
        let mut slice = TextSlice::of(text, start, end);
        slice.styles = runs
            .iter()
            .filter_map(|r| {
                let (s, e) = (r.start.max(slice.start), r.end.min(slice.end));
                (s < e).then(|| TextStyle {
                    start: s,
                    end: e,
                    style: r.style.clone(),
                })
            })
            .collect();
        slice
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_secret_rule_reads_the_same_on_the_wire() {
        use crate::vocab::StateFlag;
        assert!(is_secret(Role::PasswordText, StateSet::EMPTY));
        assert!(is_secret(
            Role::Text,
            StateSet::EMPTY.with(StateFlag::Password)
        ));
        assert!(!is_secret(
            Role::Text,
            StateSet::EMPTY.with(StateFlag::Editable)
        ));
        assert!(is_secret_on_wire("password-text", []));
        assert!(is_secret_on_wire("text", ["editable", "password"]));
        assert!(!is_secret_on_wire("text", ["editable"]));
    }

    use super::*;

    #[test]
    fn styled_runs_are_clipped_to_the_slice() {
        let run = |start, end| TextStyle {
            start,
            end,
            style: vec!["bold".into()],
        };
        let t = TextSlice::of_styled("plain bold plain", 3, 8, &[run(6, 10), run(12, 14)]);
        assert_eq!(t.text, "in bo");
        assert_eq!(t.styles, vec![run(6, 8)]);
    }

    #[test]
    fn text_ranges_clamp_to_the_text() {
        assert_eq!(TextSlice::clamp(2, 9, 5), (2, 5));
        assert_eq!(TextSlice::clamp(7, 3, 5), (5, 5));
        assert_eq!(TextSlice::clamp(3, 1, 5), (3, 3));
        let t = TextSlice::of("héllo", 1, 3);
        assert_eq!((t.text.as_str(), t.start, t.end, t.total), ("él", 1, 3, 5));
    }

    fn node(name: &str, parent: Option<usize>, children: &[usize]) -> Node {
        Node {
            handle: name.into(),
            parent,
            children: children.to_vec(),
            ..Node::default()
        }
    }

    #[test]
    fn into_preorder_makes_appended_subtrees_contiguous() {
        // root(0) -> a(1) -> frame(2), b(3); the frame's document (4) and its child (5) were
        // appended after b, as a backend reading a frame on its own does.
        let snap = Snapshot {
            nodes: vec![
                node("root", None, &[1, 3]),
                node("a", Some(0), &[2]),
                node("frame", Some(1), &[4]),
                node("b", Some(0), &[]),
                node("doc", Some(2), &[5]),
                node("button", Some(4), &[]),
            ],
            ..Snapshot::default()
        };
        let out = snap.into_preorder();
        let names: Vec<&str> = out.nodes.iter().map(|n| n.handle.as_str()).collect();
        assert_eq!(names, ["root", "a", "frame", "doc", "button", "b"]);
        out.check().expect("well formed");
        assert_eq!(out.nodes[0].children, [1, 5]);
        assert_eq!(out.nodes[3].parent, Some(2));
        assert_eq!(out.nodes[4].parent, Some(3));
        assert_eq!(out.nodes[5].parent, Some(0));
    }

    #[test]
    fn into_preorder_keeps_an_ordered_tree_as_it_is() {
        let snap = Snapshot {
            nodes: vec![node("root", None, &[1]), node("a", Some(0), &[])],
            ..Snapshot::default()
        };
        let out = snap.into_preorder();
        assert_eq!(out.nodes.len(), 2);
        assert_eq!(out.nodes[1].parent, Some(0));
    }

    fn tree() -> Snapshot {
        Snapshot {
            nodes: vec![
                node("root", None, &[1, 2]),
                node("a", Some(0), &[]),
                node("b", Some(0), &[]),
            ],
            ..Snapshot::default()
        }
    }

    /// Issue 14: `graft` indexed `sub.nodes[0]` of the region a backend returned, so an empty
    /// region panicked (and a region whose links lie panicked or built a lying tree).
    #[test]
    fn graft_refuses_an_empty_or_malformed_region() {
        let old = tree();
        let err = old.graft(1, &Snapshot::default()).unwrap_err();
        assert!(err.contains("no root node"), "{err}");
        let lying = Snapshot {
            nodes: vec![node("x", None, &[5])],
            ..Snapshot::default()
        };
        assert!(old.graft(1, &lying).is_err());
        assert!(old.graft(9, &tree()).is_err());
        let ok = old.graft(1, &tree()).expect("a good region grafts");
        ok.check().expect("well formed");
        assert_eq!(ok.nodes.len(), 5);
    }

    /// A backend that lists a child twice (or links a cycle) must not make `into_preorder`
    /// loop, index out of range, or return a tree with lying links.
    #[test]
    fn into_preorder_survives_cycles_shared_children_and_bad_indices() {
        let snap = Snapshot {
            nodes: vec![
                node("root", None, &[1, 1, 9]),
                node("a", Some(7), &[0, 2]),
                node("b", Some(1), &[1]),
                node("orphan", None, &[]),
            ],
            ..Snapshot::default()
        };
        let out = snap.into_preorder();
        out.check().expect("well formed");
        let names: Vec<&str> = out.nodes.iter().map(|n| n.handle.as_str()).collect();
        assert_eq!(names, ["root", "a", "b"]);
    }

    #[test]
    fn check_refuses_an_empty_tree_and_a_child_listed_twice() {
        assert!(Snapshot::default().check().is_err());
        let twice = Snapshot {
            nodes: vec![node("root", None, &[1, 1]), node("a", Some(0), &[])],
            ..Snapshot::default()
        };
        assert!(twice.check().is_err());
        tree().check().expect("well formed");
    }

    /// Rectangles come from apps and pages: extents at the edge of `i32` must not overflow.
    #[test]
    fn bounds_arithmetic_saturates_on_extreme_extents() {
        let huge = Bounds::new(i32::MAX - 1, i32::MAX - 1, i32::MAX, i32::MAX);
        let small = Bounds::new(0, 0, 10, 10);
        assert_eq!(huge.center(), (i32::MAX, i32::MAX));
        assert!(huge.contains(i32::MAX - 1, i32::MAX - 1));
        assert!(!small.encloses(&huge, 4));
        assert!(huge.encloses(&Bounds::new(i32::MAX - 1, i32::MAX - 1, 1, 1), i32::MAX));
        assert_eq!(huge.intersect(&small), None);
        let neg = Bounds::new(i32::MIN, i32::MIN, i32::MAX, i32::MAX);
        assert!(neg.intersect(&Bounds::new(-5, -5, 3, 3)).is_some());
    }
}
