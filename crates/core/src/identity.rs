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

/// Whether two unnamed nodes of the same role under the same parent are one element: by the
/// same native id, or, when the backend gives neither a handle, by place. Two handles that
/// differ are two objects: a GTK 3 tree view's rows scrolled by are other rows, and taking an
/// old row's ref for a new one made an agent's ref point at another file (and the diff show a
/// rename that never happened).
fn same_unnamed(prev: &crate::model::Node, node: &crate::model::Node) -> bool {
    match (&prev.native_id, &node.native_id) {
        (Some(a), Some(b)) => a == b,
        (None, None) => prev.handle.is_empty() && node.handle.is_empty(),
        _ => false,
    }
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
                        && (node.name.text().is_some() || same_unnamed(&pnodes[c], node))
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

#[cfg(test)]
mod tests {
    use super::*;
    /// A list's row: unnamed, with `handle`, holding a cell named `file`.
    fn row_list(rows: &[(&str, &str)]) -> crate::model::Snapshot {
        use crate::model::{Evidence, Node};
        use crate::vocab::Role;
        let mut nodes = vec![Node {
            role: Role::List,
            handle: ":1.3:/list".into(),
            name: Evidence::Known("Files".into()),
            ..Node::default()
        }];
        for (handle, file) in rows {
            let row = nodes.len();
            nodes[0].children.push(row);
            nodes.push(Node {
                role: Role::Row,
                handle: format!(":1.3:{handle}"),
                parent: Some(0),
                children: vec![row + 1],
                ..Node::default()
            });
            nodes.push(Node {
                role: Role::Cell,
                handle: format!(":1.3:{handle}/cell"),
                name: Evidence::Known((*file).into()),
                parent: Some(row),
                ..Node::default()
            });
        }
        crate::model::Snapshot {
            nodes,
            complete: true,
            ..crate::model::Snapshot::default()
        }
    }

    /// Stop 23 (a new-user run in Thunar's details view): after a scroll, an unnamed row that is
    /// another object (another handle) took the ref of the row that had scrolled away, so a ref an
    /// agent held for "newdir" pointed at "file09.log" and the diff showed a rename. Unnamed nodes
    /// with different handles are different elements; without handles they still match by place.
    #[test]
    fn an_unnamed_row_that_is_another_object_does_not_take_an_old_rows_ref() {
        let before = crate::store::tests::state_of(
            row_list(&[("/334", "file07.log"), ("/288", "newdir")]).nodes,
        );
        let after = row_list(&[("/414", "file21.log"), ("/288", "newdir")]);
        let refs = assign_refs(Some(&before), &after).refs;
        assert_eq!(refs[0], before.refs[0], "the list is the same");
        assert_ne!(
            refs[1], before.refs[1],
            "another row object is another element"
        );
        assert_eq!(refs[3], before.refs[3], "the same row object keeps its ref");
        // Nodes without handles (a backend that has none) still match by their place.
        let strip = |mut s: crate::model::Snapshot| {
            s.nodes.iter_mut().for_each(|n| n.handle.clear());
            s
        };
        let before =
            crate::store::tests::state_of(strip(row_list(&[("/334", "file07.log")])).nodes);
        let refs = assign_refs(Some(&before), &strip(row_list(&[("/414", "file07.log")]))).refs;
        assert_eq!(refs[1], before.refs[1]);
    }
}
