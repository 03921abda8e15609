//! Whether an accessibility tree tells a model enough about a window, or the pixels must be read
//! too: the service reads the image (OCR, then `fuse.rs`) when [`tree_is_poor`] says so.
//!
//! Thresholds, applied to *showing* nodes (not hidden, no empty box, all ancestors showing):
//! - [`PoorReason::NoContent`]: apart from unnamed containers, the root shows nothing but
//!   canvases and images (a window whose only child is a drawing area, a game, a remote desktop).
//! - [`PoorReason::FewNodes`]: fewer than [`MIN_SHOWING_NODES`] (8) showing nodes, one of them an
//!   unlabeled leaf; a real dialog with a label and two buttons already has about that many, and
//!   a small surface whose every leaf is labeled (a tiny page, a message box) is complete.
//! - [`PoorReason::MostlyUnlabeled`]: more than [`MAX_UNLABELED_LEAF_SHARE`] (70%) of showing leaves
//!   have neither name nor value (icon-only toolbars of apps with broken accessibility, unlabeled
//!   custom widgets). Separators and scroll bars are never labeled and are not counted.
//! - [`PoorReason::CanvasDominates`]: one showing canvas covers at least
//!   [`MIN_CANVAS_SHARE`] (40%) of the root: whatever it shows is only in pixels, however good the
//!   rest of the tree is.

use uidriver_core::{Node, Role, Snapshot};

use crate::fuse::showing_mask;

/// Fewer showing nodes than this make a tree poor.
pub const MIN_SHOWING_NODES: usize = 8;
/// A larger share of unlabeled showing leaves makes a tree poor.
pub const MAX_UNLABELED_LEAF_SHARE: f64 = 0.7;
/// A canvas covering at least this share of the root's area makes a tree poor.
pub const MIN_CANVAS_SHARE: f64 = 0.4;

/// Why a tree is poor.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PoorReason {
    /// The root shows only canvases or images, or nothing at all.
    NoContent,
    /// Too few showing nodes.
    FewNodes,
    /// Most showing leaves have no name or value.
    MostlyUnlabeled,
    /// A canvas covers a large part of the root.
    CanvasDominates,
}

impl PoorReason {
    /// A short phrase for snapshot notes ("tree poor: few nodes").
    pub fn as_str(self) -> &'static str {
        match self {
            PoorReason::NoContent => "no accessible content",
            PoorReason::FewNodes => "few nodes",
            PoorReason::MostlyUnlabeled => "mostly unlabeled",
            PoorReason::CanvasDominates => "canvas covers most of the window",
        }
    }
}

/// The counts behind the verdict, for notes and benchmarks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeQuality {
    /// Showing nodes.
    pub showing: usize,
    /// Showing leaves counted for labels.
    pub leaves: usize,
    /// Of those, leaves without name or value.
    pub unlabeled_leaves: usize,
    /// The first rule that made the tree poor, if any (checked in the module doc's order).
    pub poor: Option<PoorReason>,
}

/// Measures a snapshot against the thresholds in the module doc.
pub fn tree_quality(snapshot: &Snapshot) -> TreeQuality {
    let nodes = &snapshot.nodes;
    if nodes.is_empty() {
        return TreeQuality {
            poor: Some(PoorReason::NoContent),
            ..TreeQuality::default()
        };
    }
    let showing = showing_mask(snapshot);
    let mut q = TreeQuality {
        showing: showing.iter().filter(|s| **s).count(),
        ..TreeQuality::default()
    };
    let mut has_content = false;
    let root_area = nodes[0].bounds.map(|b| b.width as f64 * b.height as f64);
    let mut canvas_dominates = false;
    for (i, n) in nodes.iter().enumerate() {
        if !showing[i] {
            continue;
        }
        if i > 0 && !matches!(n.role, Role::Canvas | Role::Image) && !is_bare_container(n) {
            has_content = true;
        }
        if n.role == Role::Canvas {
            if let (Some(b), Some(ra)) = (n.bounds, root_area) {
                if ra > 0.0 && b.width as f64 * b.height as f64 >= MIN_CANVAS_SHARE * ra {
                    canvas_dominates = true;
                }
            }
        }
        let leaf = !n
            .children
            .iter()
            .any(|&c| showing.get(c).copied().unwrap_or(false));
        if i > 0 && leaf && !matches!(n.role, Role::Separator | Role::ScrollBar) {
            q.leaves += 1;
            if n.name.text().is_none() && n.value.text().is_none() {
                q.unlabeled_leaves += 1;
            }
        }
    }
    q.poor = if !has_content {
        Some(PoorReason::NoContent)
    } else if q.showing < MIN_SHOWING_NODES && q.unlabeled_leaves > 0 {
        Some(PoorReason::FewNodes)
    } else if q.leaves > 0 && q.unlabeled_leaves as f64 > MAX_UNLABELED_LEAF_SHARE * q.leaves as f64
    {
        Some(PoorReason::MostlyUnlabeled)
    } else if canvas_dominates {
        Some(PoorReason::CanvasDominates)
    } else {
        None
    };
    q
}

