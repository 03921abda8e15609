//! Whether a click reached the element it was aimed at. Pointer input goes to a point, not to
//! an element: the app's reaction proves the click landed only when the reaction is the
//! element's own, or when something says the point was on it.
//!
//! Two things say so:
//! - the toolkit's hit test (`GetAccessibleAtPoint`, drilled down from the window) reaches the
//!   element at the click point (GTK 4 answers the deepest element at once, in window-relative
//!   coordinates). Not where a frame or popover correction moved the point: the test would
//!   only repeat the geometry that was corrected;
//!   A point another element's box also holds is left to the reactions: toolkits hit-test their
//!   widget tree, not what is drawn over it (the state has leaf boxes in visual looks only; in
//!   other looks `recheck` finds the reacting element that holds the point, after the click);
//! - the focus moved to the element or into it during the step, while its window was already
//!   active and the element did not have the focus before (activation restores a window's
//!   focus by itself).
//!
//! Without either, only reactions in the element's [`Scope`] count: its own events and its
//! descendants', a selection change of an ancestor (a row selected in its list), a new window
//! or new objects (a dialog being built). A reaction elsewhere (the Menu button of a GTK 4
//! popover that closed because the click missed its item) proves nothing about the element.

use std::collections::HashSet;

use uidriver_core::State;

use super::verify::{element_words, index_of, Watch};
use super::{Ctx, Element};
use crate::atspi::events::Event;
use crate::atspi::{component, Obj};
use crate::roots::Toolkit;

/// How deep the hit test drills from the window (toolkits answer one level per call).
const MAX_DEPTH: usize = 32;

/// What the toolkit says is at the click point.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Landing {
    /// The element, or something inside it, at this point (in the toolkit's coordinates).
    On((i32, i32)),
    /// Another element (described with its ref when the state has it).
    Elsewhere(String),
    /// The toolkit cannot tell, or its answer would not be independent.
    Unknown,
}

impl Landing {
    /// The clause a verification detail starts with.
    pub(crate) fn note(&self, el: &Element<'_>) -> Option<String> {
        match self {
            Landing::On(_) => Some(format!(
                "the click landed on {} (the toolkit's hit test)",
                el.r
            )),
            Landing::Elsewhere(what) => Some(format!(
                "the toolkit places the click point on {what}, not on {}",
                el.r
            )),
            Landing::Unknown => None,
        }
    }
}

/// How long the hit test may delay a click: past it, the landing is unknown (a busy app must
/// not hold the input back).
const PROBE_BUDGET: std::time::Duration = std::time::Duration::from_millis(300);

/// Asks the toolkit what is at `point` (screen pixels, where the click goes), drilling down
/// from the element's window. `corrected`: the point was moved off the toolkit's own geometry.
pub(crate) async fn probe(
    ctx: &Ctx<'_>,
    el: &Element<'_>,
    point: (i32, i32),
    corrected: bool,
) -> Landing {
    tokio::time::timeout(PROBE_BUDGET, probe_within(ctx, el, point, corrected))
        .await
        .unwrap_or(Landing::Unknown)
}

async fn probe_within(
    ctx: &Ctx<'_>,
    el: &Element<'_>,
    point: (i32, i32),
    corrected: bool,
) -> Landing {
    if corrected || overlaid(ctx.state, el.index, point) {
        return Landing::Unknown;
    }
    // GTK 4 (and every toolkit on Wayland) hit-tests in window-relative coordinates,
    // whatever the call says.
    let (x, y) = if ctx.backend.window_relative(&ctx.target) {
        match ctx
            .backend
            .window_origin(&ctx.att, &ctx.target, ctx.deadline)
            .await
        {
            Some((ox, oy)) => (point.0 - ox, point.1 - oy),
            None => return Landing::Unknown,
        }
    } else {
        point
    };
    let nodes = &ctx.state.snapshot.nodes;
    // From the surface the element is drawn on: the menu that holds it (a popup window of its
    // own, which a drill from the main window does not enter), else the window.
    let mut top = el.index;
    while let Some(p) = nodes[top].parent {
        top = p;
        if nodes[p].role == uidriver_core::Role::Menu {
            break;
        }
    }
    // The window itself: nothing to drill into that could say more.
    if top == el.index {
        return Landing::Unknown;
    }
    // GTK 4 reports a popover where its parent widget is: its hit test agrees with that
    // geometry, not with where the popover is drawn.
    if nodes[top].role == uidriver_core::Role::Menu && ctx.toolkit() == Toolkit::Gtk4 {
        return Landing::Unknown;
    }
    let Some(mut at) = Obj::from_handle(&nodes[top].handle) else {
        return Landing::Unknown;
    };
    let window = at.clone();
    for _ in 0..MAX_DEPTH {
        if at == el.obj {
            return Landing::On((x, y));
        }
        match component::accessible_at_point(&ctx.caller, &at, x, y, component::COORD_SCREEN).await
        {
            Ok(Some(next)) if next != at => at = next,
            Ok(_) => break,
            Err(_) => return Landing::Unknown,
        }
    }
    if at == el.obj {
        return Landing::On((x, y));
    }
    if at == window {
        return Landing::Unknown;
    }
    match index_of(ctx.state, &at) {
        // GTK 4 answers the deepest element at once (a button's label).
        Some(i) if is_ancestor(ctx.state, el.index, i) => Landing::On((x, y)),
        // The drill stopped above the element: the toolkit does not look deeper there.
        Some(i) if is_ancestor(ctx.state, i, el.index) => Landing::Unknown,
        Some(i) => Landing::Elsewhere(element_words(ctx.state, i)),
        // Perhaps inside the element, in a part the state did not read.
        None => Landing::Unknown,
    }
}

