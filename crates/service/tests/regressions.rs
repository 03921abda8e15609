//! One test per bug fixed in the service, named for what must stay true, with where it was
//! found. A new fix adds its test here (or, when the bug was a backend's, to the conformance
//! suite or that crate's `tests/regressions.rs`).

use std::sync::Arc;

use serde_json::{json, Value};
use uidriver_core::testing::{app_nodes, MemNode, MemoryBackend};
use uidriver_core::{Bounds, ResourceKey, Role, RootInfo, RootKind, StateFlag, StateSet};
use uidriver_service::{Service, ServiceConfig, ToolResult};

fn service_with(nodes: Vec<MemNode>) -> Service {
    let mem = MemoryBackend::new();
    mem.add_root(
        RootInfo {
            key: "mem:regressions".into(),
            backend: "memory".into(),
            kind: RootKind::Window,
            app: "regressions".into(),
            pid: Some(4100),
            title: "Regressions".into(),
            focused: true,
            modal: false,
            bounds: Some(Bounds::new(0, 0, 300, 200)),
            resource: ResourceKey::new("desktop-pid:4100"),
            stacking: Some(1),
            has_tree: true,
            hidden: false,
            window_id: Some(0x4100),
            url: None,
        },
        app_nodes("Regressions", nodes),
    );
    Service::new(
        vec![Arc::new(mem) as Arc<dyn uidriver_core::Backend>],
        vec![],
        ServiceConfig::default(),
    )
}

async fn call(svc: &Service, tool: &str, args: Value) -> ToolResult {
    svc.call(tool, args).await
}

async fn first_root(svc: &Service) -> String {
    let r = call(svc, "find_roots", json!({})).await;
    r.structured["roots"][0]["ref"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Stop 19: a password's characters reached the outline whenever a backend reported them (only
/// Linux refused to read them). The service redacts every secret after every look.
#[tokio::test]
async fn a_password_a_backend_reports_is_redacted_by_the_service() {
    let mut secret = MemNode::new(Role::PasswordText, "PIN");
    secret.value = Some("4711".into());
    secret.states = StateSet::EMPTY.with(StateFlag::Password);
    let svc = service_with(vec![secret]);
    let root = first_root(&svc).await;
    let r = call(
        &svc,
        "observe_ui",
        json!({ "root": root, "mode": "semantic" }),
    )
    .await;
    assert!(!r.is_error, "{}", r.text);
    assert!(!r.text.contains("4711"), "{}", r.text);
    assert!(
        !r.structured.to_string().contains("4711"),
        "{}",
        r.structured
    );
    assert!(r.text.contains("••••"), "{}", r.text);
}

/// Stop 19 (conformance suite, Linux and CDP): a wait_for whose deadline ran out answered the
/// raw error of the call in flight, without the last state. It names the condition and the
/// last look.
#[tokio::test]
async fn a_wait_that_runs_out_names_the_condition_and_its_last_state() {
    let svc = service_with(vec![MemNode::new(Role::Label, "Ready: no")]);
    let root = first_root(&svc).await;
    let r = call(
        &svc,
        "wait_for",
        json!({ "root": root, "text": "Ready: yes", "timeoutMs": 300 }),
    )
    .await;
    assert_eq!(r.structured["error"]["code"], "timeout", "{}", r.text);
    assert!(r.text.contains("Ready: yes"), "{}", r.text);
    assert!(
        r.structured["error"]["details"]["lastStateId"].is_string(),
        "{}",
        r.structured
    );
}
