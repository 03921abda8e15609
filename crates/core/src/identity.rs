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

/// The previous node `i` is by its place: the root, or under its parent's match the first
/// unmatched node of its role and name (an unnamed one only as `same_unnamed` allows).
fn structural(
    prev: &State,
    snap: &Snapshot,
    matched: &[Option<usize>],
    used: &[bool],
    i: usize,
) -> Option<usize> {
    let pnodes = &prev.snapshot.nodes;
    let node = &snap.nodes[i];
    match node.parent {
        None => (!used[0] && !pnodes.is_empty() && pnodes[0].role == node.role).then_some(0),
        Some(p) => matched[p].and_then(|pj| {
            pnodes[pj].children.iter().copied().find(|&c| {
                !used[c]
                    && pnodes[c].role == node.role
                    && pnodes[c].name.text() == node.name.text()
                    && (node.name.text().is_some() || same_unnamed(&pnodes[c], node))
            })
        }),
    }
}

/// The names inside a node, in order (at most 8): what an unnamed row or cell shows.
fn content(nodes: &[crate::model::Node], i: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut todo: Vec<usize> = nodes[i].children.iter().rev().copied().collect();
    while let Some(k) = todo.pop() {
        if let Some(t) = nodes[k].name.text() {
            out.push(t);
            if out.len() == 8 {
                break;
            }
        }
        todo.extend(nodes[k].children.iter().rev().copied());
    }
    out
}

