//! The folded outline a model reads first: a line budget spent breadth-first, with the path to
//! the focused element, modal surfaces and truncated regions always unfolded, and every folded
//! line saying what it hides. `search_ui`/`expand_ui` reach everything the fold leaves out.
//!
//! Screen text is untrusted: names and values are always quoted and escaped, so a label that
//! reads like an instruction stays visibly data.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::fmt::Write;

use crate::model::Node;
use crate::pixels_only::pixels_only;
use crate::state::State;
use crate::vocab::{Capability, Role, StateFlag};

/// What a region with no accessible content says after its description.
const PIXELS_ONLY: &str =
    " (pixels only: what it shows is not in the tree; steps into it are checked by OCR)";

/// How much to show.
#[derive(Clone, Debug)]
pub struct OutlineOptions {
    /// Most lines of nodes (the header not counted).
    pub max_lines: usize,
    /// Most children listed under one node before "… N more".
    pub max_children: usize,
    /// Show nodes that are not on screen.
    pub show_hidden: bool,
}

impl Default for OutlineOptions {
    fn default() -> Self {
        OutlineOptions {
            max_lines: 150,
            max_children: 40,
            show_hidden: false,
        }
    }
}

/// A rendered outline.
#[derive(Clone, Debug, Default)]
pub struct Outline {
    /// The lines, joined with newlines.
    pub text: String,
    /// Node lines written.
    pub lines: usize,
    /// Nodes written as folded (children that show left out; not those with hidden ones only).
    pub folded: usize,
}

/// Escapes untrusted text into a quoted, single-line, length-capped string.
pub fn quote(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars) + 2);
    out.push('"');
    for (n, c) in s.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `quote` for a name in a line: at most 100 characters, cut at the end; a name that is a path
/// or a URL (a document named by its file) longer than 64 keeps its start and its end, so the
/// file name stays: `"file:///tmp/uidr…6a-0/home/sales.xlsx - LibreOffice Spreadsheets"`.
/// `inspect_ui` and `search_ui` have it whole.
pub fn quote_name(s: &str) -> String {
    const NAME: usize = 100;
    const PATH: usize = 64;
    let n = s.chars().count();
    let path = s.contains("://") || s.starts_with('/');
    if n <= PATH || !path {
        return quote(s, NAME);
    }
    let head = PATH / 4;
    let tail = PATH - head - 1;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    let (a, b) = (quote(&start, head), quote(&end, tail));
    format!("{}…{}", &a[..a.len() - 1], &b[1..])
}

/// The states a line says (others, like `focusable`, are in `inspect_ui`).
pub(crate) const SHOWN_STATES: &[StateFlag] = &[
    StateFlag::Focused,
    StateFlag::Editable,
    StateFlag::MultiLine,
    StateFlag::Checked,
    StateFlag::Mixed,
    StateFlag::Pressed,
    StateFlag::Selected,
    StateFlag::Expanded,
    StateFlag::Collapsed,
    StateFlag::Disabled,
    StateFlag::Hidden,
    StateFlag::Modal,
    StateFlag::Password,
    StateFlag::Required,
    StateFlag::Invalid,
    StateFlag::Busy,
    StateFlag::Default,
];

/// The part of a line after the ref: role, name, value, states, notes.
pub fn describe(node: &Node) -> String {
    describe_in(node, None)
}

/// `describe` for a line under `parent`: a state the parent's line already says for all it
/// holds (`editable` under an editable document or table) is not said again, and `multi-line`
/// is said of text fields only (where Return inserts a line instead of acting).
pub fn describe_in(node: &Node, parent: Option<&Node>) -> String {
    let inherited =
        |f: StateFlag| f == StateFlag::Editable && parent.is_some_and(|p| p.has_state(f));
    let said = |f: StateFlag| {
        !inherited(f) && (f != StateFlag::MultiLine || matches!(node.role, Role::Text))
    };
    let mut s = String::new();
    s.push_str(node.role.as_str());
    if let Some(name) = node.name.text() {
        s.push(' ');
        s.push_str(&quote_name(name));
    } else if node.name.is_unknown() {
        s.push_str(" (name unread)");
    } else if let Some(d) = node.description.text() {
        // An icon button's only words (GTK 4's "Primary menu"), as a screen reader says them.
        let _ = write!(s, " (description: {})", quote(d, 80));
    } else if let Some(v) = &node.visual_text {
        let _ = write!(s, " (seen: {})", quote(v, 80));
    }
    if let Some(num) = &node.numeric {
        let _ = write!(
            s,
            " = {} ({}–{})",
            trim_num(num.current),
            trim_num(num.min),
            trim_num(num.max)
        );
    } else if let Some(v) = node.value.known() {
        if node.role != Role::Label || node.name.text() != Some(v.as_str()) {
            let _ = write!(s, " = {}", quote(v, 80));
        }
    } else if node.value.is_unknown() {
        s.push_str(" = (unread)");
    }
    if let Some(len) = node.text_len {
        let shown = node.value.text().map(|v| v.chars().count()).unwrap_or(0);
        if len as usize > shown.max(80) {
            let _ = write!(s, " ({len} chars; read_text)");
        }
    }
    match &node.states {
        crate::Evidence::Known(set) => {
            let names: Vec<&str> = SHOWN_STATES
                .iter()
                .filter(|f| set.contains(**f) && said(**f))
                .map(|f| f.as_str())
                .collect();
            if !names.is_empty() {
                let _ = write!(s, " [{}]", names.join(", "));
            }
        }
        crate::Evidence::Unknown => s.push_str(" [states unread]"),
        crate::Evidence::Absent => {}
    }
    if let Some(t) = &node.truncated {
        match t.skipped {
            Some(k) if t.reason == "scroll" => {
                let _ = write!(
                    s,
                    " ✂ {k} children off screen (scroll to bring them into view)"
                );
            }
            Some(k) => {
                let _ = write!(
                    s,
                    " ✂ {k} children not read ({}; expand_ui reads them)",
                    t.reason
                );
            }
            None => {
                let _ = write!(s, " ✂ not fully read ({})", t.reason);
            }
        }
    }
    s
}