/// After the click: when the reactions came only from other elements, and one of them has the
/// click point in its box, the click went to that one, whatever the hit test said (an overlay
/// the toolkit's hit test does not see, a popover whose box the state did not read).
/// The element's ancestors, and anything whose box holds the element's whole box (the window,
/// whose title changed), hold the point too without having taken the click.
pub(crate) async fn recheck(
    ctx: &Ctx<'_>,
    el: &Element<'_>,
    landing: &mut Landing,
    w: &Watch<'_>,
    scope: &Scope,
) {
    let Landing::On((x, y)) = *landing else {
        return;
    };
    if w.reacted_in(scope) {
        return;
    }
    let Some((ex, ey, ew, eh)) = boxed(ctx, &el.obj).await else {
        return;
    };
    let mut asked = HashSet::new();
    for ev in w.seen.iter().filter(|e| *e.sender == *scope.bus) {
        if scope.ancestors.contains(&*ev.path) || !asked.insert(ev.path.clone()) || asked.len() > 3
        {
            continue;
        }
        let o = Obj::new(&*ev.sender, &*ev.path);
        let Some((bx, by, bw, bh)) = boxed(ctx, &o).await else {
            continue;
        };
        let holds = |px: i32, py: i32| (bx..=bx + bw).contains(&px) && (by..=by + bh).contains(&py);
        if holds(ex, ey) && holds(ex + ew, ey + eh) {
            continue;
        }
        if holds(x, y) {
            *landing = Landing::Elsewhere(match index_of(ctx.state, &o) {
                Some(i) => element_words(ctx.state, i),
                None => "an element the state does not show".into(),
            });
            return;
        }
    }
}

/// An object's box as the toolkit reports it (GTK 4: window-relative), when it has one.
async fn boxed(ctx: &Ctx<'_>, o: &Obj) -> Option<(i32, i32, i32, i32)> {
    component::extents(&ctx.caller, o, component::COORD_SCREEN)
        .await
        .ok()
        .filter(|(_, _, w, h)| *w > 0 && *h > 0)
}

/// Whether an element of the state that is neither `index`'s ancestor nor inside it has the
/// point in its box: something may be drawn over the element there. Toolkits hit-test their
/// widget tree, not what is drawn on top: under an open GTK 3 popover, GTK 3 answers the table
/// cell below it for a point where the popover's check box is.
/// Whether `point` (aimed at the element's live box) is inside its box in the state, when the
/// state has one (semantic looks keep none), and no other leaf of the state covers it.
pub(crate) fn alone_at(state: &State, index: usize, (x, y): (i32, i32)) -> bool {
    let inside = state.snapshot.nodes[index]
        .bounds
        .is_none_or(|b| b.contains(x, y));
    inside && !overlaid(state, index, (x, y))
}

fn overlaid(state: &State, index: usize, (x, y): (i32, i32)) -> bool {
    let nodes = &state.snapshot.nodes;
    nodes.iter().enumerate().any(|(i, n)| {
        i != index
            && n.children.is_empty()
            && !n.has_state(uidriver_core::StateFlag::Hidden)
            && n.bounds.is_some_and(|b| b.is_visible() && b.contains(x, y))
            && !is_ancestor(state, index, i)
            && !is_ancestor(state, i, index)
    })
}

fn is_ancestor(state: &State, a: usize, of: usize) -> bool {
    state.ancestors(of).contains(&a)
}

/// The objects whose reactions are an element's: it and its descendants (`own`), and its
/// ancestors, whose selection changing is its effect (`ancestors`). Object paths on the
/// element's bus.
pub(crate) struct Scope {
    pub(crate) bus: String,
    pub(crate) own: HashSet<String>,
    pub(crate) ancestors: HashSet<String>,
    /// A selectable element shows its own selection (`selected` flips): its list's selection
    /// changing without that is another element selected.
    pub(crate) selectable: bool,
}

impl Scope {
    /// Whether `ev` is a reaction of the element's.
    pub(crate) fn holds(&self, ev: &Event) -> bool {
        *ev.sender == *self.bus
            && (self.own.contains(&*ev.path)
                || (!self.selectable
                    && &*ev.member == "SelectionChanged"
                    && self.ancestors.contains(&*ev.path)))
    }

