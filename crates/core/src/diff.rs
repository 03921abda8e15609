//! The change between a state and its successor, by element ref, and the rule for when a diff
//! is worth showing: when the root changed identity, too few nodes kept their refs, or the change
//! is too big to read as a patch, the full folded view is shown instead.

use std::collections::HashMap;
use std::fmt::Write;

use crate::ids::ElementRef;
use crate::outline::{describe, is_transparent, quote};
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
                    || a.numeric != b.numeric
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
    if d.len() > MAX_DIFF_LINES {
        return Some(FullViewReason::TooLarge);
    }
    None
}

/// Renders a diff as `+`/`~`/`-` lines.
pub fn render_diff(base: &State, next: &State, d: &Diff) -> String {
    let mut s = String::new();
    for &j in &d.added {
        let parent = next.snapshot.nodes[j]
            .parent
            .map(|p| format!(" (in {})", next.ref_of(p)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "+ {} {}{parent}",
            next.ref_of(j),
            describe(&next.snapshot.nodes[j])
        );
    }
    for &(i, j) in &d.updated {
        let (a, b) = (&base.snapshot.nodes[i], &next.snapshot.nodes[j]);
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
        if a.value != b.value || a.numeric != b.numeric {
            let v = a
                .numeric
                .map(|n| n.current.to_string())
                .or_else(|| a.value.text().map(|t| quote(t, 60)))
                .unwrap_or_else(|| "none".into());
            was.push(format!("value was {v}"));
        }
        if a.states != b.states {
            let (sa, sb) = (a.state_set(), b.state_set());
            let gained: Vec<&str> = sb
                .iter()
                .filter(|f| !sa.contains(*f))
                .map(|f| f.as_str())
                .collect();
            let lost: Vec<&str> = sa
                .iter()
                .filter(|f| !sb.contains(*f))
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
        let _ = writeln!(
            s,
            "~ {} {} ({})",
            next.ref_of(j),
            describe(b),
            was.join(", ")
        );
    }
    for &i in &d.removed {
        let _ = writeln!(
            s,
            "- {} {}",
            base.ref_of(i),
            describe(&base.snapshot.nodes[i])
        );
    }
    s
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