/// Whether the tree is too poor to work from alone (see the module doc for the thresholds).
pub fn tree_is_poor(snapshot: &Snapshot) -> bool {
    tree_quality(snapshot).poor.is_some()
}

fn is_bare_container(n: &Node) -> bool {
    n.role.is_container() && n.name.text().is_none() && n.value.text().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidriver_core::{Bounds, Evidence, StateFlag, StateSet};

    fn tree(root: Bounds, kids: &[(Role, &str, Bounds)]) -> Snapshot {
        let mut s = Snapshot::default();
        s.nodes.push(Node {
            role: Role::Window,
            name: Evidence::from_text("App"),
            bounds: Some(root),
            ..Node::default()
        });
        for (role, name, b) in kids {
            let i = s.nodes.len();
            s.nodes.push(Node {
                role: *role,
                name: Evidence::from_text(*name),
                bounds: Some(*b),
                parent: Some(0),
                ..Node::default()
            });
            s.nodes[0].children.push(i);
        }
        s.check().unwrap();
        s
    }

    fn b(x: i32) -> Bounds {
        Bounds::new(x, 0, 10, 10)
    }

    #[test]
    fn a_window_with_only_a_drawing_area_is_poor() {
        let s = tree(
            Bounds::new(0, 0, 800, 600),
            &[
                (Role::Pane, "", Bounds::new(0, 0, 800, 600)),
                (Role::Canvas, "", Bounds::new(0, 0, 800, 600)),
            ],
        );
        assert_eq!(tree_quality(&s).poor, Some(PoorReason::NoContent));
        assert!(tree_is_poor(&Snapshot::default()));
    }

    #[test]
    fn few_nodes_and_unlabeled_leaves_are_poor() {
        let few = tree(
            b(0),
            &[(Role::Button, "OK", b(0)), (Role::Button, "", b(10))],
        );
        assert_eq!(tree_quality(&few).poor, Some(PoorReason::FewNodes));
        // A small surface whose every leaf is labeled is complete, not poor.
        let small = tree(
            b(0),
            &[(Role::Button, "OK", b(0)), (Role::Label, "Done", b(10))],
        );
        assert_eq!(tree_quality(&small).poor, None);

        let icons: Vec<(Role, &str, Bounds)> = (0..10)
            .map(|i| (Role::Button, if i < 2 { "Open" } else { "" }, b(i * 10)))
            .collect();
        let s = tree(Bounds::new(0, 0, 200, 10), &icons);
        let q = tree_quality(&s);
        assert_eq!((q.leaves, q.unlabeled_leaves), (10, 8));
        assert_eq!(q.poor, Some(PoorReason::MostlyUnlabeled));
    }

    #[test]
    fn a_labeled_dialog_is_not_poor_and_hidden_nodes_do_not_count() {
        let mut kids: Vec<(Role, &str, Bounds)> = vec![
            (Role::Label, "Save changes?", b(0)),
            (Role::Button, "Save", b(10)),
            (Role::Button, "Discard", b(20)),
            (Role::Button, "Cancel", b(30)),
            (Role::CheckBox, "Remember", b(40)),
            (Role::Separator, "", b(50)),
            (Role::Image, "", b(60)),
            (Role::Text, "name.txt", b(70)),
        ];
        let s = tree(Bounds::new(0, 0, 400, 300), &kids);
        assert_eq!(tree_quality(&s).poor, None);

        // A large canvas beside the controls.
        kids.push((Role::Canvas, "", Bounds::new(0, 100, 400, 200)));
        let s = tree(Bounds::new(0, 0, 400, 300), &kids);
        assert_eq!(tree_quality(&s).poor, Some(PoorReason::CanvasDominates));

        // Hidden nodes are not "showing".
        let mut s = tree(Bounds::new(0, 0, 400, 300), &kids[..8]);
        for n in &mut s.nodes[1..5] {
            n.states = Evidence::Known(StateSet::EMPTY.with(StateFlag::Hidden));
        }
        assert_eq!(tree_quality(&s).showing, 5);
        assert_eq!(tree_quality(&s).poor, Some(PoorReason::FewNodes));
    }
}
