//! How the nodes a walk found become the snapshot's tree: children added under their parent
//! (each object once), put in the live order when the app gave it (the live tree wins over the
//! cache, and the first live claim on a child holds), then laid out in pre-order and mapped into
//! core's nodes.

use std::collections::{HashMap, HashSet};

use uidriver_core::{Evidence, Node, ObserveRequest, Role, StateFlag, Truncation};

use super::{gtk4_showing, is_wrapper, Kids, Raw};
use crate::atspi::{state, Obj};
use crate::mapping;
use crate::roots::Toolkit;

/// Adds `kids` under `parent` (each object once: one placed already is left out and counted,
/// the count returned) and queues them for planning, first child first; a cap cuts the rest
/// and says how many.
#[allow(clippy::too_many_arguments)]
pub(super) fn add_children(
    nodes: &mut Vec<Raw>,
    parent: usize,
    kids: Kids,
    req: &ObserveRequest,
    placed: &mut HashMap<String, usize>,
    to_plan: &mut Vec<usize>,
    toolkit: Toolkit,
) -> usize {
    let depth = nodes[parent].depth + usize::from(!is_wrapper(&nodes[parent].d));
    let parent_showing = nodes[parent].d.states.has(state::SHOWING);
    let total = kids.kids.len();
    let (mut added, mut elsewhere) = (0usize, 0usize);
    for mut k in kids.kids {
        if toolkit == Toolkit::Gtk4 {
            gtk4_showing(&mut k.states, parent_showing);
            if mapping::is_gtk4_type_name(&k.name, k.role) {
                k.name.clear();
            }
        }
        let handle = k.obj.to_string();
        if placed.contains_key(&handle) {
            elsewhere += 1;
            continue;
        }
        if nodes.len() >= req.max_nodes {
            break;
        }
        let i = nodes.len();
        placed.insert(handle, i);
        nodes.push(Raw {
            d: k,
            parent: Some(parent),
            children: Vec::new(),
            depth,
            details: None,
            truncated: None,
        });
        nodes[parent].children.push(i);
        to_plan.push(i);
        added += 1;
    }
    let capped = total.saturating_sub(added);
    // Duplicates (cycles) do not count as capped when the cap was not reached.
    if capped > 0 && nodes.len() >= req.max_nodes {
        nodes[parent].truncated = Some(Truncation {
            skipped: Some(capped as u32 + kids.skipped.map_or(0, |s| s.0)),
            reason: "cap".into(),
        });
    } else if let Some((n, why)) = kids.skipped {
        nodes[parent].truncated = Some(Truncation {
            // u32::MAX: more than a u32 counts (a sheet's 2^34 cells), so not a number to show.
            skipped: (n != u32::MAX).then_some(n),
            reason: why.into(),
        });
    }
    // Pre-order among siblings: plan the first child last so it is popped first.
    let start = to_plan.len() - added;
    to_plan[start..].reverse();
    elsewhere
}

/// Puts the children of `n` in the live order `live`; the live tree wins over the cache.
/// Children the cache listed here but the app no longer has are unlinked (dropped from the
/// snapshot unless another parent lists them live). A live child already placed under another
/// parent moves here with its subtree: GTK3 caches a menu under the widget it belongs to while
/// the window lists it as its own child, which is where a walk finds it. A child stays where it
/// is when its parent's list was live too (`confirmed`): the first live claim holds.
pub(super) fn reorder(
    nodes: &mut [Raw],
    n: usize,
    live: &[Obj],
    placed: &HashMap<String, usize>,
    confirmed: &HashSet<usize>,
) -> Reordered {
    let mut order = Vec::with_capacity(live.len());
    let mut in_order = HashSet::with_capacity(live.len());
    let mut missing = Vec::new();
    let mut robbed = Vec::new();
    for o in live {
        match placed.get(&o.to_string()).copied() {
            Some(c) if in_order.contains(&c) => {}
            Some(c) if nodes[c].parent == Some(n) => {
                in_order.insert(c);
                order.push(c);
            }
            // The observed node never moves, and moving an ancestor of `n` (or `n` itself) under
            // it would make a cycle.
            Some(0) => {}
            Some(c) if is_self_or_ancestor(nodes, c, n) => {}
            Some(c) if nodes[c].parent.is_some_and(|p| confirmed.contains(&p)) => {}
            Some(c) => {
                if let Some(p) = nodes[c].parent {
                    nodes[p].children.retain(|&k| k != c);
                    if !robbed.contains(&p) {
                        robbed.push(p);
                    }
                }
                nodes[c].parent = Some(n);
                in_order.insert(c);
                order.push(c);
            }
            None => missing.push(o.clone()),
        }
    }
    let old = std::mem::replace(&mut nodes[n].children, order);
    for c in old {
        if !in_order.contains(&c) {
            nodes[c].parent = None;
        }
    }
    Reordered { missing, robbed }
}

/// What [`reorder`] found besides the order.
pub(super) struct Reordered {
    /// Live children not in the tree yet.
    pub missing: Vec<Obj>,
    /// Nodes that a child moved away from: their cached children were not what the app has.
    pub robbed: Vec<usize>,
}

/// Whether `a` is `n` or one of its ancestors.
pub(super) fn is_self_or_ancestor(nodes: &[Raw], a: usize, n: usize) -> bool {
    let mut at = Some(n);
    while let Some(i) = at {
        if i == a {
            return true;
        }
        at = nodes[i].parent;
    }
    false
}

