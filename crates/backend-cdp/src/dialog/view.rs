//! An open dialog as uidriver shows it: a snapshot (the dialog, its message, a prompt's text
//! field, its buttons) whose node handles name the dialog's number and the part
//! (`cdp-dialog:<n>:ok`), so a ref of a dialog that closed is stale. Its root beside its page
//! is `roots.rs`'s (`dialog_root`), with the other root keys.

use uidriver_core::{
    CapSet, Capability, Error, ErrorCode, Evidence, Node, Result, Role, Snapshot, StateFlag,
    StateSet,
};

use crate::dialog_kind::Kind;
use crate::dialog_state::OpenDialog;
use crate::page::Page;

/// Handles of dialog nodes start with this (page elements' start with `cdp:`).
const HANDLE: &str = "cdp-dialog:";

/// What a dialog node stands for (the last part of its handle).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Dialog,
    Message,
    Field,
    Accept,
    Dismiss,
}

impl Part {
    const ALL: [(Part, &'static str); 5] = [
        (Part::Dialog, "dialog"),
        (Part::Message, "message"),
        (Part::Field, "field"),
        (Part::Accept, "ok"),
        (Part::Dismiss, "cancel"),
    ];
}

fn handle(seq: u64, part: Part) -> String {
    let name = Part::ALL
        .iter()
        .find(|(p, _)| *p == part)
        .map_or("dialog", |(_, n)| n);
    format!("{HANDLE}{seq}:{name}")
}

/// Whether a node handle is a dialog's.
pub(crate) fn is_handle(h: &str) -> bool {
    h.starts_with(HANDLE)
}

pub(super) fn parse_handle(h: &str) -> Option<(u64, Part)> {
    let (seq, name) = h.strip_prefix(HANDLE)?.split_once(':')?;
    let part = Part::ALL.iter().find(|(_, n)| *n == name)?.0;
    Some((seq.parse().ok()?, part))
}

fn node(role: Role, native: &str, name: &str, handle: String, states: &[StateFlag]) -> Node {
    Node {
        role,
        native_role: native.into(),
        name: Evidence::from_text(name),
        states: Evidence::Known(states.iter().copied().collect::<StateSet>()),
        handle,
        ..Node::default()
    }
}

/// The dialog's nodes, appended under `parent`.
fn append(nodes: &mut Vec<Node>, parent: Option<usize>, d: &OpenDialog) {
    let caps = |c: &[Capability]| c.iter().copied().collect::<CapSet>();
    let mut add = |mut n: Node, under: Option<usize>| {
        let i = nodes.len();
        n.parent = under;
        if let Some(p) = under {
            nodes[p].children.push(i);
        }
        nodes.push(n);
        i
    };
    let title = d.title();
    let native = format!("javascript-dialog:{}", d.kind.as_str());
    let me = add(
        node(
            Role::Dialog,
            &native,
            &title,
            handle(d.seq, Part::Dialog),
            &[StateFlag::Modal, StateFlag::Active],
        ),
        parent,
    );
    let mut msg = node(
        Role::Label,
        "message",
        &title,
        handle(d.seq, Part::Message),
        &[],
    );
    msg.text_len = Some(title.chars().count() as u32);
    msg.caps = caps(&[Capability::ReadText]);
    add(msg, Some(me));
    let (ok, cancel) = d.kind.buttons();
    if d.kind == Kind::Prompt {
        // A prompt's field is labelled by the message, as Chromium's own dialog shows it.
        let mut f = node(
            Role::Text,
            "prompt-field",
            &title,
            handle(d.seq, Part::Field),
            &[StateFlag::Editable, StateFlag::Focused],
        );
        f.value = Evidence::Known(d.text.clone());
        if !d.default_prompt.is_empty() {
            f.description = Evidence::Known(format!("default text: {}", d.default_prompt));
        }
        f.text_len = Some(d.text.chars().count() as u32);
        f.caps = caps(&[
            Capability::SetText,
            Capability::TypeText,
            Capability::ReadText,
        ]);
        add(f, Some(me));
    }
    let focus_ok: &[StateFlag] = if d.kind == Kind::Prompt {
        &[StateFlag::Default]
    } else {
        &[StateFlag::Default, StateFlag::Focused]
    };
    let mut b = node(
        Role::Button,
        "dialog-button",
        ok,
        handle(d.seq, Part::Accept),
        focus_ok,
    );
    b.caps = caps(&[Capability::Press]);
    add(b, Some(me));
    if let Some(cancel) = cancel {
        let mut b = node(
            Role::Button,
            "dialog-button",
            cancel,
            handle(d.seq, Part::Dismiss),
            &[],
        );
        b.caps = caps(&[Capability::Press]);
        add(b, Some(me));
    }
}

/// The snapshot of a dialog root.
pub(crate) fn snapshot(d: &OpenDialog) -> Snapshot {
    let mut nodes = Vec::new();
    append(&mut nodes, None, d);
    Snapshot {
        nodes,
        complete: true,
        ..Snapshot::default()
    }
}

/// The snapshot of a page while a dialog blocks it: the page's document node (its content
/// cannot be read until the dialog closes) holding the dialog.
pub(crate) fn page_snapshot(title: &str, d: &OpenDialog) -> Snapshot {
    let mut nodes = vec![node(
        Role::Document,
        "document",
        title,
        "cdp-dialog-page".into(),
        &[StateFlag::Busy],
    )];
    append(&mut nodes, Some(0), d);
    Snapshot {
        nodes,
        complete: false,
        notes: vec![format!("answer {} dialog to read the page", d.kind.a())],
        ..Snapshot::default()
    }
}

/// The live text of a dialog node (the message, or the prompt's answer so far).
pub(crate) fn text_of(page: &Page, node: &Node) -> Result<String> {
    let (seq, part) = parse_handle(&node.handle).unwrap_or((0, Part::Dialog));
    let d = page
        .dialog()
        .filter(|d| d.seq == seq)
        .ok_or_else(|| gone_ref("the dialog of this element"))?;
    Ok(match part {
        Part::Field => d.text,
        _ => d.title(),
    })
}

pub(super) fn gone_ref(what: &str) -> Error {
    Error::new(ErrorCode::StaleRef, format!("{what} closed"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialog_state::tests::dialog;

    #[test]
    fn handles_round_trip_and_are_not_page_handles() {
        for (p, _) in Part::ALL {
            let h = handle(7, p);
            assert!(is_handle(&h));
            assert_eq!(parse_handle(&h), Some((7, p)));
            assert_eq!(crate::extract::parse_handle(&h), None);
        }
        assert_eq!(parse_handle("cdp-dialog:x:ok"), None);
        assert_eq!(parse_handle("cdp-dialog:7:nope"), None);
    }

    #[test]
    fn snapshots_show_buttons_by_kind_and_the_prompt_field() {
        let alert = snapshot(&dialog(Kind::Alert));
        alert.check().unwrap();
        let names: Vec<_> = alert.nodes.iter().map(|n| n.role).collect();
        assert_eq!(names, [Role::Dialog, Role::Label, Role::Button]);
        let prompt = snapshot(&dialog(Kind::Prompt));
        prompt.check().unwrap();
        assert_eq!(prompt.nodes.len(), 5);
        assert_eq!(prompt.nodes[2].role, Role::Text);
        assert_eq!(
            prompt.nodes[2].value.known().map(String::as_str),
            Some("Ada")
        );
        assert_eq!(prompt.nodes[4].name.text(), Some("Cancel"));
        let page = page_snapshot("Page", &dialog(Kind::Confirm));
        page.check().unwrap();
        assert_eq!(page.nodes[1].role, Role::Dialog);
        assert_eq!(page.nodes.len(), 5);
    }
}
