//! GTK 2's menus, as a look must judge them: gail never sets `SHOWING` on the items of a menu
//! popup, open or not (GIMP 2.10: an open Image menu's items are `VISIBLE` only). Their
//! rectangles do not tell either: a menu opened once keeps its items' last places after it
//! closes. What tells is the X server: an open menu is a mapped override-redirect window, and
//! its items lie inside it. So the `VISIBLE` items of a menu whose first such item lies inside
//! one of those windows are lent `SHOWING` (and read as any showing node is); the items of
//! every other menu stay hidden.

use futures_util::future::join_all;
use uidriver_core::Bounds;

use super::Raw;
use crate::atspi::connection::Caller;
use crate::atspi::{component, state};
use crate::mapping::role;

/// Lends `SHOWING` to the visible items of each menu that is open on screen (its first visible
/// item lies inside one of `popups`, the mapped override-redirect windows), and to their items
/// in turn when they are open submenus. Returns the nodes lent it. One rectangle read per menu
/// whose items are unshown, all at once per level.
pub(super) async fn show_open_menu_items(
    c: &Caller,
    nodes: &mut [Raw],
    popups: &[Bounds],
) -> Vec<usize> {
    let mut lent = Vec::new();
    let mut menus: Vec<usize> = (0..nodes.len())
        .filter(|&n| is_menu(&nodes[n]) && nodes[n].d.states.has(state::SHOWING))
        .collect();
    while !menus.is_empty() {
        let groups: Vec<(usize, Vec<usize>)> = menus
            .iter()
            .map(|&m| (m, unshown_items(nodes, m)))
            .filter(|(_, items)| !items.is_empty())
            .collect();
        let places = join_all(groups.iter().map(|(_, items)| {
            let obj = nodes[items[0]].d.obj.clone();
            async move { component::extents(c, &obj, component::COORD_SCREEN).await }
        }))
        .await;
        menus = Vec::new();
        for ((_, items), place) in groups.into_iter().zip(places) {
            let open = place.is_ok_and(|(x, y, w, h)| inside_any(popups, Bounds::new(x, y, w, h)));
            if !open {
                continue;
            }
            for k in items {
                nodes[k].d.states.0 |= 1 << state::SHOWING;
                lent.push(k);
                if is_menu(&nodes[k]) {
                    menus.push(k);
                }
            }
        }
    }
    lent
}

fn is_menu(n: &Raw) -> bool {
    n.d.role == role::MENU
}

/// The children of menu `m` that are visible and not showing.
fn unshown_items(nodes: &[Raw], m: usize) -> Vec<usize> {
    nodes[m]
        .children
        .iter()
        .copied()
        .filter(|&k| {
            let s = nodes[k].d.states;
            s.has(state::VISIBLE) && !s.has(state::SHOWING)
        })
        .collect()
}

/// Whether the centre of `b` (a real place: a menu never opened answers 1×1 at `i32::MIN`) lies
/// inside one of `popups`.
fn inside_any(popups: &[Bounds], b: Bounds) -> bool {
    if b.x == i32::MIN || b.y == i32::MIN || b.width <= 1 || b.height <= 1 {
        return false;
    }
    let (cx, cy) = b.center();
    popups
        .iter()
        .any(|p| cx >= p.x && cy >= p.y && cx < p.x + p.width && cy < p.y + p.height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_counts_as_open_only_inside_a_popup_window() {
        let popups = [Bounds::new(370, 79, 295, 900)];
        assert!(inside_any(&popups, Bounds::new(372, 82, 291, 25)));
        // The Image menu's items keep their last place after it closed: no popup holds them.
        assert!(!inside_any(&[], Bounds::new(372, 82, 291, 25)));
        assert!(!inside_any(&popups, Bounds::new(i32::MIN, i32::MIN, 1, 1)));
        assert!(!inside_any(&popups, Bounds::new(665, 123, 128, 25)));
    }
}