/// Orders nodes in pre-order (parents before children) and maps them into core nodes.
pub(super) fn assemble(mut raw: Vec<Raw>) -> Vec<Node> {
    let away: Vec<bool> = (0..raw.len()).map(|i| scrolled_away(&raw, i)).collect();
    let mut order = Vec::with_capacity(raw.len());
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(raw[i].children.iter().rev().copied());
    }
    unshow_under_unshown(&mut raw, &order, &away);
    let mut new_index = vec![usize::MAX; raw.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let mut slots: Vec<Option<Raw>> = raw.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(order.len());
    for &old in &order {
        let Some(r) = slots[old].take() else { continue };
        out.push(to_node(r, &new_index, away[old]));
    }
    name_entries_after_their_combo(&mut out);
    crate::frames::align_root_panes(&mut out);
    out
}

/// Nothing is on screen that is not visible, or inside something that is not on screen: a node
/// without `VISIBLE`, or whose parent neither shows nor is scrolled out of a document's view,
/// loses its own `SHOWING` (the observed node keeps its states). Gecko keeps `SHOWING` on the
/// items of a menu it closed, without `VISIBLE` (the menu says `VISIBLE`, and `SHOWING` only
/// while its menu bar shows): they read as on screen, without `[hidden]`.
/// `order`: pre-order, so a parent is settled before its children; `away`: [`scrolled_away`].
fn unshow_under_unshown(raw: &mut [Raw], order: &[usize], away: &[bool]) {
    let mut shown = vec![false; raw.len()];
    for &i in order {
        let parent_shown = raw[i].parent.is_none_or(|p| shown[p]);
        if i != 0 && (!parent_shown || !raw[i].d.states.has(state::VISIBLE)) {
            raw[i].d.states.0 &= !(1 << state::SHOWING);
        }
        shown[i] = i == 0 || (parent_shown && (raw[i].d.states.has(state::SHOWING) || away[i]));
    }
}

/// A nameless entry inside a named combo box takes the combo box's name, as a screen reader
/// says it (gedit's Find field is an entry in a combo box its label names).
fn name_entries_after_their_combo(nodes: &mut [Node]) {
    for i in 0..nodes.len() {
        let nameless = nodes[i].name.text().is_none_or(|t| t.trim().is_empty());
        if !(nameless && matches!(nodes[i].role, Role::Text | Role::PasswordText)) {
            continue;
        }
        let Some(p) = nodes[i].parent else { continue };
        if nodes[p].role != Role::ComboBox {
            continue;
        }
        if let Some(n) = nodes[p].name.text().filter(|t| !t.trim().is_empty()) {
            nodes[i].name = Evidence::Known(n.to_string());
        }
    }
}

/// Whether a node is content scrolled out of a document's view: web engines (Chromium, Gecko)
/// clear `SHOWING` on it but keep `VISIBLE`, and leave truly hidden content out of the tree.
/// Such a node is on the page as much as one in view (the CDP backend reads it too, and scrolling
/// reaches it), so it is neither marked hidden nor left out of searches. Outside a document a
/// visible node that is not showing (a GTK stack page not shown, a closed menu) stays hidden.
pub(super) fn scrolled_away(nodes: &[Raw], n: usize) -> bool {
    let s = nodes[n].d.states;
    if s.has(state::SHOWING) || !s.has(state::VISIBLE) {
        return false;
    }
    let mut up = nodes[n].parent;
    while let Some(p) = up {
        let d = &nodes[p].d;
        if !d.states.has(state::VISIBLE) {
            return false;
        }
        // By role: Chromium puts the Document interface on every node of a page.
        if mapping::map_role(d.role).1 == Role::Document {
            return d.states.has(state::SHOWING);
        }
        up = nodes[p].parent;
    }
    false
}

/// `away`: the node is scrolled out of its document's view (see [`scrolled_away`]).
pub(super) fn to_node(r: Raw, new_index: &[usize], away: bool) -> Node {
    let (native_role, mut role) = mapping::map_role(r.d.role);
    let password = mapping::is_password(r.d.role);
    if password {
        role = Role::PasswordText;
    }
    let det = r.details.clone();
    let showing = r.d.states.has(state::SHOWING);
    let (bounds, value, numeric, text_len, actions, native_id, content) = match det {
        Some(d) => (
            d.bounds,
            d.value,
            d.numeric,
            d.text_len,
            d.actions,
            d.native_id,
            d.content.or(d.label),
        ),
        // A showing node whose details were not read (deadline) has unknown value; a hidden one
        // was deliberately not read and shows none.
        None if (showing || away) && mapping::text_is_value(r.d.role, r.d.states, r.d.ifaces) => {
            (None, Evidence::Unknown, None, None, Vec::new(), None, None)
        }
        None => (None, Evidence::Absent, None, None, Vec::new(), None, None),
    };
    let name = match content {
        Some(t) if r.d.name.trim().is_empty() => Evidence::Known(t),
        _ => Evidence::from_text(r.d.name.clone()),
    };
    // Unread rectangles (a look without bounds) still mean "on screen, clickable by grounding".
    let bounds_read = r.details.as_ref().is_some_and(|d| d.bounds_read);
    let has_box = bounds.is_some_and(|b| b.is_visible())
        || (!bounds_read && showing && r.d.ifaces.has(crate::atspi::Ifaces::COMPONENT));
    let caps = mapping::capabilities(role, r.d.states, r.d.ifaces, &actions, has_box);
    Node {
        role,
        native_role,
        name,
        description: Evidence::from_text(r.d.description),
        value,
        numeric,
        text_len,
        states: Evidence::Known({
            let mut s = mapping::map_states(r.d.states, r.d.role);
            if away {
                s.remove(StateFlag::Hidden);
            }
            s
        }),
        caps,
        actions,
        bounds,
        native_id: native_id.or(r.d.accessible_id),
        handle: r.d.obj.to_string(),
        visual_text: None,
        parent: r.parent.map(|p| new_index[p]),
        children: r.children.iter().map(|c| new_index[*c]).collect(),
        truncated: r.truncated,
    }
}