pub(crate) fn trim_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Whether a node is a wrapper that carries nothing an agent could use; its children are shown
/// in its place.
pub fn is_transparent(node: &Node) -> bool {
    let actionable = acts(node);
    node.role.is_container()
        && node.name.text().is_none()
        && node.value.text().is_none()
        && node.visual_text.is_none()
        && !actionable
        && !node.has_state(StateFlag::Focused)
        && node.truncated.is_none()
}

/// Whether something can be done to a node beyond reading it (press, toggle, type, …).
fn acts(node: &Node) -> bool {
    [
        Capability::Press,
        Capability::Toggle,
        Capability::Select,
        Capability::SetText,
        Capability::TypeText,
        Capability::SetValue,
        Capability::Expand,
    ]
    .iter()
    .any(|c| node.caps.contains(*c))
}

/// Whether a leaf says nothing (unnamed label, image or container); omitted from outlines.
fn is_empty_leaf(node: &Node) -> bool {
    node.children.is_empty()
        && node.truncated.is_none()
        && node.name.text().is_none()
        && node.value.text().is_none()
        && node.visual_text.is_none()
        && !node.has_state(StateFlag::Focused)
        && matches!(
            node.role,
            Role::Label
                | Role::Image
                | Role::Pane
                | Role::Group
                | Role::Section
                | Role::Unknown
                | Role::Separator
                | Role::Paragraph
                | Role::ScrollPane
        )
}

/// Whether `i` is a label that only repeats the name of `of`, the element it is shown in (GTK 4's
/// buttons hold their label: `button "7"` then `label "7"`).
fn repeats_name(state: &State, i: usize, of: usize) -> bool {
    let n = &state.snapshot.nodes[i];
    n.role == Role::Label
        && n.children.is_empty()
        && !n.has_state(StateFlag::Focused)
        && n.value.text().is_none()
        && n.name
            .text()
            .is_some_and(|t| state.snapshot.nodes[of].name.text() == Some(t))
}

/// The one child a wrapper holds when the wrapper says nothing more than that child: a
/// paragraph or pane with nothing to do, named as its only child is (a page's `<p><label>Name
/// <input></label></p>` reads `paragraph "Name"` around `text "Name"`). The child is shown in
/// its place.
fn named_by_only_child(state: &State, i: usize) -> Option<usize> {
    /// Most children (of any kind) a wrapper may have to be looked into.
    const WRAPPER_CHILDREN: usize = 4;
    let n = &state.snapshot.nodes[i];
    // Only small wrappers are looked into: `display_children` of every wrapper would walk whole
    // subtrees again for each line of a look.
    let plain = (n.role.is_container() || n.role == Role::Paragraph)
        && n.children.len() <= WRAPPER_CHILDREN
        && !acts(n)
        && n.value.known().is_none_or(|v| v.is_empty())
        && n.description.text().is_none()
        && n.truncated.is_none()
        && n.visual_text.is_none()
        && !n.has_state(StateFlag::Focused)
        && !n.has_state(StateFlag::Modal);
    let name = n.name.text().filter(|_| plain)?;
    match display_children(state, i, false).0.as_slice() {
        [only] if state.snapshot.nodes[*only].name.text() == Some(name) => Some(*only),
        _ => None,
    }
}

fn is_hidden(node: &Node) -> bool {
    node.has_state(StateFlag::Hidden)
}

