//! GTK 4.8's screen, as a look must judge it: it sets `SHOWING` only on windows, so a visible
//! widget under a showing parent counts as showing, unless the rectangle of a layout container
//! above it says it is not on screen (see `crates/backend-linux/TOOLKITS.md`).

use uidriver_core::Bounds;

use super::Raw;
use crate::atspi::connection::Caller;
use crate::atspi::{component, state, Ifaces, States};
use crate::mapping::{self, role};

/// GTK 4.8 sets `SHOWING` only on windows (libatspi sees 1 showing node of 96 in
/// gnome-calculator), but `VISIBLE` tracks the widget: a visible widget inside a showing parent
/// is treated as showing, so it gets extents and details.
pub(super) fn gtk4_showing(s: &mut States, parent_showing: bool) {
    if parent_showing && s.has(state::VISIBLE) {
        s.0 |= 1 << state::SHOWING;
    }
}

/// Whether node `n`'s rectangle is read to tell whether GTK4 shows it and all below it
/// ([`unshow_gtk4_boxes`]): GTK4 marks nothing below a window showing. What GTK 4.8 keeps
/// visible off screen is a layout container (a stack page, a revealer, an info bar, an
/// overlay scroll bar), so controls and leaves, a call each, are judged by their containers;
/// and so is a sole child of an element with a rectangle, which is on screen when its parent
/// is (a stack's pages hang alone under a `GtkStackPage`, which has no rectangle).
pub(super) fn judges_gtk4_screen(nodes: &[Raw], n: usize) -> bool {
    let d = &nodes[n].d;
    let sole_child = nodes[n].parent.is_some_and(|p| {
        let parent = &nodes[p].d;
        parent.child_count == 1 && parent.ifaces.has(Ifaces::COMPONENT)
    });
    d.child_count != 0 && mapping::is_layout_box(d.role) && !sole_child
}

/// Takes back the `SHOWING` that [`gtk4_showing`] lent a visible GTK4 widget whose
/// rectangle shows it is not on screen: no area (GTK 4.8 keeps a stack page not shown, a
/// closed revealer or info bar visible at 0×0 at its parent's corner: gnome-text-editor's
/// "Could Not Open File" bar, its hidden "Start or Open a Document" page), or outside the
/// observed window ([`off_window`]); and from everything below such a widget. The observed node keeps it.
pub(super) fn unshow_gtk4_boxes(nodes: &mut [Raw]) {
    let root_box = nodes[0].details.as_ref().and_then(|d| d.bounds);
    let mut stack: Vec<(usize, bool)> = nodes[0].children.iter().map(|&k| (k, false)).collect();
    while let Some((n, below_unshown)) = stack.pop() {
        let off = below_unshown
            || nodes[n].details.as_ref().is_some_and(|d| {
                d.empty
                    || d.bounds
                        .zip(root_box)
                        .is_some_and(|(b, r)| off_window(&b, &r))
            });
        if off {
            nodes[n].d.states.0 &= !(1 << state::SHOWING);
        }
        stack.extend(nodes[n].children.iter().map(|&k| (k, off)));
    }
}

/// Whether `b` lies outside the window `r`: no overlap, or an overlap of at most one pixel
/// across where `b` itself is wider (tall) than that (a libadwaita leaflet leaves the page it
/// slid away from with its first column on the window's last).
fn off_window(b: &Bounds, r: &Bounds) -> bool {
    match b.intersect(r) {
        None => true,
        Some(i) => (i.width <= 1 && b.width > 1) || (i.height <= 1 && b.height > 1),
    }
}

/// Takes back the `SHOWING` [`gtk4_showing`] lent to all but one of sibling layout boxes that
/// GTK 4 reports on the same rectangle (siblings above a `GtkStackPage` wrapper), and from all
/// below them: a stack or a libadwaita leaflet
/// keeps a page it moved away from visible at its last place (the page shown before Back sits
/// where the current one is), and only the current one is drawn there. GTK's own hit test at the
/// rectangle's center (`GetAccessibleAtPoint` from the window, window-relative, answered with
/// the deepest widget at once) says which one is drawn; when it lands in none of them, or the
/// call fails, all keep it. One call per such group, none in most windows. `origin` is where
/// the window's (0, 0) was placed on screen (the rectangles read are placed by it).
pub(super) async fn unshow_gtk4_covered(c: &Caller, nodes: &mut [Raw], origin: Option<(i32, i32)>) {
    let Some((ox, oy)) = origin else { return };
    if !matches!(nodes[0].d.role, role::FRAME | role::WINDOW | role::DIALOG) {
        return;
    }
    // A box's parent for this rule: above the wrappers without a rectangle that hold it alone
    // (a `GtkStackPage`), so a stack's pages are siblings.
    let parent_of = |nodes: &[Raw], mut n: usize| loop {
        let p = nodes[n].parent?;
        let w = &nodes[p].d;
        if w.child_count == 1 && !w.ifaces.has(Ifaces::COMPONENT) && p != 0 {
            n = p;
        } else {
            break Some(p);
        }
    };
    let mut by_place: Vec<((usize, Bounds), Vec<usize>)> = Vec::new();
    for k in 1..nodes.len() {
        if !showing_box(&nodes[k]) {
            continue;
        }
        let (Some(p), Some(b)) = (
            parent_of(nodes, k),
            nodes[k].details.as_ref().and_then(|d| d.bounds),
        ) else {
            continue;
        };
        match by_place.iter_mut().find(|(key, _)| *key == (p, b)) {
            Some((_, g)) => g.push(k),
            None => by_place.push(((p, b), vec![k])),
        }
    }
    let groups = by_place.into_iter().map(|(_, g)| g).filter(|g| g.len() > 1);
    for group in groups {
        let Some(b) = nodes[group[0]].details.as_ref().and_then(|d| d.bounds) else {
            continue;
        };
        let Some(hit) = hit_node(c, nodes, &b, (ox, oy)).await else {
            continue;
        };
        let Some(drawn) = enclosing(nodes, hit, |k| group.contains(&k)) else {
            continue;
        };
        unshow_under(
            nodes,
            group.iter().copied().filter(|&k| k != drawn).collect(),
        );
    }
}

