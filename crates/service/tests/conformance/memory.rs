//! The memory backend's fixture: core's deterministic in-memory backend (feature `testing`)
//! with one app, "Conformance", built from the same controls as the GTK app and the page. The
//! memory backend's `act` gives the controls their behaviour (Increment bumps "Count: N",
//! setText and check change the node).

use std::sync::{Arc, Mutex};

use uidriver_core::testing::{app_nodes, MemNode, MemoryBackend};
use uidriver_core::{Bounds, ResourceKey, Role, RootInfo, RootKind, StateFlag, StateSet};
use uidriver_service::{FileAccess, Service, ServiceConfig};

use crate::fixture::{self, Fixture};

/// The memory backend.
pub struct Memory;

static SERIAL: Mutex<()> = Mutex::new(());

const PID: u32 = 4242;

impl fixture::Backend for Memory {
    fn serial() -> &'static Mutex<()> {
        &SERIAL
    }

    async fn start() -> Fixture {
        let mem = MemoryBackend::new();
        mem.add_root(root_info(), nodes());
        let svc = Service::new(
            vec![Arc::new(mem) as Arc<dyn uidriver_core::Backend>],
            vec![],
            ServiceConfig::default().with_files(FileAccess::unrestricted("a test of other rules")),
        );
        Fixture::new(svc, None).await
    }
}

fn root_info() -> RootInfo {
    RootInfo {
        key: "mem:conformance".into(),
        backend: "memory".into(),
        kind: RootKind::Window,
        app: "conformance".into(),
        pid: Some(PID),
        title: "Conformance".into(),
        focused: true,
        modal: false,
        bounds: Some(Bounds::new(0, 0, 360, 220)),
        resource: ResourceKey::new(format!("desktop-pid:{}", PID)),
        stacking: Some(1),
        has_tree: true,
        hidden: false,
        window_id: Some(u64::from(PID) * 16),
        url: None,
    }
}

fn nodes() -> Vec<MemNode> {
    let mut note = MemNode::new(Role::Text, "Note");
    note.value = Some(String::new());
    note.states = StateSet::EMPTY
        .with(StateFlag::Editable)
        .with(StateFlag::Focusable);
    let mut secret = MemNode::new(Role::PasswordText, "Secret");
    secret.value = Some("hunter2".into());
    secret.states = StateSet::EMPTY
        .with(StateFlag::Editable)
        .with(StateFlag::Focusable)
        .with(StateFlag::Password);
    app_nodes(
        "Conformance",
        vec![
            MemNode::new(Role::Button, "Increment"),
            MemNode::new(Role::Label, "Count: 0"),
            note,
            MemNode::new(Role::CheckBox, "Agree"),
            secret,
        ],
    )
}