/// The children a reader sees under `i`: transparent wrappers replaced by their children,
/// empty leaves dropped. The second value counts hidden children left out.
pub fn display_children(state: &State, i: usize, show_hidden: bool) -> (Vec<usize>, usize) {
    let mut out = Vec::new();
    let mut hidden = 0;
    let mut stack: Vec<usize> = state.snapshot.nodes[i]
        .children
        .iter()
        .rev()
        .copied()
        .collect();
    while let Some(c) = stack.pop() {
        let n = &state.snapshot.nodes[c];
        if !show_hidden && is_hidden(n) {
            hidden += 1;
            continue;
        }
        let region = pixels_only(&state.snapshot.nodes, c);
        if is_transparent(n) && !region {
            stack.extend(n.children.iter().rev().copied());
            continue;
        }
        if !region && (is_empty_leaf(n) || repeats_name(state, c, i)) {
            continue;
        }
        if let Some(only) = (!region).then(|| named_by_only_child(state, c)).flatten() {
            stack.push(only);
            continue;
        }
        out.push(c);
    }
    (out, hidden)
}

/// The name of a cell made of cells, said in one line: GTK 3 tree views give each row's cell
/// its renderers as unnamed and named leaf cells (an icon, then "file1.txt"; the side pane's
/// "Places" twice). The distinct names of its parts, in order; `None` when `i` is not such a
/// cell, or its parts have no names.
fn composite_cell_name(state: &State, i: usize) -> Option<String> {
    let node = &state.snapshot.nodes[i];
    if node.role != Role::Cell || node.name.text().is_some() || node.value.text().is_some() {
        return None;
    }
    let (parts, _) = display_children(state, i, false);
    if parts.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = Vec::new();
    for &p in &parts {
        let n = &state.snapshot.nodes[p];
        // A part that toggles keeps its own line (a check box cell); every GTK 3 cell presses.
        let toggles = n.caps.contains(Capability::Toggle);
        if n.role != Role::Cell || !n.children.is_empty() || n.value.text().is_some() || toggles {
            return None;
        }
        if let Some(name) = n.name.text() {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    (!names.is_empty()).then(|| names.join(" · "))
}

/// "1 menu", "6 menus", "2 boxes".
pub(crate) fn plural(role: Role, n: usize) -> String {
    let r = role.as_str();
    if n == 1 {
        format!("1 {r}")
    } else if r.ends_with('x') || r.ends_with('s') {
        format!("{n} {r}es")
    } else {
        format!("{n} {r}s")
    }
}

/// Summary of folded children: "6 menus" or "6 buttons, 4 labels, 2 panes, …".
fn fold_summary(state: &State, kids: &[usize], hidden: usize) -> String {
    let mut counts: BTreeMap<Role, usize> = BTreeMap::new();
    for &k in kids {
        *counts.entry(state.snapshot.nodes[k].role).or_default() += 1;
    }
    let mut parts: Vec<(Role, usize)> = counts.into_iter().collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    // Hidden children besides shown ones are left to `includeHidden` (a toolbar's overflow).
    if kids.is_empty() {
        return format!("{hidden} hidden");
    }
    if parts.len() == 1 {
        plural(parts[0].0, parts[0].1)
    } else {
        let listed: Vec<String> = parts.iter().take(3).map(|(r, n)| plural(*r, *n)).collect();
        let more = if parts.len() > 3 { ", …" } else { "" };
        format!("{}{more}", listed.join(", "))
    }
}

/// The nodes that must be visible: the path to the focused element, modal surfaces, truncated
/// regions.
fn forced_nodes(state: &State, from: usize) -> HashSet<usize> {
    let mut forced = HashSet::new();
    let sub: HashSet<usize> = state.subtree(from).into_iter().collect();
    for (i, n) in state.snapshot.nodes.iter().enumerate() {
        if !sub.contains(&i) || is_hidden(n) {
            continue;
        }
        let wanted = n.has_state(StateFlag::Focused)
            || (n.role.is_modal_surface() && i != from)
            || n.has_state(StateFlag::Modal)
            || n.truncated.is_some();
        if wanted {
            for a in state.ancestors(i) {
                if !sub.contains(&a) {
                    break;
                }
                forced.insert(a);
            }
            if n.role.is_modal_surface() || n.has_state(StateFlag::Modal) {
                forced.insert(i);
            }
        }
    }
    forced
}

/// Which children of an unfolded node are shown: the first ones in order, as many as `room`
/// allows (one node never takes more than half the budget unless `max_children` is larger),
/// plus any child on a forced path.
fn pick_children(
    kids: &[usize],
    forced: &HashSet<usize>,
    room: usize,
    opts: &OutlineOptions,
) -> Vec<usize> {
    let cap = opts.max_children.max(opts.max_lines / 2);
    let limit = kids.len().min(room).min(cap);
    let mut shown: Vec<usize> = kids[..limit].to_vec();
    for &k in &kids[limit..] {
        if forced.contains(&k) {
            shown.push(k);
        }
    }
    shown
}

/// Lines an unfolded node adds: its shown children, a "… more" line, a hidden-children line.
fn unfold_cost(kids: usize, shown: usize, hidden: usize) -> usize {
    shown + usize::from(kids > shown) + usize::from(hidden > 0)
}

/// Renders the subtree at `from` within the budget.
pub fn render_outline(state: &State, from: usize, opts: &OutlineOptions) -> Outline {
    let forced = forced_nodes(state, from);
    // Node -> (children to show, all display children, hidden count); present = unfolded.
    let mut plan: HashMap<usize, (Vec<usize>, Vec<usize>, usize)> = HashMap::new();
    let mut lines = 1usize;
    // Forced nodes go first so a deep focused element is never starved by a wide top level.
    let mut forced_order: Vec<usize> = forced.iter().copied().collect();
    forced_order.sort_unstable();
    // The budget is the caller's promise: the forced path is spent from it too.
    let hard_cap = opts.max_lines;
    // Cells made of cells are one line each, unless the way to a forced node goes through one.
    let whole = |i: usize| !forced.contains(&i) && composite_cell_name(state, i).is_some();
    for &f in &forced_order {
        let (kids, hidden) = display_children(state, f, opts.show_hidden);
        // Half of what is left (but a handful at least), so the forced path cannot eat the
        // whole budget and still shows its neighbourhood.
        let left = opts.max_lines.saturating_sub(lines);
        let room = (left / 2).max(left.min(5));
        let shown = pick_children(&kids, &forced, room, opts);
        let cost = unfold_cost(kids.len(), shown.len(), hidden);
        if lines + cost <= hard_cap {
            lines += cost;
            plan.insert(f, (shown, kids, hidden));
        }
    }
    let mut queue: VecDeque<usize> = VecDeque::new();
    queue.push_back(from);
    while let Some(i) = queue.pop_front() {
        if let std::collections::hash_map::Entry::Vacant(slot) = plan.entry(i) {
            let (kids, hidden) = display_children(state, i, opts.show_hidden);
            if kids.is_empty() || whole(i) {
                continue;
            }
            let room = opts.max_lines.saturating_sub(lines + 2);
            let shown = pick_children(&kids, &forced, room, opts);
            let cost = unfold_cost(kids.len(), shown.len(), hidden);
            // Unfolding to show one or two of many children says less than the fold summary.
            if lines + cost > opts.max_lines || shown.len() < kids.len().min(3) {
                continue;
            }
            lines += cost;
            slot.insert((shown, kids, hidden));
        }
        if let Some((shown, _, _)) = plan.get(&i) {
            queue.extend(shown.iter().copied());
        }
    }

    let mut out = Outline::default();
    // Unfolded nodes by what their children are, so a second one with the same children (a
    // second menu bar naming the same menus) is one line pointing at the first.
    let mut unfolded: Unfolded = HashMap::new();
    let mut stack = vec![Item::Node(from, 0)];
    while let Some(item) = stack.pop() {
        let (i, depth) = match item {
            Item::Node(i, d) => (i, d),
            Item::Blank(run, depth) => {
                blank_run_line(state, &run, depth, &mut out.text);
                out.lines += 1;
                out.folded += 1;
                continue;
            }
            Item::Inline(run, depth) => {
                if inline_run_line(state, &run, depth, opts.show_hidden, &mut out.text) {
                    out.folded += 1;
                }
                out.lines += 1;
                continue;
            }
            Item::Text(t) => {
                out.text.push_str(&t);
                out.text.push('\n');
                out.lines += 1;
                continue;
            }
        };
        let node = &state.snapshot.nodes[i];
        let indent = "  ".repeat(depth);
        if let Some(name) = composite_cell_name(state, i).filter(|_| !forced.contains(&i)) {
            let mut named = node.clone();
            named.name = crate::Evidence::Known(name);
            let parent = node.parent.map(|p| &state.snapshot.nodes[p]);
            let _ = writeln!(
                out.text,
                "{indent}{} {}",
                state.ref_of(i),
                describe_in(&named, parent)
            );
            out.lines += 1;
            continue;
        }
        let parent = (i != from)
            .then_some(node.parent)
            .flatten()
            .map(|p| &state.snapshot.nodes[p]);
        let _ = write!(
            out.text,
            "{indent}{} {}",
            state.ref_of(i),
            describe_in(node, parent)
        );
        if pixels_only(&state.snapshot.nodes, i) {
            out.text.push_str(PIXELS_ONLY);
        }
        let repeat = plan
            .get(&i)
            .and_then(|(_, kids, _)| repeat_of(state, i, kids, &forced, &mut unfolded));
        match plan.get(&i) {
            None => {
                let (kids, hidden) = display_children(state, i, opts.show_hidden);
                if !kids.is_empty() || hidden > 0 {
                    let _ = write!(out.text, " ▸ {}", fold_summary(state, &kids, hidden));
                    // Only children that show count as folded: hidden ones (`▸ 2 hidden`, a
                    // closed combo box's options) are said on the line and left out of any
                    // outline unless `includeHidden` asks.
                    if !kids.is_empty() {
                        out.folded += 1;
                    }
                }
                out.text.push('\n');
                out.lines += 1;
            }
            Some((_, kids, hidden)) if repeat.is_some() => {
                let first = repeat.unwrap_or(i);
                let _ = writeln!(
                    out.text,
                    " ▸ {}, as {}",
                    fold_summary(state, kids, *hidden),
                    state.ref_of(first)
                );
                out.folded += 1;
                out.lines += 1;
            }
            Some((shown, kids, hidden)) => {
                // Hidden children are counted on their parent's line (`includeHidden` shows them).
                if *hidden > 0 {
                    let _ = write!(out.text, " (+{hidden} hidden)");
                }
                out.text.push('\n');
                out.lines += 1;
                if kids.len() > shown.len() {
                    let rest: Vec<usize> = kids
                        .iter()
                        .copied()
                        .filter(|k| !shown.contains(k))
                        .collect();
                    stack.push(Item::Text(format!(
                        "{indent}  … and {} (search_ui, or expand_ui {})",
                        fold_summary(state, &rest, 0),
                        state.ref_of(i)
                    )));
                }
                let unfolded = |k: usize| plan.contains_key(&k);
                let items = child_items(state, shown, &forced, unfolded, depth + 1, opts);
                stack.extend(items.into_iter().rev());
            }
        }
    }
    out
}

/// One line (or, for `Node`, the start of a subtree) of an outline, with its depth.
enum Item {
    Node(usize, usize),
    /// A run of blank cells.
    Blank(Vec<usize>, usize),
    /// A run of like items on one line.
    Inline(Vec<usize>, usize),
    Text(String),
}

/// The lines of an unfolded node's shown children, in order: runs of blank cells and runs of
/// three or more like items (the menus of a menu bar, a row of buttons) are one line each.
fn child_items(
    state: &State,
    shown: &[usize],
    forced: &HashSet<usize>,
    unfolded: impl Fn(usize) -> bool,
    depth: usize,
    opts: &OutlineOptions,
) -> Vec<Item> {
    let nodes = &state.snapshot.nodes;
    let inline = |k: usize| {
        !forced.contains(&k) && !unfolded(k) && is_inline_item(state, k, opts.show_hidden)
    };
    let mut items: Vec<Item> = Vec::new();
    let mut like: Vec<usize> = Vec::new();
    let flush = |like: &mut Vec<usize>, items: &mut Vec<Item>| {
        if like.len() >= 3 {
            items.push(Item::Inline(std::mem::take(like), depth));
        } else {
            items.extend(like.drain(..).map(|k| Item::Node(k, depth)));
        }
    };
    for run in blank_runs(state, shown, forced) {
        match run.as_slice() {
            [k] if inline(*k) => {
                if like
                    .first()
                    .is_some_and(|&f| nodes[f].role != nodes[*k].role)
                {
                    flush(&mut like, &mut items);
                }
                like.push(*k);
            }
            [k] => {
                flush(&mut like, &mut items);
                items.push(Item::Node(*k, depth));
            }
            _ => {
                flush(&mut like, &mut items);
                items.push(Item::Blank(run, depth));
            }
        }
    }
    flush(&mut like, &mut items);
    items
}

/// Unfolded nodes by their role and their children's roles and names.
type Unfolded<'s> = HashMap<(Role, Vec<(Role, Option<&'s str>)>), usize>;

