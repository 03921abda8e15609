//! Ranked search inside one stored state: exact > prefix > word prefix > substring > fuzzy, on
//! name first, then value, description and visual (OCR) text; role and capability filters.
//! Pure and cached: it never touches a live application.

use crate::model::Node;
use crate::state::State;
use crate::vocab::{Capability, Role, StateFlag};

/// What to look for. At least one field must be set.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// Text to match (case-insensitive).
    pub text: Option<String>,
    /// Roles accepted (any of them).
    pub roles: Vec<Role>,
    /// A capability the node must have.
    pub capability: Option<Capability>,
    /// Only inside this node's subtree.
    pub scope: Option<usize>,
    /// Include nodes that are not showing.
    pub include_hidden: bool,
}

/// One match.
#[derive(Clone, Debug)]
pub struct Match {
    /// Node index.
    pub index: usize,
    /// Score (higher is better).
    pub score: u32,
    /// Which field matched: name, value, description, visual, role.
    pub field: &'static str,
}

/// How well `hay` matches the lowercase needle `q`: 0 when not at all.
pub fn text_score(hay: &str, q: &str) -> u32 {
    if q.is_empty() {
        return 0;
    }
    let h = hay.to_lowercase();
    let h = h.trim();
    if h == q {
        return 100;
    }
    if h.starts_with(q) {
        return 80;
    }
    if h.split(|c: char| !c.is_alphanumeric())
        .any(|w| !w.is_empty() && w.starts_with(q))
    {
        return 70;
    }
    if h.contains(q) {
        return 60;
    }
    if is_subsequence(q, h) && q.chars().count() >= 3 {
        // Fuzzy: penalize by how spread out the match is.
        let spread = h.chars().count().saturating_sub(q.chars().count()) as u32;
        return 30u32.saturating_sub(spread.min(25));
    }
    0
}

fn is_subsequence(needle: &str, hay: &str) -> bool {
    let mut it = hay.chars();
    needle
        .chars()
        .filter(|c| !c.is_whitespace())
        .all(|c| it.any(|h| h == c))
}

fn node_score(node: &Node, q: &str) -> Option<(u32, &'static str)> {
    let fields: [(Option<&str>, &'static str, u32); 4] = [
        (node.name.text(), "name", 0),
        (node.value.text(), "value", 5),
        (node.visual_text.as_deref(), "visual", 8),
        (node.description.text(), "description", 10),
    ];
    fields
        .iter()
        .filter_map(|(t, f, penalty)| t.map(|t| (text_score(t, q).saturating_sub(*penalty), *f)))
        .filter(|(s, _)| *s > 0)
        .max_by_key(|(s, _)| *s)
}

/// Capabilities of a control (what a label that names one does not have).
const OPERATED: [Capability; 7] = [
    Capability::Press,
    Capability::Toggle,
    Capability::Select,
    Capability::SetText,
    Capability::TypeText,
    Capability::SetValue,
    Capability::Expand,
];

/// Runs a query; matches sorted best first, then in document order.
pub fn search(state: &State, q: &Query) -> Vec<Match> {
    let needle = q.text.as_ref().map(|t| t.trim().to_lowercase());
    let candidates: Vec<usize> = match q.scope {
        Some(s) => state.subtree(s),
        None => (0..state.len()).collect(),
    };
    let mut out = Vec::new();
    for i in candidates {
        let node = &state.snapshot.nodes[i];
        if !q.include_hidden && node.has_state(StateFlag::Hidden) {
            continue;
        }
        if !q.roles.is_empty() && !q.roles.contains(&node.role) {
            continue;
        }
        if let Some(c) = q.capability {
            if !node.caps.contains(c) {
                continue;
            }
        }
        let (mut score, field) = match &needle {
            Some(n) if !n.is_empty() => match node_score(node, n) {
                Some(s) => s,
                None => continue,
            },
            _ => (50, "role"),
        };
        if !node.has_state(StateFlag::Disabled) {
            score += 2;
        }
        // A control ranks above the label that names it (same text, same score otherwise):
        // the agent acts on the control.
        if OPERATED.iter().any(|c| node.caps.contains(*c)) {
            score += 1;
        }
        out.push(Match {
            index: i,
            score,
            field,
        });
    }
    out.sort_by(|a, b| b.score.cmp(&a.score).then(a.index.cmp(&b.index)));
    out
}

/// A short path of the named ancestors below the state's root element, e.g. `page-tab
/// "General" › panel "Fonts"`: the root element (the window every match is in) is left out, as
/// is an ancestor repeating its parent's name (LibreOffice's frame pane under its window).
pub fn path_of(state: &State, i: usize) -> String {
    let nodes = &state.snapshot.nodes;
    let mut parts: Vec<String> = state
        .ancestors(i)
        .into_iter()
        .take_while(|&a| a != 0)
        .filter_map(|a| {
            let n = &nodes[a];
            let name = n.name.text()?;
            let repeats = n.parent.and_then(|p| nodes[p].name.text()) == Some(name);
            (!repeats).then(|| format!("{} {}", n.role, crate::outline::quote(name, 30)))
        })
        .take(4)
        .collect();
    parts.reverse();
    parts.join(" › ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_exact_over_prefix_over_substring_over_fuzzy() {
        let q = "save";
        let s = |h| text_score(h, q);
        assert!(s("Save") > s("Save As…"));
        assert!(s("Save As…") > s("Auto save"));
        assert!(s("Auto save") > s("Unsaved"));
        assert!(s("Unsaved") > s("sa_ve_x"));
        assert!(s("sa_ve_x") > 0);
        assert_eq!(s("Open"), 0);
    }

    /// gedit's "Find" label and the field it names; a page's `label "Plan"` and its select: the
    /// control comes first, so `select` on the top match acts on the control.
    #[test]
    fn a_control_ranks_above_the_label_that_names_it() {
        use crate::model::Evidence;
        use crate::vocab::CapSet;
        let node = |role, caps: CapSet, parent| Node {
            role,
            name: Evidence::from_text("Plan"),
            caps,
            parent,
            ..Node::default()
        };
        let mut root = node(Role::Window, CapSet::default(), None);
        root.name = Evidence::from_text("Settings");
        root.children = vec![1, 2];
        let nodes = vec![
            root,
            node(Role::Label, CapSet::default(), Some(0)),
            node(
                Role::ComboBox,
                CapSet::default().with(Capability::Select),
                Some(0),
            ),
        ];
        let state = crate::store::tests::state_of(nodes);
        let found = search(
            &state,
            &Query {
                text: Some("plan".into()),
                ..Query::default()
            },
        );
        assert_eq!(found[0].index, 2, "{found:?}");
        assert_eq!(found[1].index, 1);
    }
}
