//! The change between a state and its successor, by element ref, and the rule for when a diff
//! is worth showing: when the root changed identity, too few nodes kept their refs, or the change
//! is too big to read as a patch, the full folded view is shown instead.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use crate::ids::ElementRef;
use crate::model::{Evidence, Node};
use crate::outline::{describe, describe_in, is_transparent, plural, quote, SHOWN_STATES};
use crate::state::State;
use crate::vocab::StateFlag;

/// Most changed lines a diff may have before the full view is better.
pub const MAX_DIFF_LINES: usize = 40;
/// Least share of successor nodes that must keep a ref for a diff to be trusted.
pub const MIN_CARRIED: f64 = 0.5;

/// Changes by ref.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// New nodes (indices into the successor).
    pub added: Vec<usize>,
    /// Nodes gone (indices into the base).
    pub removed: Vec<usize>,
    /// Nodes whose role, name, value or states changed: (base index, successor index).
    pub updated: Vec<(usize, usize)>,
}

impl Diff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.updated.is_empty()
    }
    /// Total changed nodes.
    pub fn len(&self) -> usize {
        self.added.len() + self.removed.len() + self.updated.len()
    }
}

/// Why the full view was chosen over a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FullViewReason {
    /// The root element is a different element.
    RootChanged,
    /// Too few nodes kept their refs.
    LowMatch,
    /// More changes than a patch can usefully show.
    TooLarge,
}

fn visible(state: &State, i: usize) -> bool {
    let n = &state.snapshot.nodes[i];
    !n.has_state(StateFlag::Hidden) && !is_transparent(n)
}

/// Compares two states of one root. Only nodes a reader would see are compared.
pub fn diff(base: &State, next: &State) -> Diff {
    let base_by_ref: HashMap<ElementRef, usize> =
        base.refs.iter().enumerate().map(|(i, r)| (*r, i)).collect();
    let next_by_ref: HashMap<ElementRef, usize> =
        next.refs.iter().enumerate().map(|(i, r)| (*r, i)).collect();
    let mut d = Diff::default();
    for (j, r) in next.refs.iter().enumerate() {
        match base_by_ref.get(r) {
            None => {
                if visible(next, j) {
                    d.added.push(j)
                }
            }
            Some(&i) => {
                let (a, b) = (&base.snapshot.nodes[i], &next.snapshot.nodes[j]);
                let changed = a.role != b.role
                    || a.name != b.name
                    || a.value != b.value
                    || !same_numeric(a, b)
                    || a.states != b.states
                    || a.visual_text != b.visual_text;
                let seen = visible(base, i) || visible(next, j);
                if changed && seen {
                    d.updated.push((i, j));
                }
            }
        }
    }
    for (i, r) in base.refs.iter().enumerate() {
        if !next_by_ref.contains_key(r) && visible(base, i) {
            d.removed.push(i);
        }
    }
    d
}

/// Whether to show the full view instead of `d`, and why.
pub fn full_view_reason(base: &State, next: &State, d: &Diff) -> Option<FullViewReason> {
    if base.refs.first() != next.refs.first()
        || base.snapshot.nodes.first().map(|n| &n.handle)
            != next.snapshot.nodes.first().map(|n| &n.handle)
    {
        return Some(FullViewReason::RootChanged);
    }
    if next.carried < MIN_CARRIED {
        return Some(FullViewReason::LowMatch);
    }
    if render_diff(base, next, d).lines().count() > MAX_DIFF_LINES {
        return Some(FullViewReason::TooLarge);
    }
    None
}

/// Most lines one parent's added or removed children take before the rest is one line.
const MAX_LINES_PER_PARENT: usize = 6;
/// Most elements one line of a shared change names before "… N more".
const MAX_SHARED_NAMES: usize = 3;

/// What a changed line says of its element: role, name, value; the states it has are left to
/// the change itself (`+focused`) and to the outline.
fn brief(node: &Node) -> String {
    let mut n = node.clone();
    n.states = Evidence::Absent;
    n.truncated = None;
    describe(&n)
}

