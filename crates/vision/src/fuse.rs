//! Fusing OCR lines into an accessibility snapshot, so text that exists only as pixels becomes
//! something a model can read, search and click, while text the tree already has is not repeated.
//!
//! Each line goes to the smallest showing node whose box encloses it (a few pixels of slack):
//! - text already known there (the owner's or an overlapping node's name, value, description or
//!   seen text, compared word by word, case- and punctuation-blind) is dropped;
//! - a control or text element that owns unknown text gets it appended to `visual_text`;
//! - a surface that draws its own content (the root, windows, documents, canvases, images,
//!   containers, lists and other collections) gets a new `picture-only` child: name = the text,
//!   bounds = the line's box, capability `click`, handle `ocr:<x>,<y>,<w>,<h>`;
//! - a lone letter anywhere, or two letters on a named control, is an icon OCR read as text and
//!   is ignored.
//!
//! New nodes are inserted as children in reading order and the vector is rebuilt in pre-order,
//! so `Snapshot::check` holds and refs carry over (by handle, else by role and name). Reading the
//! pixels is `ocr.rs`'s job; deciding whether to read them at all is `quality.rs`'s.

use std::collections::HashMap;

use uidriver_core::{
    Bounds, CapSet, Capability, Evidence, Node, OcrText, Role, Snapshot, StateFlag,
};

/// Pixels a line may stick out of a node and still count as inside it: OCR boxes are tight
/// around glyphs, but anti-aliasing and outward rounding of upscaled boxes add 1-2 px.
pub const ENCLOSE_SLACK: i32 = 4;

/// Lines with at least this many words count as known when all but one word are known
/// (OCR misreads a word now and then; a label is not new because of it).
const TOLERATE_ONE_MISS_FROM: usize = 4;

/// Lines with fewer letters and digits than this are ignored: a lone "x" or "o" is an icon
/// (close, radio) that OCR read as a letter.
const MIN_LINE_CHARS: usize = 2;

/// Text this short is not added to a control that already has a name: on the widget factory the
/// only such lines were icons read as letters ("em" on a font button, "o" on Maximize).
const MIN_CAPTION_CHARS: usize = 3;

/// What [`fuse`] did with the lines it was given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FuseReport {
    /// Lines considered.
    pub lines: usize,
    /// Lines whose text the tree already had where they were seen (dropped).
    pub known: usize,
    /// Lines appended to an existing node's `visual_text`.
    pub owned: usize,
    /// Lines added as new `picture-only` nodes.
    pub picture_only: usize,
    /// Lines outside every node's box (window decorations, other windows).
    pub outside: usize,
    /// Lines too short to mean anything there (icons read as letters; ignored).
    pub ignored: usize,
}

/// Adds OCR `lines` (screen pixels) to `snapshot`; see the module doc for the rules.
pub fn fuse(snapshot: &mut Snapshot, lines: &[OcrText]) -> FuseReport {
    let mut report = FuseReport {
        lines: lines.len(),
        ..FuseReport::default()
    };
    if snapshot.nodes.is_empty() {
        report.outside = lines.len();
        return report;
    }
    let showing = showing_mask(snapshot);
    let mut additions: Vec<(usize, Node)> = Vec::new();
    for line in lines {
        let words = normalized_words(&line.text);
        let chars: usize = words.iter().map(|w| w.chars().count()).sum();
        if chars < MIN_LINE_CHARS {
            report.ignored += 1;
            continue;
        }
        let Some(owner) = owner_of(snapshot, &showing, &line.bounds) else {
            report.outside += 1;
            continue;
        };
        if is_known(snapshot, &showing, owner, &line.bounds, &words, &additions) {
            report.known += 1;
            continue;
        }
        if hosts_pictures(owner, &snapshot.nodes[owner]) {
            additions.push((owner, picture_node(line)));
            report.picture_only += 1;
        } else if chars < MIN_CAPTION_CHARS && snapshot.nodes[owner].name.text().is_some() {
            report.ignored += 1;
        } else {
            let node = &mut snapshot.nodes[owner];
            node.visual_text = Some(match node.visual_text.take() {
                Some(v) if !v.is_empty() => format!("{v}\n{}", line.text),
                _ => line.text.clone(),
            });
            report.owned += 1;
        }
    }
    if !additions.is_empty() {
        insert_children(snapshot, additions);
    }
    tracing::debug!(?report, "fused ocr lines");
    report
}

