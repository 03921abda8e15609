//! `uidriver demo`: a private desktop with sample apps (gtk3-widget-factory, mousepad), then a
//! walk-through of the agent loop on them (find → observe → search → inspect → act → read), or,
//! with `--mcp`, an MCP server on stdio inside that desktop for a real agent.

use serde_json::{json, Value};
use uidriver_service::{Service, ToolName};

use super::sandbox::{start, start_apps};
use super::{exit, say};
use crate::backends::build_service;
use crate::cli::{DemoArgs, ServiceFlags};

const APPS: &[&str] = &["gtk3-widget-factory", "mousepad"];

pub async fn run(a: DemoArgs) -> u8 {
    if a.inside {
        return walk_through().await;
    }
    let mcp = a.mcp;
    tokio::task::spawn_blocking(move || {
        let sb = match start("1280x800", None) {
            Ok(sb) => sb,
            Err(e) => {
                eprintln!("uidriver demo: {e}");
                return exit::UNAVAILABLE;
            }
        };
        eprintln!(
            "uidriver demo: private desktop {} started; launching {}",
            sb.display(),
            APPS.join(", ")
        );
        let apps: Vec<String> = APPS.iter().map(|s| s.to_string()).collect();
        let code = match start_apps(&sb, &apps) {
            Err(e) => {
                eprintln!("uidriver demo: {e}");
                exit::UNAVAILABLE
            }
            Ok(_) => {
                let exe = std::env::current_exe()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| "uidriver".into());
                let argv: Vec<String> = if mcp {
                    vec![exe, "mcp".into(), "--standalone".into()]
                } else {
                    vec![exe, "demo".into(), "--inside".into()]
                };
                match sb.run(&argv) {
                    Ok(s) => s.code().map(|c| c as u8).unwrap_or(exit::TOOL_ERROR),
                    Err(e) => {
                        eprintln!("uidriver demo: {e}");
                        exit::UNAVAILABLE
                    }
                }
            }
        };
        if let Err(e) = sb.stop() {
            eprintln!("uidriver demo: stopping the desktop: {e}");
        }
        code
    })
    .await
    .unwrap_or(exit::UNAVAILABLE)
}

async fn step(svc: &Service, tool: ToolName, args: Value) -> Value {
    say(&format!("\n» {tool} {args}"));
    let r = svc.call(tool.as_str(), args).await;
    let text: String = r.text.lines().take(40).collect::<Vec<_>>().join("\n");
    say(&text);
    if r.text.lines().count() > 40 {
        say("  … (output shortened for the demo)");
    }
    r.structured
}

fn first_ref(v: &Value, list: &str) -> Option<String> {
    v[list][0]["ref"].as_str().map(str::to_string)
}

async fn walk_through() -> u8 {
    let flags = ServiceFlags {
        allow_evaluate: false,
        socket: None,
        policy: None,
        allow_unrestricted_file_access: false,
    };
    let svc = build_service(&flags, None).await;
    if let Some((name, e)) = svc.unavailable().iter().find(|(n, _)| n == "linux") {
        eprintln!("uidriver demo: the {name} backend is unavailable: {e}");
        return exit::UNAVAILABLE;
    }
    say("uidriver demo: the agent loop on two real GTK apps in a private desktop.");
    step(&svc, ToolName::FindRoots, json!({})).await;
    let obs = step(
        &svc,
        ToolName::ObserveUi,
        json!({ "app": "gtk3-widget-factory", "maxLines": 30 }),
    )
    .await;
    let Some(state) = obs["stateId"].as_str().map(str::to_string) else {
        return exit::TOOL_ERROR;
    };
    let found = step(
        &svc,
        ToolName::SearchUi,
        json!({ "stateId": state, "text": "checkbutton", "role": "check-box", "limit": 3 }),
    )
    .await;
    // The second match is an enabled, unchecked check button in gtk3-widget-factory.
    let target = found["matches"]
        .as_array()
        .and_then(|m| {
            m.iter().find(|x| {
                let s = x["states"].as_array().cloned().unwrap_or_default();
                !s.contains(&json!("disabled"))
                    && !s.contains(&json!("checked"))
                    && !s.contains(&json!("mixed"))
            })
        })
        .and_then(|x| x["ref"].as_str())
        .map(str::to_string);
    if let Some(t) = &target {
        step(
            &svc,
            ToolName::InspectUi,
            json!({ "stateId": state, "ref": t }),
        )
        .await;
        step(
            &svc,
            ToolName::ActUi,
            json!({ "stateId": state, "actions": [{ "action": "check", "ref": t }] }),
        )
        .await;
    }
    let obs = step(
        &svc,
        ToolName::ObserveUi,
        json!({ "app": "mousepad", "maxLines": 20 }),
    )
    .await;
    if let Some(state) = obs["stateId"].as_str() {
        let text = step(
            &svc,
            ToolName::SearchUi,
            json!({ "stateId": state, "capability": "type-text", "limit": 1 }),
        )
        .await;
        if let Some(r) = first_ref(&text, "matches") {
            let act = step(&svc, ToolName::ActUi, json!({ "stateId": state, "actions": [{ "action": "typeText", "ref": r, "text": "Hello from uidriver ✓" }] })).await;
            if let Some(next) = act["stateId"].as_str() {
                step(
                    &svc,
                    ToolName::ReadText,
                    json!({ "stateId": next, "ref": r }),
                )
                .await;
            }
        }
    }
    say("\nThat is the loop. `uidriver demo --mcp` serves the same tools to an MCP client in this desktop.");
    svc.shutdown().await;
    exit::OK
}