/// Renders a diff as `+`/`~`/`-` lines, each change said once: an added element's added
/// children are indented under it, a removed element stands for the removed ones inside it,
/// elements with the same change share a line, and one parent's many added or removed
/// children end in a line that counts the rest.
pub fn render_diff(base: &State, next: &State, d: &Diff) -> String {
    let mut s = String::new();
    let again = recreated(base, next, d);
    let added: Vec<usize> = d
        .added
        .iter()
        .copied()
        .filter(|j| !again.added.contains(j))
        .collect();
    let removed: Vec<usize> = d
        .removed
        .iter()
        .copied()
        .filter(|i| !again.removed.contains(i))
        .collect();
    added_lines(next, &added, &mut s);
    updated_lines(base, next, &d.updated, &mut s);
    recreated_line(next, &again.tops, &mut s);
    removed_lines(base, &removed, &mut s);
    s
}

/// Elements an app took down and put back as they were (LibreOffice rebuilds a sidebar's
/// toggle buttons on every change): each removed element paired with an added one under the
/// same parent that reads the same, its subtree included. Said as one line, not as a `+` and a
/// `-` for each.
#[derive(Default)]
struct Recreated {
    /// The added elements of the pairs, tops and what is inside them (successor indices).
    added: HashSet<usize>,
    /// The removed ones (base indices).
    removed: HashSet<usize>,
    /// The added tops, in the successor's order.
    tops: Vec<usize>,
}

/// Pairs removed and added elements that read the same under the same parent, in order.
fn recreated(base: &State, next: &State, d: &Diff) -> Recreated {
    let mut out = Recreated::default();
    let gone: HashSet<usize> = d.removed.iter().copied().collect();
    let new: HashSet<usize> = d.added.iter().copied().collect();
    // Removed tops by (their parent's ref, what their subtree reads), oldest first.
    let mut waiting: HashMap<(Option<ElementRef>, String), Vec<usize>> = HashMap::new();
    for (p, tops) in tops_by_parent(base, &d.removed, &gone) {
        let parent = p.map(|p| base.ref_of(p));
        for i in tops.into_iter().rev() {
            let key = (parent, reading(base, i, &gone));
            waiting.entry(key).or_default().push(i);
        }
    }
    for (p, tops) in tops_by_parent(next, &d.added, &new) {
        let parent = p.map(|p| next.ref_of(p));
        for j in tops {
            let Some(i) = waiting
                .get_mut(&(parent, reading(next, j, &new)))
                .and_then(Vec::pop)
            else {
                continue;
            };
            out.removed
                .extend(base.subtree(i).into_iter().filter(|x| gone.contains(x)));
            out.added
                .extend(next.subtree(j).into_iter().filter(|x| new.contains(x)));
            out.tops.push(j);
        }
    }
    out
}

/// What an element and the changed elements inside it read, line by line (role, name, value,
/// states); its depth keeps the shape.
fn reading(state: &State, i: usize, changed: &HashSet<usize>) -> String {
    let mut s = String::new();
    let mut stack = vec![(i, 0usize)];
    while let Some((k, depth)) = stack.pop() {
        let _ = writeln!(s, "{depth} {}", describe(&state.snapshot.nodes[k]));
        for &c in state.snapshot.nodes[k].children.iter().rev() {
            if changed.contains(&c) {
                stack.push((c, depth + 1));
            }
        }
    }
    s
}

/// `~ 8 toggle-buttons put back as they were, now @e1753 … @e1767`.
fn recreated_line(next: &State, tops: &[usize], s: &mut String) {
    let (Some(&first), Some(&last)) = (tops.first(), tops.last()) else {
        return;
    };
    let refs = if first == last {
        format!("{}", next.ref_of(first))
    } else {
        format!("{} … {}", next.ref_of(first), next.ref_of(last))
    };
    let were = if tops.len() == 1 {
        "it was"
    } else {
        "they were"
    };
    let _ = writeln!(
        s,
        "~ {} put back as {were}, now {refs}",
        roles_of(next, tops)
    );
}

/// The nearest ancestor of `i` a reader sees (the parent a line is shown under).
fn shown_parent(state: &State, i: usize) -> Option<usize> {
    let mut p = state.snapshot.nodes[i].parent;
    while let Some(q) = p {
        if visible(state, q) {
            return Some(q);
        }
        p = state.snapshot.nodes[q].parent;
    }
    None
}

