//! Carrying element refs from one state to the next: the same control keeps its `@eN` when its
//! identity matches confidently, so successor diffs stay small and a model's refs keep meaning.
//!
//! Confidence comes first from the backend's handle (AT-SPI bus name + object path, a backend
//! DOM node id) together with an equal role; then, for nodes whose parent matched, from the same
//! role and the same stable label among that parent's unmatched children, in order. Values are
//! volatile (a text field's content changes) and never identify a node on their own.

use std::collections::HashMap;

use crate::ids::ElementRef;
use crate::model::Snapshot;
use crate::state::State;

/// Refs assigned to a new snapshot.
pub struct Assigned {
    /// One ref per node.
    pub refs: Vec<ElementRef>,
    /// The next free ref number.
    pub next_ref: u32,
    /// Share of new nodes that kept a previous ref (1.0 when there was no previous state).
    pub carried: f64,
}

fn eref(n: u32) -> ElementRef {
    ElementRef::from_raw(n)
}

/// Assigns refs to `snap`, carrying over those of `prev` where identity matches.
pub fn assign_refs(prev: Option<&State>, snap: &Snapshot) -> Assigned {
    let n = snap.nodes.len();
    let Some(prev) = prev else {
        let refs = (1..=n as u32).map(eref).collect();
        return Assigned {
            refs,
            next_ref: n as u32 + 1,
            carried: 1.0,
        };
    };
    let pnodes = &prev.snapshot.nodes;
    let mut by_handle: HashMap<&str, usize> = HashMap::with_capacity(pnodes.len());
    for (i, p) in pnodes.iter().enumerate() {
        if !p.handle.is_empty() {
            by_handle.insert(p.handle.as_str(), i);
        }
    }
    let mut used = vec![false; pnodes.len()];
    let mut matched: Vec<Option<usize>> = vec![None; n];

    // Pass 1: backend handle + role.
    for (i, node) in snap.nodes.iter().enumerate() {
        if node.handle.is_empty() {
            continue;
        }
        if let Some(&j) = by_handle.get(node.handle.as_str()) {
            if !used[j] && pnodes[j].role == node.role {
                used[j] = true;
                matched[i] = Some(j);
            }
        }
    }
    // Pass 2: structural, under a matched parent (pre-order guarantees parents come first).
    for i in 0..n {
        if matched[i].is_some() {
            continue;
        }
        let node = &snap.nodes[i];
        let candidate = match node.parent {
            None => (!used[0] && !pnodes.is_empty() && pnodes[0].role == node.role).then_some(0),
            Some(p) => matched[p].and_then(|pj| {
                pnodes[pj].children.iter().copied().find(|&c| {
                    !used[c]
                        && pnodes[c].role == node.role
                        && pnodes[c].name.text() == node.name.text()
                        && (node.name.text().is_some() || pnodes[c].native_id == node.native_id)
                })
            }),
        };
        if let Some(j) = candidate {
            used[j] = true;
            matched[i] = Some(j);
        }
    }

    let mut next = prev.next_ref.max(1);
    let mut kept = 0usize;
    let refs = matched
        .iter()
        .map(|m| match m {
            Some(j) => {
                kept += 1;
                prev.refs[*j]
            }
            None => {
                let r = eref(next);
                next += 1;
                r
            }
        })
        .collect();
    Assigned {
        refs,
        next_ref: next,
        carried: if n == 0 { 1.0 } else { kept as f64 / n as f64 },
    }
}