/// The earlier unfolded node whose children are `i`'s (same roles and names, at least three),
/// when `i` is off the forced path; else `None`, and `i` is remembered for later ones.
fn repeat_of<'s>(
    state: &'s State,
    i: usize,
    kids: &[usize],
    forced: &HashSet<usize>,
    unfolded: &mut Unfolded<'s>,
) -> Option<usize> {
    if kids.len() < 3 || forced.contains(&i) {
        return None;
    }
    let nodes = &state.snapshot.nodes;
    let key = (
        nodes[i].role,
        kids.iter()
            .map(|&k| (nodes[k].role, nodes[k].name.text()))
            .collect(),
    );
    match unfolded.get(&key) {
        Some(&first) if first != i => Some(first),
        Some(_) => None,
        None => {
            unfolded.insert(key, i);
            None
        }
    }
}

/// Whether a node is a blank cell of a grid: a named, editable cell with no value, no children
/// and nothing that singles it out (focus, selection, a cut).
pub(crate) fn is_blank_cell(node: &Node) -> bool {
    node.role == Role::Cell
        && node.children.is_empty()
        && node.truncated.is_none()
        && node.numeric.is_none()
        && node.name.text().is_some()
        && node.value.text().is_none_or(|v| v.is_empty())
        && node.has_state(StateFlag::Editable)
        && !node.has_state(StateFlag::Focused)
        && !node.has_state(StateFlag::Selected)
}