/// `showing[i]`: neither the node nor an ancestor is hidden, and its own box (if any) is not
/// empty. An empty box does not hide descendants: GTK notebook pages report -1x-1 extents while
/// their children have real ones.
pub(crate) fn showing_mask(snapshot: &Snapshot) -> Vec<bool> {
    let mut hidden = vec![false; snapshot.nodes.len()];
    let mut showing = vec![false; snapshot.nodes.len()];
    for (i, n) in snapshot.nodes.iter().enumerate() {
        let parent_hidden = n.parent.is_some_and(|p| p < i && hidden[p]);
        hidden[i] = parent_hidden || n.has_state(StateFlag::Hidden);
        showing[i] = !hidden[i] && n.bounds.is_none_or(|b| b.is_visible());
    }
    showing
}

/// The smallest showing node whose box encloses `b`; later (deeper) nodes win ties. The root
/// owns lines when it has no box at all (some backends leave it unset).
fn owner_of(snapshot: &Snapshot, showing: &[bool], b: &Bounds) -> Option<usize> {
    let mut best: Option<(i64, usize)> = None;
    for (i, n) in snapshot.nodes.iter().enumerate() {
        let Some(nb) = n.bounds else { continue };
        if !showing[i] || !nb.encloses(b, ENCLOSE_SLACK) {
            continue;
        }
        let a = area(&nb);
        if best.is_none_or(|(best_area, _)| a <= best_area) {
            best = Some((a, i));
        }
    }
    match best {
        Some((_, i)) => Some(i),
        None if snapshot.nodes[0].bounds.is_none() => Some(0),
        None => None,
    }
}

/// Whether the tree already says these words where the line was seen: in the owner, or in any
/// showing node (not an ancestor: a window title is not the text inside the window) that shares
/// at least half the line's height. Picture-only nodes added earlier in this call count too, so
/// a line OCR reports twice is added once.
///
/// A word matches a whole known word; words of three or more letters may also match inside a
/// known word, since OCR sometimes runs two words together ("SaveAs"), or contain one with up
/// to two extra characters (an icon read as a letter).
fn is_known(
    snapshot: &Snapshot,
    showing: &[bool],
    owner: usize,
    line: &Bounds,
    words: &[String],
    pending: &[(usize, Node)],
) -> bool {
    let mut known: Vec<String> = Vec::new();
    let mut add = |n: &Node| {
        for t in [
            n.name.text(),
            n.value.text(),
            n.description.text(),
            n.visual_text.as_deref(),
        ]
        .into_iter()
        .flatten()
        {
            known.extend(normalized_words(t));
        }
    };
    add(&snapshot.nodes[owner]);
    let mut ancestors = vec![false; snapshot.nodes.len()];
    let mut cur = snapshot.nodes[owner].parent;
    while let Some(p) = cur.filter(|&p| p < ancestors.len() && !ancestors[p]) {
        ancestors[p] = true;
        cur = snapshot.nodes[p].parent;
    }
    let overlaps = |b: Option<Bounds>| {
        b.and_then(|b| b.intersect(line))
            .is_some_and(|x| x.height * 2 >= line.height)
    };
    for (i, n) in snapshot.nodes.iter().enumerate() {
        if i != owner && showing[i] && !ancestors[i] && overlaps(n.bounds) {
            add(n);
        }
    }
    for (_, n) in pending {
        if overlaps(n.bounds) {
            add(n);
        }
    }
    let joined = known.join(" ");
    let is_known_word = |w: &String| {
        let n = w.chars().count();
        known.contains(w)
            || (n >= 3 && joined.contains(w.as_str()))
            // An icon glued to a word: "Ccimi" for "Cimi".
            || known
                .iter()
                .any(|k| k.chars().count() >= 3 && n <= k.chars().count() + 2 && w.contains(k.as_str()))
    };
    let missing = words.iter().filter(|w| !is_known_word(w)).count();
    missing == 0 || (words.len() >= TOLERATE_ONE_MISS_FROM && missing <= 1)
}

fn area(b: &Bounds) -> i64 {
    b.width.max(0) as i64 * b.height.max(0) as i64
}

/// Lowercase runs of letters and digits: "Save As…" and "save as" compare equal.
fn normalized_words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether unknown text inside this node is content it draws itself (new child nodes) rather
/// than a misread or extra caption of the node (its `visual_text`).
fn hosts_pictures(index: usize, node: &Node) -> bool {
    index == 0
        || node.role.is_container()
        || matches!(
            node.role,
            Role::Application
                | Role::Window
                | Role::Dialog
                | Role::Alert
                | Role::Document
                | Role::Canvas
                | Role::Image
                | Role::List
                | Role::Tree
                | Role::Table
                | Role::TabList
                | Role::TabPanel
                | Role::Menu
                | Role::MenuBar
                | Role::Toolbar
        )
}