/// The changed elements (`set`, listed in `changed`) whose parent did not change with them, by
/// the parent they are shown under, in order of first appearance.
fn tops_by_parent(
    state: &State,
    changed: &[usize],
    set: &HashSet<usize>,
) -> Vec<(Option<usize>, Vec<usize>)> {
    let nodes = &state.snapshot.nodes;
    let inside = |i: usize| nodes[i].parent.is_some_and(|p| set.contains(&p));
    let mut groups: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for i in changed.iter().copied().filter(|&i| !inside(i)) {
        let p = shown_parent(state, i);
        match groups.iter_mut().find(|(q, _)| *q == p) {
            Some((_, v)) => v.push(i),
            None => groups.push((p, vec![i])),
        }
    }
    groups
}

/// `+` lines: the added elements whose parent was there before, each with the added elements
/// below it indented under it; several under one parent follow a `+ in @eN …:` line.
fn added_lines(next: &State, added: &[usize], s: &mut String) {
    let set: HashSet<usize> = added.iter().copied().collect();
    let nodes = &next.snapshot.nodes;
    for (p, tops) in tops_by_parent(next, added, &set) {
        let parent = p.map(|p| next.ref_of(p).to_string()).unwrap_or_default();
        let (lead, depth) = if tops.len() > 1 && p.is_some() {
            let of = p.map(|p| brief(&nodes[p])).unwrap_or_default();
            let _ = writeln!(s, "+ in {parent} {of}:");
            ("  ".to_string(), 1)
        } else if p.is_some() {
            (format!("+ (in {parent}) "), 0)
        } else {
            ("+ ".to_string(), 0)
        };
        let mut budget = MAX_LINES_PER_PARENT;
        for (n, &j) in tops.iter().enumerate() {
            if budget == 0 {
                let rest: Vec<usize> = tops[n..].to_vec();
                let _ = writeln!(
                    s,
                    "{lead}… and {} (expand_ui {parent})",
                    roles_of(next, &rest)
                );
                break;
            }
            let line = describe_in(&nodes[j], p.map(|p| &nodes[p]));
            let _ = writeln!(s, "{lead}{} {line}", next.ref_of(j));
            budget -= 1;
            subtree_lines(next, j, &set, depth, &mut budget, s);
        }
    }
}

/// The added elements below `j`, indented, while `budget` lasts; the rest counted in one line.
fn subtree_lines(
    next: &State,
    j: usize,
    set: &HashSet<usize>,
    depth: usize,
    budget: &mut usize,
    s: &mut String,
) {
    let kids: Vec<usize> = next.snapshot.nodes[j]
        .children
        .iter()
        .copied()
        .filter(|k| set.contains(k))
        .collect();
    let indent = "  ".repeat(depth + 1);
    for (n, &k) in kids.iter().enumerate() {
        if *budget == 0 {
            let below: Vec<usize> = kids[n..]
                .iter()
                .flat_map(|&k| next.subtree(k))
                .filter(|x| set.contains(x))
                .collect();
            let _ = writeln!(
                s,
                "{indent}… and {} (expand_ui {})",
                roles_of(next, &below),
                next.ref_of(j)
            );
            return;
        }
        let _ = writeln!(
            s,
            "{indent}{} {}",
            next.ref_of(k),
            describe_in(&next.snapshot.nodes[k], Some(&next.snapshot.nodes[j]))
        );
        *budget -= 1;
        subtree_lines(next, k, set, depth + 1, budget, s);
    }
}