/// `shown` cut into runs: three or more blank cells in a row with the same states are one run
/// (one line), every other child a run of its own.
fn blank_runs(state: &State, shown: &[usize], forced: &HashSet<usize>) -> Vec<Vec<usize>> {
    let nodes = &state.snapshot.nodes;
    let blank = |k: usize| !forced.contains(&k) && is_blank_cell(&nodes[k]);
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for &k in shown {
        match runs.last_mut() {
            Some(run) if blank(k) && blank(run[0]) && nodes[run[0]].states == nodes[k].states => {
                run.push(k)
            }
            _ => runs.push(vec![k]),
        }
    }
    // Runs too short to be worth a line of their own are their cells again.
    runs.into_iter()
        .flat_map(|run| {
            if run.len() >= 3 {
                vec![run]
            } else {
                run.into_iter().map(|k| vec![k]).collect()
            }
        })
        .collect()
}

/// `@e96 … @e109 14 blank cells "E1" … "R1" [editable]`: a run of blank cells as one line;
/// `search_ui` finds each by its name.
fn blank_run_line(state: &State, run: &[usize], depth: usize, text: &mut String) {
    let (first, last) = (run[0], run[run.len() - 1]);
    let name = |i: usize| quote(state.snapshot.nodes[i].name.text().map_or("", |t| t), 40);
    let mut blank = state.snapshot.nodes[first].clone();
    blank.name = crate::Evidence::Absent;
    blank.value = crate::Evidence::Absent;
    blank.description = crate::Evidence::Absent;
    let parent = blank.parent.map(|p| &state.snapshot.nodes[p]);
    let states = describe_in(&blank, parent);
    let states = states.strip_prefix(blank.role.as_str()).unwrap_or("");
    let _ = writeln!(
        text,
        "{}{} … {} {} blank cells {} … {}{states}",
        "  ".repeat(depth),
        state.ref_of(first),
        state.ref_of(last),
        run.len(),
        name(first),
        name(last)
    );
}

