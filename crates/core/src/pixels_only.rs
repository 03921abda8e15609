//! Regions whose content exists only as pixels: a spreadsheet's grid, a terminal's screen or a
//! canvas that takes the keyboard focus but gives accessibility no children, text or value
//! (Gnumeric's sheet, QTermWidget). The outline says so, so an agent knows that reading the tree
//! will not show what it types there, and a backend checks a step into one by reading the
//! region's pixels (OCR) before and after it.

use crate::model::Node;
use crate::vocab::{Capability, Role, StateFlag};

/// The smallest box (width, height) read as a region: below it, an unnamed focusable leaf is a
/// widget (a colour swatch, a drag handle), not somewhere text is shown.
const MIN_SIZE: (i32, i32) = (40, 20);

/// What a pixels-only region may offer: focus, a click, scrolling. Anything more (text, a value,
/// an action) is accessible content of its own.
const REGION_CAPS: [Capability; 3] = [Capability::Focus, Capability::Click, Capability::Scroll];

/// Whether `nodes[i]` is a region with no accessible content: a pane, canvas, terminal or
/// document that can take the keyboard focus, with no name-less content (no text, value or
/// actions of its own), whose only children are scroll bars or hidden ones, and whose box (when
/// known) is big enough to show text.
pub fn pixels_only(nodes: &[Node], i: usize) -> bool {
    let Some(n) = nodes.get(i) else {
        return false;
    };
    let region_role = matches!(
        n.role,
        Role::Pane | Role::Canvas | Role::Terminal | Role::Document | Role::Unknown
    );
    let takes_keys = n.has_state(StateFlag::Focusable) || n.has_state(StateFlag::Focused);
    let says_nothing = n.value.text().is_none()
        && n.numeric.is_none()
        && n.text_len.unwrap_or(0) == 0
        && n.visual_text.is_none()
        && n.truncated.is_none()
        && n.actions.iter().all(|a| a.eq_ignore_ascii_case("SetFocus"))
        && Capability::ALL
            .iter()
            .filter(|c| n.caps.contains(**c))
            .all(|c| REGION_CAPS.contains(c));
    let big_enough = n
        .bounds
        .is_none_or(|b| b.width >= MIN_SIZE.0 && b.height >= MIN_SIZE.1);
    let only_chrome = n.children.iter().all(|&c| {
        nodes.get(c).is_none_or(|k| {
            k.role == Role::ScrollBar || k.has_state(StateFlag::Hidden) && k.children.is_empty()
        })
    });
    region_role
        && takes_keys
        && says_nothing
        && big_enough
        && only_chrome
        && !n.has_state(StateFlag::Hidden)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Bounds;
    use crate::vocab::{CapSet, StateSet};
    use crate::Evidence;

    fn node(role: Role, states: &[StateFlag], caps: &[Capability]) -> Node {
        Node {
            role,
            states: Evidence::Known(states.iter().copied().collect::<StateSet>()),
            caps: caps.iter().copied().collect::<CapSet>(),
            ..Node::default()
        }
    }

    fn region(role: Role) -> Node {
        node(
            role,
            &[StateFlag::Focusable],
            &[Capability::Focus, Capability::Click],
        )
    }

    #[test]
    fn a_focusable_childless_pane_canvas_or_terminal_is_pixels_only() {
        for role in [Role::Pane, Role::Canvas, Role::Terminal] {
            assert!(pixels_only(&[region(role)], 0), "{role:?}");
        }
    }

    #[test]
    fn scroll_bars_and_hidden_children_do_not_count_as_content() {
        let mut pane = region(Role::Pane);
        pane.children = vec![1, 2];
        let bar = node(Role::ScrollBar, &[], &[]);
        let hidden = node(Role::Label, &[StateFlag::Hidden], &[]);
        assert!(pixels_only(&[pane.clone(), bar.clone(), hidden], 0));
        let mut label = node(Role::Label, &[], &[]);
        label.name = Evidence::from_text("A1");
        assert!(!pixels_only(&[pane, bar, label], 0));
    }

    #[test]
    fn text_values_actions_small_boxes_and_unfocusable_ones_are_not() {
        let mut with_text = region(Role::Terminal);
        with_text.text_len = Some(12);
        let mut with_value = region(Role::Pane);
        with_value.value = Evidence::from_text("7");
        let editable = node(
            Role::Pane,
            &[StateFlag::Focusable],
            &[Capability::Focus, Capability::TypeText],
        );
        let mut small = region(Role::Canvas);
        small.bounds = Some(Bounds::new(0, 0, 20, 12));
        let unfocusable = node(Role::Canvas, &[], &[]);
        let mut button = region(Role::Unknown);
        button.actions = vec!["click".into()];
        for n in [with_text, with_value, editable, small, unfocusable, button] {
            assert!(!pixels_only(std::slice::from_ref(&n), 0), "{n:?}");
        }
    }
}