    /// Whether `o` is the element or inside it.
    pub(crate) fn contains(&self, o: &Obj) -> bool {
        o.bus == self.bus && self.own.contains(&o.path)
    }

    pub(crate) fn of(state: &State, el: &Element<'_>) -> Scope {
        Scope::at(state, el.index, &el.obj)
    }

    fn at(state: &State, index: usize, obj: &Obj) -> Scope {
        let path_of = |i: usize| {
            Obj::from_handle(&state.snapshot.nodes[i].handle)
                .filter(|o| o.bus == obj.bus)
                .map(|o| o.path)
        };
        let mut own: HashSet<String> = state
            .subtree(index)
            .into_iter()
            .filter_map(path_of)
            .collect();
        own.insert(obj.path.clone());
        let ancestors = state
            .ancestors(index)
            .into_iter()
            .filter_map(path_of)
            .collect();
        let n = &state.snapshot.nodes[index];
        Scope {
            bus: obj.bus.clone(),
            own,
            ancestors,
            selectable: n.has_state(uidriver_core::StateFlag::Selectable)
                || n.has_state(uidriver_core::StateFlag::Selected),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;
    use uidriver_core::{Bounds, Node, Role, Snapshot, StateFlag, StateSet};

    /// window › [list › [row › [cell "Otto"]], popover › [check "Dark Theme"]]: the popover's
    /// check box is drawn over the cell.
    fn state() -> State {
        type Spec = (Role, Option<usize>, (i32, i32, i32, i32));
        let spec: [Spec; 6] = [
            (Role::Window, None, (0, 0, 800, 600)),
            (Role::List, Some(0), (0, 0, 400, 600)),
            (Role::ListItem, Some(1), (0, 100, 400, 20)),
            (Role::Cell, Some(2), (0, 100, 100, 20)),
            (Role::Group, Some(0), (50, 90, 200, 100)),
            (Role::CheckBox, Some(4), (50, 95, 200, 30)),
        ];
        let mut nodes: Vec<Node> = spec
            .iter()
            .enumerate()
            .map(|(i, (role, parent, (x, y, w, h)))| Node {
                role: *role,
                parent: *parent,
                bounds: Some(Bounds::new(*x, *y, *w, *h)),
                handle: format!(":1.5:/o/{i}"),
                ..Node::default()
            })
            .collect();
        for i in 1..nodes.len() {
            let p = nodes[i].parent.unwrap();
            nodes[p].children.push(i);
        }
        testing_state(nodes)
    }

    fn testing_state(nodes: Vec<Node>) -> State {
        uidriver_core::testing::state_of(Snapshot {
            nodes,
            ..Snapshot::default()
        })
    }

    fn event(path: &str, member: &str) -> Event {
        Event {
            sender: Arc::from(":1.5"),
            class: "Object",
            member: Arc::from(member),
            path: Arc::from(path),
            detail: Arc::from(""),
            at: Instant::now(),
        }
    }

    #[test]
    fn an_elements_scope_is_itself_what_it_holds_and_its_lists_selection() {
        let s = state();
        let row = Scope::at(&s, 2, &Obj::new(":1.5", "/o/2"));
        assert!(row.holds(&event("/o/2", "StateChanged")));
        assert!(row.holds(&event("/o/3", "TextChanged")));
        assert!(row.holds(&event("/o/1", "SelectionChanged")));
        // The list's other changes, and the popover's, are not the row's.
        assert!(!row.holds(&event("/o/1", "ChildrenChanged")));
        assert!(!row.holds(&event("/o/5", "StateChanged")));
        let mut other_app = event("/o/2", "StateChanged");
        other_app.sender = Arc::from(":1.6");
        assert!(!row.holds(&other_app));
        assert!(row.contains(&Obj::new(":1.5", "/o/3")));
        assert!(!row.contains(&Obj::new(":1.5", "/o/0")));
        // A selectable row shows its own selection: the list's changing without it is another
        // row selected.
        let mut s = state();
        s.snapshot.nodes[2].states =
            uidriver_core::Evidence::Known(StateSet::default().with(StateFlag::Selectable));
        let row = Scope::at(&s, 2, &Obj::new(":1.5", "/o/2"));
        assert!(!row.holds(&event("/o/1", "SelectionChanged")));
        assert!(row.holds(&event("/o/2", "StateChanged")));
    }

    #[test]
    fn a_point_another_elements_box_holds_is_overlaid() {
        let s = state();
        // The cell's centre is under the popover's check box.
        assert!(overlaid(&s, 3, (50, 110)));
        // Left of the popover, only the cell and its ancestors hold the point.
        assert!(!overlaid(&s, 3, (20, 110)));
        // The check box itself is not overlaid by the cell's ancestors or its own.
        assert!(!overlaid(&s, 5, (200, 100)));
        assert!(is_ancestor(&s, 1, 3) && !is_ancestor(&s, 3, 1));
    }
}
