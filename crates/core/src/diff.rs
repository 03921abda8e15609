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