fn picture_node(line: &OcrText) -> Node {
    let b = line.bounds;
    Node {
        role: Role::PictureOnly,
        native_role: "ocr-text".to_string(),
        name: Evidence::Known(line.text.clone()),
        caps: CapSet::EMPTY.with(Capability::Click),
        bounds: Some(b),
        handle: format!("ocr:{},{},{},{}", b.x, b.y, b.width, b.height),
        ..Node::default()
    }
}

/// Adds each `(parent, node)` as the parent's last children (in reading order: top to bottom,
/// then left to right) and rebuilds the vector in pre-order with every index renumbered.
///
/// A snapshot that is already inconsistent is left in its order and the nodes are appended at
/// the end instead, which keeps "parents precede children" true without repairing the rest.
pub fn insert_children(snapshot: &mut Snapshot, mut additions: Vec<(usize, Node)>) {
    let n_old = snapshot.nodes.len();
    additions.retain(|(p, _)| *p < n_old);
    additions.sort_by_key(|(p, n)| {
        let b = n.bounds.unwrap_or(Bounds::new(0, 0, 0, 0));
        (*p, b.y, b.x)
    });
    if n_old == 0 || additions.is_empty() {
        return;
    }
    if let Err(why) = snapshot.check() {
        tracing::warn!(%why, "snapshot inconsistent before fusing; appending ocr nodes");
        for (p, mut node) in additions {
            let i = snapshot.nodes.len();
            node.parent = Some(p);
            node.children.clear();
            snapshot.nodes[p].children.push(i);
            snapshot.nodes.push(node);
        }
        return;
    }
    #[derive(Clone, Copy)]
    enum Item {
        Old(usize),
        New(usize),
    }
    let mut extra: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut new_nodes: Vec<Option<Node>> = Vec::with_capacity(additions.len());
    for (k, (p, node)) in additions.into_iter().enumerate() {
        extra.entry(p).or_default().push(k);
        new_nodes.push(Some(node));
    }
    let mut old: Vec<Option<Node>> = std::mem::take(&mut snapshot.nodes)
        .into_iter()
        .map(Some)
        .collect();
    let total = n_old + new_nodes.len();
    let mut out: Vec<Node> = Vec::with_capacity(total);
    // (item, parent's new index); children pushed reversed so they pop in order.
    let mut stack: Vec<(Item, Option<usize>)> = vec![(Item::Old(0), None)];
    while let Some((item, parent)) = stack.pop() {
        let taken = match item {
            Item::Old(i) => old[i].take(),
            Item::New(k) => new_nodes[k].take(),
        };
        let Some(mut node) = taken else { continue };
        let me = out.len();
        let mut kids: Vec<Item> = node.children.iter().map(|&c| Item::Old(c)).collect();
        if let Item::Old(i) = item {
            if let Some(ks) = extra.get(&i) {
                kids.extend(ks.iter().map(|&k| Item::New(k)));
            }
        }
        node.parent = parent;
        node.children.clear();
        if let Some(p) = parent {
            out[p].children.push(me);
        }
        out.push(node);
        for &k in kids.iter().rev() {
            stack.push((k, Some(me)));
        }
    }
    if out.len() != total {
        // Unreachable when check() passed (every node hangs under the root); keep whatever was
        // not visited rather than lose it, attached to the root.
        tracing::warn!(
            visited = out.len(),
            total,
            "nodes unreachable from the root while fusing"
        );
        for node in old.into_iter().chain(new_nodes).flatten() {
            let me = out.len();
            let mut node = node;
            node.parent = Some(0);
            node.children.clear();
            out[0].children.push(me);
            out.push(node);
        }
    }
    snapshot.nodes = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use uidriver_core::StateSet;

    /// Builds a snapshot from (parent, role, name, bounds) in pre-order.
    fn snap(spec: &[(Option<usize>, Role, &str, Bounds)]) -> Snapshot {
        let mut s = Snapshot::default();
        for (i, (parent, role, name, b)) in spec.iter().enumerate() {
            s.nodes.push(Node {
                role: *role,
                name: Evidence::from_text(*name),
                bounds: Some(*b),
                parent: *parent,
                handle: format!("h{i}"),
                states: Evidence::Known(StateSet::EMPTY),
                ..Node::default()
            });
            if let Some(p) = parent {
                s.nodes[*p].children.push(i);
            }
        }
        s.check().unwrap();
        s
    }

    fn line(text: &str, b: Bounds) -> OcrText {
        OcrText {
            text: text.into(),
            bounds: b,
            confidence: 90.0,
        }
    }

    /// window > [toolbar > [button "Save"], canvas, label "Ready"]
    fn app() -> Snapshot {
        snap(&[
            (None, Role::Window, "Paint", Bounds::new(0, 0, 800, 600)),
            (Some(0), Role::Toolbar, "", Bounds::new(0, 0, 800, 40)),
            (Some(1), Role::Button, "Save", Bounds::new(10, 5, 80, 30)),
            (Some(0), Role::Canvas, "", Bounds::new(0, 40, 800, 520)),
            (Some(0), Role::Label, "Ready", Bounds::new(0, 560, 800, 40)),
        ])
    }

    #[test]
    fn known_text_is_not_repeated_and_canvas_text_becomes_picture_nodes() {
        let mut s = app();
        let report = fuse(
            &mut s,
            &[
                line("Save", Bounds::new(30, 12, 40, 16)),
                line("Hello Canvas", Bounds::new(100, 200, 180, 30)),
                line("Layer 2", Bounds::new(100, 100, 80, 20)),
                line("Ready.", Bounds::new(5, 570, 60, 20)),
            ],
        );
        assert_eq!(
            report,
            FuseReport {
                lines: 4,
                known: 2,
                picture_only: 2,
                ..FuseReport::default()
            }
        );
        s.check().unwrap();
        assert_eq!(s.nodes.len(), 7);
        assert_eq!(s.nodes[2].visual_text, None, "button text not duplicated");
        // Pre-order: window, toolbar, button, canvas, (canvas children in reading order), label.
        let roles: Vec<Role> = s.nodes.iter().map(|n| n.role).collect();
        assert_eq!(
            roles,
            [
                Role::Window,
                Role::Toolbar,
                Role::Button,
                Role::Canvas,
                Role::PictureOnly,
                Role::PictureOnly,
                Role::Label
            ]
        );
        assert_eq!(s.nodes[3].children, [4, 5]);
        assert_eq!(s.nodes[4].name.text(), Some("Layer 2"));
        let hello = &s.nodes[5];
        assert_eq!(hello.name.text(), Some("Hello Canvas"));
        assert_eq!(hello.bounds, Some(Bounds::new(100, 200, 180, 30)));
        assert_eq!(hello.parent, Some(3));
        assert!(hello.caps.contains(Capability::Click));
        assert_eq!(hello.handle, "ocr:100,200,180,30");
        assert_eq!(s.nodes[0].children, [1, 3, 6]);
        assert_eq!(s.nodes[6].parent, Some(0));
    }

    #[test]
    fn unknown_text_on_a_control_goes_to_its_visual_text() {
        let mut s = app();
        let r = fuse(
            &mut s,
            &[
                line("Save *", Bounds::new(20, 10, 60, 20)),
                line("Ctrl+S", Bounds::new(20, 20, 60, 12)),
            ],
        );
        assert_eq!((r.known, r.owned), (1, 1));
        assert_eq!(s.nodes[2].visual_text.as_deref(), Some("Ctrl+S"));
        assert_eq!(s.nodes.len(), 5);
    }

    #[test]
    fn text_outside_the_root_and_punctuation_are_not_added() {
        let mut s = app();
        let r = fuse(
            &mut s,
            &[
                line("Title bar", Bounds::new(10, -25, 100, 20)),
                line("— •", Bounds::new(10, 100, 10, 10)),
            ],
        );
        assert_eq!((r.outside, r.ignored, r.picture_only), (1, 1, 0));
        assert_eq!(s.nodes.len(), 5);
    }

    #[test]
    fn text_in_the_bare_window_and_rows_spanning_cells() {
        let mut s = snap(&[
            (None, Role::Window, "Files", Bounds::new(0, 0, 400, 300)),
            (Some(0), Role::Table, "", Bounds::new(0, 0, 400, 200)),
            (Some(1), Role::Row, "", Bounds::new(0, 0, 400, 20)),
            (Some(2), Role::Cell, "Benjamin", Bounds::new(0, 0, 150, 20)),
            (Some(2), Role::Cell, "Company", Bounds::new(150, 0, 150, 20)),
        ]);
        let r = fuse(
            &mut s,
            &[
                // Spans two cells: the row owns it, the cells know the words.
                line("Benjamin Company", Bounds::new(5, 3, 200, 14)),
                // Below the table: only the window encloses it.
                line("3 items", Bounds::new(10, 250, 60, 14)),
            ],
        );
        assert_eq!((r.known, r.picture_only), (1, 1));
        s.check().unwrap();
        let last = s.nodes.last().unwrap();
        assert_eq!((last.role, last.parent), (Role::PictureOnly, Some(0)));
        assert_eq!(s.nodes[0].children, [1, 5]);
    }

    #[test]
    fn icons_read_as_letters_are_ignored() {
        let mut s = app();
        let r = fuse(
            &mut s,
            &[
                line("x", Bounds::new(100, 100, 10, 10)),
                line("em", Bounds::new(20, 10, 20, 12)),
                line("Ssave", Bounds::new(20, 10, 60, 20)),
                line("OK", Bounds::new(300, 300, 20, 12)),
            ],
        );
        assert_eq!((r.ignored, r.known, r.picture_only), (2, 1, 1), "{r:?}");
        assert_eq!(s.nodes[2].visual_text, None);
    }

    #[test]
    fn fusing_twice_adds_nothing_new() {
        let mut s = app();
        let lines = [line("Hello Canvas", Bounds::new(100, 200, 180, 30))];
        fuse(&mut s, &lines);
        let again = fuse(&mut s, &lines);
        assert_eq!(again.known, 1);
        assert_eq!(s.nodes.len(), 6);
        // Repeated within one call, too.
        let mut s = app();
        let r = fuse(&mut s, &[lines[0].clone(), lines[0].clone()]);
        assert_eq!((r.picture_only, r.known), (1, 1));
    }

    #[test]
    fn hidden_nodes_do_not_own_text() {
        let mut s = app();
        s.nodes[3].states = Evidence::Known(StateSet::EMPTY.with(StateFlag::Hidden));
        let r = fuse(&mut s, &[line("Hello", Bounds::new(100, 200, 50, 20))]);
        assert_eq!(r.picture_only, 1);
        s.check().unwrap();
        // Went to the window, not the hidden canvas.
        let pic = s
            .nodes
            .iter()
            .position(|n| n.role == Role::PictureOnly)
            .unwrap();
        assert_eq!(s.nodes[pic].parent, Some(0));
    }

    #[test]
    fn an_empty_box_does_not_hide_descendants() {
        // GTK notebook: window > tab list > page (-1x-1) > text view that shows the text.
        let mut s = snap(&[
            (None, Role::Window, "Editor", Bounds::new(0, 0, 500, 400)),
            (Some(0), Role::TabList, "", Bounds::new(0, 50, 500, 350)),
            (Some(1), Role::Tab, "", Bounds::new(-1, -1, -1, -1)),
            (Some(2), Role::Text, "", Bounds::new(2, 52, 496, 346)),
        ]);
        s.nodes[3].value = Evidence::Known("Quarterly report draft".into());
        let r = fuse(
            &mut s,
            &[line("Quarterly report draft", Bounds::new(4, 60, 200, 18))],
        );
        assert_eq!(r.known, 1, "{r:?}");
    }

    #[test]
    fn insert_children_renumbers_deep_trees_in_pre_order() {
        // root > a > (a1 > a11), b ; add under a1, root and b.
        let mut s = snap(&[
            (None, Role::Window, "r", Bounds::new(0, 0, 100, 100)),
            (Some(0), Role::Pane, "a", Bounds::new(0, 0, 50, 50)),
            (Some(1), Role::Pane, "a1", Bounds::new(0, 0, 40, 40)),
            (Some(2), Role::Label, "a11", Bounds::new(0, 0, 10, 10)),
            (Some(0), Role::Pane, "b", Bounds::new(50, 50, 50, 50)),
        ]);
        let mk = |name: &str, y: i32| Node {
            name: Evidence::from_text(name),
            bounds: Some(Bounds::new(0, y, 5, 5)),
            ..Node::default()
        };
        insert_children(
            &mut s,
            vec![
                (4, mk("b-new", 0)),
                (0, mk("r-new2", 9)),
                (2, mk("a1-new", 0)),
                (0, mk("r-new1", 1)),
            ],
        );
        s.check().unwrap();
        let names: Vec<&str> = s
            .nodes
            .iter()
            .map(|n| n.name.text().unwrap_or(""))
            .collect();
        assert_eq!(
            names,
            ["r", "a", "a1", "a11", "a1-new", "b", "b-new", "r-new1", "r-new2"]
        );
        assert_eq!(s.nodes[0].children, [1, 5, 7, 8]);
        assert_eq!(s.nodes[2].children, [3, 4]);
    }
}
