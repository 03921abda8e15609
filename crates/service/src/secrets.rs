//! The one rule for secrets, whatever backend read the tree: a password field's text is never
//! shown or read. Its value becomes `••••` when it holds anything (so an agent can tell a
//! filled field from an empty one) and `read_text` refuses it. Backends must not read the
//! characters in the first place (AT-SPI and the page walker report only whether there are
//! any); this is the guarantee above them.

use uidriver_core::{Evidence, Node, Role, Snapshot, StateFlag};

/// What a filled secret shows.
pub(crate) const REDACTED: &str = "••••";

/// Whether `node` holds a secret.
pub(crate) fn is_secret(node: &Node) -> bool {
    node.role == Role::PasswordText || node.has_state(StateFlag::Password)
}

/// Replaces every secret's value by [`REDACTED`] (or nothing when empty).
pub(crate) fn redact(snapshot: &mut Snapshot) {
    for n in snapshot.nodes.iter_mut().filter(|n| is_secret(n)) {
        if let Evidence::Known(v) = &n.value {
            if !v.is_empty() && v != REDACTED {
                n.value = Evidence::Known(REDACTED.to_string());
            }
        }
        n.text_len = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_value_never_survives_a_look() {
        let mut s = Snapshot::default();
        let mut pw = Node {
            role: Role::PasswordText,
            value: Evidence::Known("hunter2".into()),
            text_len: Some(7),
            ..Node::default()
        };
        let plain = Node {
            role: Role::Text,
            value: Evidence::Known("visible".into()),
            ..Node::default()
        };
        pw.parent = None;
        s.nodes = vec![pw, plain];
        redact(&mut s);
        assert_eq!(s.nodes[0].value, Evidence::Known(REDACTED.into()));
        assert_eq!(s.nodes[0].text_len, None);
        assert_eq!(s.nodes[1].value, Evidence::Known("visible".into()));
    }
}
