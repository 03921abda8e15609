//! GTK 4.8's screen, as a look must judge it: it sets `SHOWING` only on windows, so a visible
//! widget under a showing parent counts as showing, unless the rectangle of a layout container
//! above it says it is not on screen (see `crates/backend-linux/TOOLKITS.md`).

use super::Raw;
use crate::atspi::{state, Ifaces, States};
use crate::mapping;

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
/// "Could Not Open File" bar, its hidden "Start or Open a Document" page), or wholly outside
/// the observed window; and from everything below such a widget. The observed node keeps it.
pub(super) fn unshow_gtk4_boxes(nodes: &mut [Raw]) {
    let root_box = nodes[0].details.as_ref().and_then(|d| d.bounds);
    let mut stack: Vec<(usize, bool)> = nodes[0].children.iter().map(|&k| (k, false)).collect();
    while let Some((n, below_unshown)) = stack.pop() {
        let off = below_unshown
            || nodes[n].details.as_ref().is_some_and(|d| {
                d.empty
                    || d.bounds
                        .zip(root_box)
                        .is_some_and(|(b, r)| b.intersect(&r).is_none())
            });
        if off {
            nodes[n].d.states.0 &= !(1 << state::SHOWING);
        }
        stack.extend(nodes[n].children.iter().map(|&k| (k, off)));
    }
}