/// The node GTK's own hit test finds at the center of `b` (placed on screen by `origin`, the
/// window's (0, 0)), when the look has it.
async fn hit_node(c: &Caller, nodes: &[Raw], b: &Bounds, (ox, oy): (i32, i32)) -> Option<usize> {
    let (x, y) = (b.x + b.width / 2 - ox, b.y + b.height / 2 - oy);
    let window = &nodes[0].d.obj;
    let hit = component::accessible_at_point(c, window, x, y, component::COORD_SCREEN)
        .await
        .ok()??;
    nodes.iter().position(|r| r.d.obj == hit)
}

/// `at` or the nearest node above it that `is` says yes to.
fn enclosing(nodes: &[Raw], mut at: usize, is: impl Fn(usize) -> bool) -> Option<usize> {
    loop {
        if is(at) {
            return Some(at);
        }
        at = nodes[at].parent?;
    }
}

/// Takes `SHOWING` from `starts` and from everything below them.
fn unshow_under(nodes: &mut [Raw], mut stack: Vec<usize>) {
    while let Some(n) = stack.pop() {
        nodes[n].d.states.0 &= !(1 << state::SHOWING);
        stack.extend(nodes[n].children.iter().copied());
    }
}

/// A layout box (with children and a rectangle) that a look counts as on screen: what
/// [`unshow_gtk4_covered`] and [`unshow_gtk4_slivers`] judge.
fn showing_box(r: &Raw) -> bool {
    r.d.states.has(state::SHOWING)
        && r.d.child_count != 0
        && mapping::is_layout_box(r.d.role)
        && r.details
            .as_ref()
            .is_some_and(|d| !d.empty && d.bounds.is_some())
}

/// Most hit tests one look spends on slivers.
const SLIVER_CALLS: usize = 4;

/// Takes back the `SHOWING` of a layout box that reaches into the window only by a sliver
/// (less than a quarter of the box and of the window across), and from all below it, when GTK's own hit
/// test in the middle of that sliver lands outside it: a libadwaita leaflet that slid a page
/// away under load can leave it a few pixels into the window, under the current page (seen:
/// 3 and 5 px of a 350 px page, with [`off_window`]'s 1 px rule missing them). When the call
/// fails, or lands in the box or nowhere it knows, the box keeps it. `origin` as in
/// [`unshow_gtk4_covered`].
pub(super) async fn unshow_gtk4_slivers(c: &Caller, nodes: &mut [Raw], origin: Option<(i32, i32)>) {
    let Some((ox, oy)) = origin else { return };
    if !matches!(nodes[0].d.role, role::FRAME | role::WINDOW | role::DIALOG) {
        return;
    }
    let Some(window_box) = nodes[0].details.as_ref().and_then(|d| d.bounds) else {
        return;
    };
    let slivers: Vec<(usize, Bounds)> = (1..nodes.len())
        .filter(|&k| showing_box(&nodes[k]))
        .filter_map(|k| {
            let b = nodes[k].details.as_ref()?.bounds?;
            let i = b.intersect(&window_box)?;
            let w = &window_box;
            let thin = (i.width * 4 < b.width && i.width * 4 < w.width)
                || (i.height * 4 < b.height && i.height * 4 < w.height);
            thin.then_some((k, i))
        })
        .take(SLIVER_CALLS)
        .collect();
    for (k, i) in slivers {
        // Already taken back with a box above it.
        if !nodes[k].d.states.has(state::SHOWING) {
            continue;
        }
        let Some(hit) = hit_node(c, nodes, &i, (ox, oy)).await else {
            continue;
        };
        if enclosing(nodes, hit, |n| n == k).is_none() {
            unshow_under(nodes, vec![k]);
        }
    }
}
