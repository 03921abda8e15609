//! Coordinate frames embedded in a window.
//!
//! A root pane fills the container it sits in: that is what a root pane is. When one reports
//! the container's size at another origin, everything beneath it was placed in a frame of its
//! own, and the difference is what that frame is off by. LibreOffice is the case in point: its
//! VCL widgets live in a root pane under the GTK frame's menu bar and report positions that
//! leave the menu bar out, so every toolbar button was 25 px above where it is drawn and a
//! click on "Bold" hit the button row above it. The rule is measured, not a per-app constant:
//! a root pane that agrees with its container (Java Swing's, or one LibreOffice places right)
//! shifts nothing.

use uidriver_core::{Bounds, Node};

/// The native role name of a root pane (`ATSPI_ROLE_ROOT_PANE`).
const ROOT_PANE: &str = "root-pane";

/// How far a root pane's frame is off: `container − pane` when both have boxes of the same
/// size at different origins.
pub(crate) fn offset(container: Option<Bounds>, pane: Option<Bounds>) -> Option<(i32, i32)> {
    let (c, p) = (container?, pane?);
    let same_size = c.width == p.width && c.height == p.height && c.width > 0 && c.height > 0;
    let moved = c.x != p.x || c.y != p.y;
    (same_size && moved && plausible(p) && plausible(c)).then(|| (c.x - p.x, c.y - p.y))
}

/// A box of real coordinates (not AT-SPI's `i32::MIN` for "no position").
fn plausible(b: Bounds) -> bool {
    b.x > i32::MIN / 2 && b.y > i32::MIN / 2
}

/// Moves every root pane of a pre-order node list that is off its container, with its whole
/// subtree, onto the container. Returns how many panes were moved.
pub(crate) fn align_root_panes(nodes: &mut [Node]) -> usize {
    let mut moved = 0;
    for i in 0..nodes.len() {
        if nodes[i].native_role != ROOT_PANE {
            continue;
        }
        let Some(p) = nodes[i].parent else { continue };
        let Some((dx, dy)) = offset(nodes[p].bounds, nodes[i].bounds) else {
            continue;
        };
        shift_subtree(nodes, i, dx, dy);
        moved += 1;
    }
    moved
}

/// Moves the rectangles of `i` and its descendants (a pre-order list) by `(dx, dy)`.
pub(crate) fn shift_subtree(nodes: &mut [Node], i: usize, dx: i32, dy: i32) {
    if (dx, dy) == (0, 0) {
        return;
    }
    for j in subtree(nodes, i) {
        if let Some(b) = nodes[j].bounds.as_mut().filter(|b| plausible(**b)) {
            b.x += dx;
            b.y += dy;
        }
    }
}

/// The indices of `i` and its descendants in a pre-order list (a contiguous run: each node
/// after `i` whose parent lies within the run).
fn subtree(nodes: &[Node], i: usize) -> std::ops::Range<usize> {
    let mut end = i + 1;
    while end < nodes.len() && nodes[end].parent.is_some_and(|p| p >= i && p < end) {
        end += 1;
    }
    i..end
}

/// The nearest root pane at or above node `i` of a state's nodes, and its container.
pub(crate) fn enclosing_root_pane(nodes: &[Node], i: usize) -> Option<(usize, usize)> {
    let mut at = Some(i);
    while let Some(n) = at {
        let parent = nodes[n].parent;
        if nodes[n].native_role == ROOT_PANE {
            return parent.map(|p| (n, p));
        }
        at = parent;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidriver_core::Role;

    fn node(role: &str, parent: Option<usize>, b: (i32, i32, i32, i32)) -> Node {
        Node {
            native_role: role.into(),
            role: Role::Pane,
            parent,
            bounds: Some(Bounds::new(b.0, b.1, b.2, b.3)),
            ..Node::default()
        }
    }

    /// Calc as read: the GTK panel at y 44, the VCL root pane claiming y 19, Bold at y 60 (drawn
    /// at 85); a sibling after the pane keeps its box.
    #[test]
    fn a_root_pane_off_its_container_moves_with_its_subtree() {
        let mut nodes = vec![
            node("frame", None, (0, 0, 1280, 800)),
            node("panel", Some(0), (0, 44, 1280, 756)),
            node("root-pane", Some(1), (0, 19, 1280, 756)),
            node("panel", Some(2), (0, 19, 1280, 78)),
            node("toggle-button", Some(3), (328, 60, 33, 35)),
            node("panel", Some(0), (0, 19, 1280, 25)),
        ];
        assert_eq!(align_root_panes(&mut nodes), 1);
        assert_eq!(nodes[2].bounds, Some(Bounds::new(0, 44, 1280, 756)));
        assert_eq!(nodes[4].bounds, Some(Bounds::new(328, 85, 33, 35)));
        assert_eq!(nodes[5].bounds, Some(Bounds::new(0, 19, 1280, 25)));
        assert_eq!(enclosing_root_pane(&nodes, 4), Some((2, 1)));
        assert_eq!(enclosing_root_pane(&nodes, 5), None);
    }

    #[test]
    fn a_root_pane_that_agrees_or_differs_in_size_is_left_alone() {
        for pane in [(0, 44, 1280, 756), (0, 19, 1280, 700)] {
            let mut nodes = vec![
                node("panel", None, (0, 44, 1280, 756)),
                node("root-pane", Some(0), pane),
                node("push-button", Some(1), (10, 60, 20, 20)),
            ];
            assert_eq!(align_root_panes(&mut nodes), 0);
            assert_eq!(nodes[2].bounds, Some(Bounds::new(10, 60, 20, 20)));
        }
        assert_eq!(
            offset(
                Some(Bounds::new(0, 0, 10, 10)),
                Some(Bounds::new(i32::MIN, i32::MIN, 10, 10))
            ),
            None
        );
    }
}