/// "3 cells, 1 pane": what a set of elements is, by role, most first.
fn roles_of(state: &State, of: &[usize]) -> String {
    let mut counts: Vec<(crate::vocab::Role, usize)> = Vec::new();
    for &i in of {
        let r = state.snapshot.nodes[i].role;
        match counts.iter_mut().find(|(q, _)| *q == r) {
            Some((_, n)) => *n += 1,
            None => counts.push((r, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let parts: Vec<String> = counts.iter().map(|(r, n)| plural(*r, *n)).collect();
    parts.join(", ")
}

/// Whether two numeric values read the same as lines show them (`0` and `1e-9`, a range's
/// float noise): a change nobody could see is not a change.
fn same_numeric(a: &Node, b: &Node) -> bool {
    let shown = |n: &Node| {
        n.numeric
            .map(|v| [v.current, v.min, v.max].map(crate::outline::trim_num))
    };
    shown(a) == shown(b)
}

/// What changed in one element: `was "Cancel"`, `value was "A1"`, `+focused -selected`.
fn change_of(a: &Node, b: &Node) -> (bool, String) {
    let mut was = Vec::new();
    if a.name != b.name {
        was.push(format!(
            "was {}",
            a.name
                .text()
                .map(|t| quote(t, 60))
                .unwrap_or_else(|| "none".into())
        ));
    }
    let num = |n: &Node| n.numeric.map(|v| crate::outline::trim_num(v.current));
    match (a.numeric, b.numeric) {
        // Only the range moved: say so, not a "value was" that equals the value.
        (Some(x), Some(_)) if num(a) == num(b) && !same_numeric(a, b) => was.push(format!(
            "range was {}–{}",
            crate::outline::trim_num(x.min),
            crate::outline::trim_num(x.max)
        )),
        _ if a.value != b.value || !same_numeric(a, b) => {
            let v = num(a)
                .or_else(|| a.value.text().map(|t| quote(t, 60)))
                .unwrap_or_else(|| "none".into());
            was.push(format!("value was {v}"));
        }
        _ => {}
    }
    let own = !was.is_empty() || a.role != b.role;
    if a.states != b.states {
        let (sa, sb) = (a.state_set(), b.state_set());
        // The states a line says; a change of others (`focusable`) is in the counts only.
        let shown = |f: &StateFlag| SHOWN_STATES.contains(f);
        let gained: Vec<&str> = sb
            .iter()
            .filter(|f| !sa.contains(*f) && shown(f))
            .map(|f| f.as_str())
            .collect();
        let lost: Vec<&str> = sa
            .iter()
            .filter(|f| !sb.contains(*f) && shown(f))
            .map(|f| f.as_str())
            .collect();
        if !gained.is_empty() {
            was.push(format!("+{}", gained.join(" +")));
        }
        if !lost.is_empty() {
            was.push(format!("-{}", lost.join(" -")));
        }
    }
    if a.role != b.role {
        was.push(format!("was {}", a.role));
    }
    (own, was.join(", "))
}

/// `~` lines; elements whose only change is the same change of states share one line.
fn updated_lines(base: &State, next: &State, updated: &[(usize, usize)], s: &mut String) {
    let mut shared: Vec<(String, Vec<usize>)> = Vec::new();
    for &(i, j) in updated {
        let (a, b) = (&base.snapshot.nodes[i], &next.snapshot.nodes[j]);
        let (own, change) = change_of(a, b);
        if change.is_empty() {
            continue;
        }
        if own {
            let _ = writeln!(s, "~ {} {} ({change})", next.ref_of(j), brief(b));
            continue;
        }
        match shared.iter_mut().find(|(c, _)| *c == change) {
            Some((_, v)) => v.push(j),
            None => shared.push((change, vec![j])),
        }
    }
    for (change, js) in shared {
        // An element with the same change as one inside it is said by that one: the focus
        // moved to a cell, not to the table and the pane around it.
        let group: HashSet<usize> = js.iter().copied().collect();
        let said_below: HashSet<usize> = js
            .iter()
            .flat_map(|&j| next.ancestors(j))
            .filter(|a| group.contains(a))
            .collect();
        let js: Vec<usize> = js.into_iter().filter(|j| !said_below.contains(j)).collect();
        let shown = js.len().min(MAX_SHARED_NAMES);
        let mut names: Vec<String> = js[..shown]
            .iter()
            .map(|&j| format!("{} {}", next.ref_of(j), brief(&next.snapshot.nodes[j])))
            .collect();
        if js.len() > shown {
            names.push(format!("… {} more", js.len() - shown));
        }
        let _ = writeln!(s, "~ {} ({change})", names.join(", "));
    }
}

/// `-` lines: the removed elements whose parent stayed, each counting the removed ones inside;
/// more than a few under one parent are one line that counts them.
fn removed_lines(base: &State, removed: &[usize], s: &mut String) {
    let set: HashSet<usize> = removed.iter().copied().collect();
    let nodes = &base.snapshot.nodes;
    for (p, tops) in tops_by_parent(base, removed, &set) {
        if tops.len() > 3 {
            let parent = p
                .map(|p| format!(" from {}", base.ref_of(p)))
                .unwrap_or_default();
            let name = |i: usize| nodes[i].name.text().map(|t| quote(t, 40));
            let span = match (name(tops[0]), name(tops[tops.len() - 1])) {
                (Some(a), Some(b)) => format!(" ({a} … {b})"),
                _ => String::new(),
            };
            let _ = writeln!(s, "- {}{parent}{span}", roles_of(base, &tops));
            continue;
        }
        for &i in &tops {
            let within = base
                .subtree(i)
                .iter()
                .filter(|&&x| x != i && set.contains(&x))
                .count();
            let inner = if within > 0 {
                format!(" (and {within} inside)")
            } else {
                String::new()
            };
            let _ = writeln!(s, "- {} {}{inner}", base.ref_of(i), brief(&nodes[i]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Evidence, Node, Snapshot};
    use crate::state::NewState;
    use crate::vocab::Role;
    use crate::{RootRef, StateId};
    use std::sync::Arc;

    /// A window (handle `root`) with buttons named `names` (handles `b<i>`).
    fn snap(root: &str, names: &[&str]) -> Snapshot {
        let mut nodes = vec![Node {
            role: Role::Window,
            handle: root.into(),
            children: (1..=names.len()).collect(),
            ..Node::default()
        }];
        for (i, n) in names.iter().enumerate() {
            nodes.push(Node {
                role: Role::Button,
                name: Evidence::from_text(*n),
                handle: format!("b{i}"),
                parent: Some(0),
                ..Node::default()
            });
        }
        Snapshot {
            nodes,
            complete: true,
            ..Snapshot::default()
        }
    }

    fn state(id: u64, s: Snapshot, prev: Option<Arc<State>>) -> Arc<State> {
        Arc::new(State::build(NewState {
            id: StateId::from_raw(id),
            root: RootRef::from_raw(1),
            root_info: crate::store::tests::root_info("k"),
            epoch: 0,
            snapshot: s,
            image: None,
            ocr: vec![],
            successor: prev.is_some(),
            previous: prev,
        }))
    }

    #[test]
    fn a_small_change_is_a_diff() {
        let a = state(1, snap("w", &["OK", "Cancel"]), None);
        let b = state(2, snap("w", &["OK", "Close"]), Some(a.clone()));
        let d = diff(&a, &b);
        assert_eq!((d.added.len(), d.removed.len(), d.updated.len()), (0, 0, 1));
        assert_eq!(full_view_reason(&a, &b, &d), None);
        assert!(render_diff(&a, &b, &d).contains("~ @e3 button \"Close\" (was \"Cancel\")"));
    }

    #[test]
    fn a_change_is_said_once_and_many_removed_are_one_line() {
        let names = ["a", "b", "c", "d", "e", "f"];
        let a = state(1, snap("w", &names), None);
        let mut s = snap("w", &names);
        for n in &mut s.nodes[1..4] {
            n.states = Evidence::Known(crate::StateSet::EMPTY.with(StateFlag::Disabled));
        }
        s.nodes[0].children.truncate(4);
        s.nodes.truncate(5);
        let b = state(2, s, Some(a.clone()));
        let d = diff(&a, &b);
        let text = render_diff(&a, &b, &d);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "~ @e2 button \"a\", @e3 button \"b\", @e4 button \"c\" (+disabled)",
                "- @e6 button \"e\"",
                "- @e7 button \"f\"",
            ],
            "{text}"
        );
        assert_eq!(d.len(), 5);
    }

    #[test]
    fn elements_put_back_as_they_were_are_one_line() {
        // Three named buttons kept, two unnamed toggle buttons rebuilt with new handles, one of
        // them now checked: the unchanged one is put back, the checked one is new.
        let with_toggles = |tag: &str, checked: bool| {
            let mut s = snap("w", &["a", "b", "c"]);
            for k in 0..2 {
                let mut n = Node {
                    role: Role::ToggleButton,
                    handle: format!("{tag}{k}"),
                    parent: Some(0),
                    ..Node::default()
                };
                if checked && k == 1 {
                    n.states = Evidence::Known(crate::StateSet::EMPTY.with(StateFlag::Checked));
                }
                let at = s.nodes.len();
                s.nodes[0].children.push(at);
                s.nodes.push(n);
            }
            s
        };
        let a = state(1, with_toggles("old", false), None);
        let b = state(2, with_toggles("new", true), Some(a.clone()));
        let d = diff(&a, &b);
        assert_eq!((d.added.len(), d.removed.len()), (2, 2));
        let text = render_diff(&a, &b, &d);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "+ (in @e1) @e8 toggle-button [checked]",
                "~ 1 toggle-button put back as it was, now @e7",
                "- @e6 toggle-button",
            ],
            "{text}"
        );
    }

    #[test]
    fn a_change_shared_with_an_element_inside_is_said_by_that_one() {
        // The focus moves into "b": LibreOffice marks its pane focused too.
        let nested = |focused: bool| {
            let mut s = snap("w", &["a", "b"]);
            s.nodes[0].children = vec![1];
            s.nodes[1].role = Role::Pane;
            s.nodes[1].children = vec![2];
            s.nodes[2].parent = Some(1);
            if focused {
                let f = Evidence::Known(crate::StateSet::EMPTY.with(StateFlag::Focused));
                s.nodes[1].states = f.clone();
                s.nodes[2].states = f;
            }
            s
        };
        let a = state(1, nested(false), None);
        let b = state(2, nested(true), Some(a.clone()));
        let d = diff(&a, &b);
        assert_eq!(d.updated.len(), 2);
        assert_eq!(render_diff(&a, &b, &d), "~ @e3 button \"b\" (+focused)\n");
    }

    #[test]
    fn a_numeric_change_nobody_could_see_is_none_and_a_moved_range_says_so() {
        let spin = |current: f64, max: f64| {
            let mut s = snap("w", &["Spacing"]);
            s.nodes[1].role = Role::SpinButton;
            s.nodes[1].numeric = Some(crate::NumericValue {
                current,
                min: 0.0,
                max,
                step: 0.0,
            });
            s
        };
        let a = state(1, spin(0.0, 10.0), None);
        let b = state(2, spin(1e-9, 10.0), Some(a.clone()));
        assert!(diff(&a, &b).is_empty());
        let c = state(3, spin(1e-9, 20.0), Some(b.clone()));
        let d = diff(&b, &c);
        assert_eq!(
            render_diff(&b, &c, &d),
            "~ @e2 spin-button \"Spacing\" = 0 (0–20) (range was 0–10)\n"
        );
    }

    #[test]
    fn a_different_root_element_falls_back_to_the_full_view() {
        let a = state(1, snap("w", &["OK"]), None);
        let b = state(2, snap("other-window", &["OK"]), Some(a.clone()));
        let d = diff(&a, &b);
        assert_eq!(
            full_view_reason(&a, &b, &d),
            Some(FullViewReason::RootChanged)
        );
    }

    #[test]
    fn too_few_kept_refs_fall_back_to_the_full_view() {
        let a = state(1, snap("w", &["a", "b", "c", "d"]), None);
        // Same root, but every button replaced by new elements with new names.
        let mut s = snap("w", &["e", "f", "g", "h", "i", "j"]);
        for (i, n) in s.nodes.iter_mut().enumerate().skip(1) {
            n.handle = format!("new{i}");
        }
        let b = state(2, s, Some(a.clone()));
        let d = diff(&a, &b);
        assert_eq!(full_view_reason(&a, &b, &d), Some(FullViewReason::LowMatch));
    }

    #[test]
    fn too_many_changes_fall_back_to_the_full_view() {
        let names: Vec<String> = (0..60).map(|i| format!("n{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let a = state(1, snap("w", &refs), None);
        let renamed: Vec<String> = (0..60).map(|i| format!("m{i}")).collect();
        let refs2: Vec<&str> = renamed.iter().map(String::as_str).collect();
        let b = state(2, snap("w", &refs2), Some(a.clone()));
        let d = diff(&a, &b);
        assert_eq!(d.updated.len(), 60);
        assert_eq!(full_view_reason(&a, &b, &d), Some(FullViewReason::TooLarge));
    }
}