/// Whether a child can be one item of a run on one line: named (or described), with no value,
/// no children shown (hidden ones, a closed menu's items, are left to `expand_ui`), not a cell
/// or a header (a table keeps a line per cell, so its rows read as rows), not focused and
/// nothing that needs a line of its own.
fn is_inline_item(state: &State, k: usize, show_hidden: bool) -> bool {
    let n = &state.snapshot.nodes[k];
    let named = n.name.text().is_some() || n.description.text().is_some();
    named
        && !matches!(n.role, Role::Cell | Role::ColumnHeader | Role::RowHeader)
        && !n.has_state(StateFlag::Focused)
        && n.value
            .known()
            .is_none_or(|v| v.is_empty() || n.name.text() == Some(v.as_str()))
        && !n.value.is_unknown()
        && !n.name.is_unknown()
        && n.numeric.is_none()
        && n.visual_text.is_none()
        && n.truncated.is_none()
        && n.text_len.is_none_or(|l| l <= 80)
        && composite_cell_name(state, k).is_none()
        && !pixels_only(&state.snapshot.nodes, k)
        && display_children(state, k, show_hidden).0.is_empty()
}

/// `4 buttons [disabled]: @e7 "Back", @e8 "Forward", …`: a run of like items as one line,
/// states they share said once; whether an item has hidden children.
fn inline_run_line(
    state: &State,
    run: &[usize],
    depth: usize,
    show_hidden: bool,
    text: &mut String,
) -> bool {
    let nodes = &state.snapshot.nodes;
    let role = nodes[run[0]].role;
    let items: Vec<String> = run
        .iter()
        .map(|&k| {
            let parent = nodes[k].parent.map(|p| &nodes[p]);
            let line = describe_in(&nodes[k], parent);
            let rest = line
                .strip_prefix(role.as_str())
                .unwrap_or(&line)
                .to_string();
            format!("{}{rest}", state.ref_of(k))
        })
        .collect();
    let states = |s: &str| {
        s.rfind(" [")
            .filter(|_| s.ends_with(']'))
            .map(|at| s[at..].to_string())
    };
    let shared =
        states(&items[0]).filter(|st| items.iter().all(|i| states(i).as_ref() == Some(st)));
    let items: Vec<String> = match &shared {
        Some(st) => items
            .iter()
            .map(|i| i[..i.len() - st.len()].to_string())
            .collect(),
        None => items,
    };
    let _ = writeln!(
        text,
        "{}{}{}: {}",
        "  ".repeat(depth),
        plural(role, run.len()),
        shared.unwrap_or_default(),
        items.join(", ")
    );
    run.iter()
        .any(|&k| display_children(state, k, show_hidden).1 > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Evidence, Node};

    /// A state of (role, name, parent) nodes, children in order.
    fn tree(spec: &[(Role, &str, Option<usize>)]) -> Vec<Node> {
        let mut nodes: Vec<Node> = spec
            .iter()
            .map(|(role, name, parent)| Node {
                role: *role,
                name: if name.is_empty() {
                    Evidence::Absent
                } else {
                    Evidence::from_text(*name)
                },
                parent: *parent,
                ..Node::default()
            })
            .collect();
        for i in 1..nodes.len() {
            let p = nodes[i].parent.unwrap();
            nodes[p].children.push(i);
        }
        nodes
    }

    /// A table with one row: a cell made of an icon cell and a "file1.txt" cell, then "2
    /// bytes"; and a side-pane row whose two parts both say "Places".
    fn rows() -> State {
        crate::store::tests::state_of(tree(&[
            (Role::Table, "", None),
            (Role::Cell, "", Some(0)),
            (Role::Cell, "", Some(1)),
            (Role::Cell, "file1.txt", Some(1)),
            (Role::Cell, "2 bytes", Some(0)),
            (Role::Cell, "", Some(0)),
            (Role::Cell, "Places", Some(5)),
            (Role::Cell, "Places", Some(5)),
        ]))
    }

    /// The outline's lines below its root are `want`'s nodes, as (index, description).
    fn assert_lines(s: &State, want: &[(usize, &str)]) {
        let out = render_outline(s, 0, &OutlineOptions::default());
        let lines: Vec<&str> = out.text.lines().skip(1).map(str::trim).collect();
        let want: Vec<String> = want
            .iter()
            .map(|(i, d)| format!("{} {d}", s.ref_of(*i)))
            .collect();
        assert_eq!(lines, want, "{}", out.text);
    }

    #[test]
    fn hidden_children_are_said_on_their_line_and_not_counted_as_folded() {
        let mut nodes = tree(&[
            (Role::Document, "Order", None),
            (Role::ComboBox, "Plan", Some(0)),
            (Role::ListItem, "Basic", Some(1)),
            (Role::ListItem, "Pro", Some(1)),
        ]);
        for n in &mut nodes[2..] {
            n.states = Evidence::Known(crate::StateSet::default().with(StateFlag::Hidden));
        }
        let s = crate::store::tests::state_of(nodes);
        let out = render_outline(&s, 0, &OutlineOptions::default());
        assert!(
            out.text.contains("combo-box \"Plan\" ▸ 2 hidden"),
            "{}",
            out.text
        );
        assert_eq!(out.folded, 0, "{}", out.text);
    }

    #[test]
    fn a_cell_made_of_cells_is_one_line_named_by_its_parts() {
        let s = rows();
        let want = [
            (1, "cell \"file1.txt\""),
            (4, "cell \"2 bytes\""),
            (5, "cell \"Places\""),
        ];
        assert_lines(&s, &want);
        assert_eq!(composite_cell_name(&s, 4), None);
        assert_eq!(composite_cell_name(&s, 0), None);
    }

    #[test]
    fn an_unnamed_element_says_its_description_and_a_label_repeating_its_parent_is_left_out() {
        let mut nodes = tree(&[
            (Role::Window, "", None),
            (Role::Button, "7", Some(0)),
            (Role::Label, "7", Some(1)),
            (Role::Button, "", Some(0)),
            (Role::Label, "π", Some(3)),
        ]);
        nodes[3].description = Evidence::from_text("Primary menu");
        let s = crate::store::tests::state_of(nodes);
        let want = [
            (1, "button \"7\""),
            (3, "button (description: \"Primary menu\")"),
            (4, "label \"π\""),
        ];
        assert_lines(&s, &want);
    }

    #[test]
    fn blank_cells_in_a_row_are_one_line_and_a_repeated_menu_bar_points_at_the_first() {
        let mut spec = vec![(Role::Window, "w", None), (Role::Table, "Sheet", Some(0))];
        for name in ["A1", "B1", "C1", "D1", "E1"] {
            spec.push((Role::Cell, name, Some(1)));
        }
        for bar in [0, 0] {
            spec.push((Role::MenuBar, "", Some(bar)));
            let at = spec.len() - 1;
            for name in ["File", "Edit", "View"] {
                spec.push((Role::Menu, name, Some(at)));
            }
        }
        let mut nodes = tree(&spec);
        let editable = crate::StateSet::EMPTY.with(StateFlag::Editable);
        for n in &mut nodes[1..7] {
            n.states = Evidence::Known(editable);
        }
        nodes[2].value = Evidence::from_text("Item");
        let s = crate::store::tests::state_of(nodes);
        let text = render_outline(&s, 0, &OutlineOptions::default()).text;
        let (a1, b1, e1) = (s.ref_of(2), s.ref_of(3), s.ref_of(6));
        // `editable` is said by the table, not again by each cell.
        assert!(
            text.contains(&format!("{a1} cell \"A1\" = \"Item\"\n")),
            "{text}"
        );
        assert!(
            text.contains(&format!("{b1} … {e1} 4 blank cells \"B1\" … \"E1\"\n")),
            "{text}"
        );
        assert!(
            text.contains(&format!("menu-bar ▸ 3 menus, as {}", s.ref_of(7))),
            "{text}"
        );
        // The first bar's menus are one line; the second bar points at the first.
        let (file, view) = (s.ref_of(8), s.ref_of(10));
        assert!(
            text.contains(&format!("    3 menus: {file} \"File\", ")),
            "{text}"
        );
        assert!(text.contains(&format!("{view} \"View\"\n")), "{text}");
        assert_eq!(text.matches("\"File\"").count(), 1, "{text}");
    }

    #[test]
    fn a_long_path_keeps_its_start_and_its_end_and_words_their_start() {
        let name = "file:///tmp/uidriver-sandbox-5307-18ee8024de97a86a-0/home/sales.xlsx - LibreOffice Spreadsheets";
        let q = quote_name(name);
        assert_eq!(
            q,
            "\"file:///tmp/uidr…6a-0/home/sales.xlsx - LibreOffice Spreadsheets\""
        );
        assert_eq!(q.chars().count(), 64 + 2);
        // Words are cut at the end, at 100 characters, as before.
        let words = "Warning: you are using the root account. You may harm your system.";
        assert_eq!(quote_name(words), quote(words, 100));
    }

    #[test]
    fn a_table_row_keeps_a_line_per_header() {
        let mut spec = vec![(Role::Window, "w", None), (Role::Table, "Orders", Some(0))];
        spec.push((Role::Row, "", Some(1)));
        for name in ["Order", "Total", "Status"] {
            spec.push((Role::ColumnHeader, name, Some(2)));
        }
        let s = crate::store::tests::state_of(tree(&spec));
        let text = render_outline(&s, 0, &OutlineOptions::default()).text;
        for (i, name) in [(3, "Order"), (4, "Total"), (5, "Status")] {
            let line = format!("{} column-header \"{name}\"\n", s.ref_of(i));
            assert!(text.contains(&line), "{text}");
        }
    }

    #[test]
    fn like_items_in_a_row_are_one_line_saying_shared_states_once() {
        // A bar of four disabled buttons, then three buttons of which the middle one is focused.
        let mut spec = vec![(Role::Window, "w", None), (Role::Toolbar, "Nav", Some(0))];
        for name in ["Home", "Left", "Right", "End"] {
            spec.push((Role::Button, name, Some(1)));
        }
        spec.push((Role::Toolbar, "Edit", Some(0)));
        for name in ["Cut", "Copy", "Paste"] {
            spec.push((Role::Button, name, Some(6)));
        }
        let mut nodes = tree(&spec);
        let disabled = crate::StateSet::EMPTY.with(StateFlag::Disabled);
        for n in &mut nodes[2..6] {
            n.states = Evidence::Known(disabled);
        }
        nodes[8].states = Evidence::Known(crate::StateSet::EMPTY.with(StateFlag::Focused));
        let s = crate::store::tests::state_of(nodes);
        let text = render_outline(&s, 0, &OutlineOptions::default()).text;
        let r = |i: usize| s.ref_of(i);
        let want = format!(
            "    4 buttons [disabled]: {} \"Home\", {} \"Left\", {} \"Right\", {} \"End\"\n",
            r(2),
            r(3),
            r(4),
            r(5)
        );
        assert!(text.contains(&want), "{text}");
        // The focused button keeps its own line, and breaks the run it was in.
        assert!(
            text.contains(&format!("{} button \"Copy\" [focused]\n", r(8))),
            "{text}"
        );
        assert!(
            text.contains(&format!("{} button \"Cut\"\n", r(7))),
            "{text}"
        );
    }

    #[test]
    fn a_deep_focused_element_never_takes_the_outline_past_its_budget() {
        // A window of 6 panels, each with 4 buttons; the focused text sits 6 levels down.
        let mut spec = vec![(Role::Window, "w", None)];
        for _ in 0..6 {
            spec.push((Role::Pane, "", Some(0)));
            let at = spec.len() - 1;
            for _ in 0..4 {
                spec.push((Role::Button, "b", Some(at)));
            }
        }
        let mut parent = 1;
        for _ in 0..6 {
            spec.push((Role::Pane, "", Some(parent)));
            parent = spec.len() - 1;
        }
        spec.push((Role::Text, "deep", Some(parent)));
        let mut nodes = tree(&spec);
        let last = nodes.len() - 1;
        nodes[last].states = Evidence::Known(crate::StateSet::EMPTY.with(StateFlag::Focused));
        let s = crate::store::tests::state_of(nodes);
        for budget in [3, 5, 8, 40] {
            let opts = OutlineOptions {
                max_lines: budget,
                ..OutlineOptions::default()
            };
            let o = render_outline(&s, 0, &opts);
            assert!(
                o.lines <= budget,
                "budget {budget}: {} lines\n{}",
                o.lines,
                o.text
            );
        }
        // With room enough, the way to the focused element is shown.
        let o = render_outline(&s, 0, &OutlineOptions::default());
        assert!(o.text.contains("text \"deep\""), "{}", o.text);
    }
}