/// The previous node an unnamed, unmatched node `i` is, when its handle changed but it is
/// the same element: under its parent's match, of its role, unnamed and unmatched, holding
/// the same names (a row of "file07.log" is not a row of "file21.log": a row scrolled by is
/// another row); an empty leaf (a blank cell, an icon) only between neighbours that matched
/// the candidate's own neighbours, or as the only child of its parent's match, so a blank
/// cell never takes the ref of another row's.
fn same_by_content(
    prev: &State,
    snap: &Snapshot,
    matched: &[Option<usize>],
    used: &[bool],
    i: usize,
) -> Option<usize> {
    let (pnodes, nodes) = (&prev.snapshot.nodes, &snap.nodes);
    let node = &nodes[i];
    if node.name.text().is_some() || node.handle.is_empty() {
        return None;
    }
    let p = node.parent?;
    let pj = matched[p]?;
    let held = content(nodes, i);
    let fits = |c: usize| {
        !used[c]
            && pnodes[c].role == node.role
            && pnodes[c].name.text().is_none()
            && content(pnodes, c) == held
    };
    if !held.is_empty() {
        return pnodes[pj].children.iter().copied().find(|&c| fits(c));
    }
    // An empty leaf: its neighbours decide.
    let kids = &nodes[p].children;
    let at = kids.iter().position(|&k| k == i)?;
    let pkids = &pnodes[pj].children;
    let left = at.checked_sub(1).map(|a| kids[a]);
    let right = kids.get(at + 1).copied();
    let via = |nb: Option<usize>, step: isize| -> Option<Option<usize>> {
        let Some(nb) = nb else { return Some(None) };
        let j = matched[nb]?;
        let pos = pkids.iter().position(|&k| k == j)? as isize + step;
        pkids.get(usize::try_from(pos).ok()?).copied().map(Some)
    };
    let (from_left, from_right) = (via(left, 1)?, via(right, -1)?);
    let c = match (from_left, from_right) {
        (Some(a), Some(b)) if a == b => a,
        (Some(a), None) | (None, Some(a)) => a,
        // The only child of the same parent, before and after (an icon in its own box).
        (None, None) if pkids.len() == 1 => pkids[0],
        _ => return None,
    };
    (fits(c) && pnodes[c].children.is_empty() && node.children.is_empty()).then_some(c)
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
        if matched[i].is_none() {
            if let Some(j) = structural(prev, snap, &matched, &used, i) {
                used[j] = true;
                matched[i] = Some(j);
            }
        }
    }
    // Pass 3: unnamed nodes whose handles changed (toolkits that make new objects for a
    // view's cells on every read: Qt's item views, GTK's file chooser places) keep their refs
    // when what they hold says they are the same, or, for empty leaves, their neighbours do;
    // what such a node holds is then matched under it as in pass 2.
    for i in 0..n {
        if matched[i].is_none() {
            let found = structural(prev, snap, &matched, &used, i)
                .or_else(|| same_by_content(prev, snap, &matched, &used, i));
            if let Some(j) = found {
                used[j] = true;
                matched[i] = Some(j);
            }
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
    /// A complete snapshot of `nodes`.
    fn complete(nodes: Vec<crate::model::Node>) -> crate::model::Snapshot {
        crate::model::Snapshot {
            nodes,
            complete: true,
            ..crate::model::Snapshot::default()
        }
    }

    /// A node of `role` with `handle` on bus :1.3, named `name` ("" is unnamed), under `parent`
    /// (its children list updated).
    fn add(
        nodes: &mut Vec<crate::model::Node>,
        role: crate::vocab::Role,
        handle: &str,
        name: &str,
        parent: Option<usize>,
    ) -> usize {
        use crate::model::Evidence;
        let i = nodes.len();
        if let Some(p) = parent {
            nodes[p].children.push(i);
        }
        nodes.push(crate::model::Node {
            role,
            handle: format!(":1.3:{handle}"),
            name: if name.is_empty() {
                Evidence::Absent
            } else {
                Evidence::Known(name.into())
            },
            parent,
            ..crate::model::Node::default()
        });
        i
    }

    /// A list's row: unnamed, with `handle`, holding a cell named `file`.
    fn row_list(rows: &[(&str, &str)]) -> crate::model::Snapshot {
        use crate::vocab::Role;
        let mut nodes = Vec::new();
        add(&mut nodes, Role::List, "/list", "Files", None);
        for (handle, file) in rows {
            let row = add(&mut nodes, Role::Row, handle, "", Some(0));
            add(
                &mut nodes,
                Role::Cell,
                &format!("{handle}/cell"),
                file,
                Some(row),
            );
        }
        complete(nodes)
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

    /// A table of (name, handle) cells under one tree; "" is a blank cell.
    fn cells(list: &[(&str, &str)]) -> crate::model::Snapshot {
        use crate::vocab::Role;
        let mut nodes = Vec::new();
        add(&mut nodes, Role::Tree, "/tree", "Files", None);
        for (name, handle) in list {
            add(&mut nodes, Role::Cell, handle, name, Some(0));
        }
        complete(nodes)
    }

    /// Issue 29.9: Qt makes new objects for an item view's cells on every read, so its blank
    /// cells (a folder's size) were removed and added again in every diff. A blank cell between
    /// neighbours that kept their refs is the same cell; one whose neighbours changed is not.
    #[test]
    fn a_blank_cell_between_cells_that_kept_their_refs_keeps_its_own() {
        let before = crate::store::tests::state_of(
            cells(&[
                ("home", "/1"),
                ("", "/2"),
                ("Folder", "/3"),
                ("runtime", "/4"),
                ("", "/5"),
            ])
            .nodes,
        );
        let after = cells(&[
            ("home", "/11"),
            ("", "/12"),
            ("Folder", "/13"),
            ("runtime", "/14"),
            ("", "/15"),
        ]);
        let refs = assign_refs(Some(&before), &after).refs;
        assert_eq!(refs, before.refs, "every cell is the same cell");
        // Scrolled: the blank cell's neighbours are other cells, so it is another cell.
        let scrolled = cells(&[("etc", "/21"), ("", "/22"), ("Folder", "/23")]);
        let refs = assign_refs(Some(&before), &scrolled).refs;
        assert_ne!(refs[2], before.refs[2], "a blank cell of another row");
        // An icon alone in its box (GTK's file chooser places) is the box's icon.
        let before = crate::store::tests::state_of(cells(&[("", "/1")]).nodes);
        let refs = assign_refs(Some(&before), &cells(&[("", "/9")])).refs;
        assert_eq!(refs, before.refs);
    }
}
