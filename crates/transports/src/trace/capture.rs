//! What a trace asks the service for around an act, through the same [`ToolCaller`] the call
//! went through: each ref the act names as role, name and ancestor path (`inspect_ui`, then
//! `search_ui` for the path; both cached, never live), the root of its state (`find_roots`),
//! and screenshots (`desktop_screenshot`). Recording what they answered is `session.rs`'s job.

use serde_json::{json, Value};

use uidriver_service::ToolName;

use super::record::{RootSeen, Target};
use crate::caller::ToolCaller;

/// The refs an `act_ui` call names: each step's `ref`, and the expect's `ref` and `scopeRef`,
/// in order of first use.
pub(crate) fn refs_of(args: &Value) -> Vec<String> {
    let mut refs: Vec<String> = Vec::new();
    let mut add = |v: Option<&Value>| {
        if let Some(r) = v.and_then(Value::as_str) {
            if !refs.iter().any(|x| x == r) {
                refs.push(r.to_string());
            }
        }
    };
    for step in uidriver_core::action::steps_of(args).into_iter().flatten() {
        add(step.target.map(|e| json!(e.to_string())).as_ref());
    }
    add(args.pointer("/expect/ref"));
    add(args.pointer("/expect/scopeRef"));
    refs
}

/// Whether a role and state tokens are a password field's (core's one rule, on the wire form).
fn is_secret(role: &str, states: &Value) -> bool {
    let tokens = states
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    uidriver_core::model::is_secret_on_wire(role, tokens)
}

/// One ref of `state` as a [`Target`]; `None` when the service no longer has the state.
pub(crate) async fn target(caller: &dyn ToolCaller, state: &str, r: &str) -> Option<Target> {
    let node = caller
        .call(
            ToolName::InspectUi.as_str(),
            json!({ "stateId": state, "ref": r }),
        )
        .await;
    if node.is_error {
        return None;
    }
    let node = &node.structured["node"];
    let role = node["role"].as_str()?.to_string();
    let name = node["name"].as_str().map(String::from);
    let secret = is_secret(&role, &node["states"]);
    let (path, nth) = path_and_nth(caller, state, r, &role, name.as_deref()).await;
    Some(Target {
        r: r.to_string(),
        role,
        name,
        path,
        nth,
        secret,
    })
}

/// `search_ui`'s arguments for elements of `role` named `name`, showing or not.
pub fn search_args(state: &str, role: &str, name: Option<&str>, offset: usize) -> Value {
    let mut q = json!({
        "stateId": state, "role": role, "includeHidden": true,
        "limit": 200, "offset": offset, "ocrFallback": false,
    });
    if let Some(n) = name.filter(|n| !n.trim().is_empty()) {
        q["text"] = json!(n);
    }
    q
}

/// The matches of `search_args` whose role, name and path are exactly these, in the order
/// the search ranked them (up to 1,000 matches read).
pub async fn same_elements(
    caller: &dyn ToolCaller,
    state: &str,
    role: &str,
    name: Option<&str>,
    path: Option<&str>,
) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 0..5 {
        let r = caller
            .call(
                ToolName::SearchUi.as_str(),
                search_args(state, role, name, page * 200),
            )
            .await;
        let matches = r.structured["matches"].as_array().cloned();
        let Some(matches) = matches.filter(|m| !r.is_error && !m.is_empty()) else {
            break;
        };
        let full = matches.len() == 200;
        out.extend(matches.into_iter().filter(|m| {
            m["role"] == role
                && m["name"].as_str() == name
                && path.is_none_or(|p| m["path"].as_str() == Some(p))
        }));
        if !full {
            break;
        }
    }
    out
}

/// The ancestor path of `r` and its index among the elements sharing role, name and path.
async fn path_and_nth(
    caller: &dyn ToolCaller,
    state: &str,
    r: &str,
    role: &str,
    name: Option<&str>,
) -> (Option<String>, usize) {
    let all = same_elements(caller, state, role, name, None).await;
    let Some(me) = all.iter().find(|m| m["ref"] == r) else {
        return (None, 0);
    };
    let path = me["path"].as_str().map(String::from);
    let nth = all
        .iter()
        .filter(|m| m["path"].as_str() == path.as_deref())
        .position(|m| m["ref"] == r)
        .unwrap_or(0);
    (path, nth)
}

/// The root `r` as `find_roots` lists it now.
pub(crate) async fn root(caller: &dyn ToolCaller, r: &str) -> Option<RootSeen> {
    let listed = caller.call(ToolName::FindRoots.as_str(), json!({})).await;
    roots_in(&listed.structured)
        .into_iter()
        .find(|root| root.r == r)
}

/// The roots a `find_roots` result lists.
pub(crate) fn roots_in(structured: &Value) -> Vec<RootSeen> {
    structured["roots"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|root| {
            Some(RootSeen {
                r: root["ref"].as_str()?.to_string(),
                app: root["app"].as_str().unwrap_or_default().to_string(),
                kind: root["kind"].as_str().unwrap_or_default().to_string(),
                title: root["title"].as_str().unwrap_or_default().to_string(),
            })
        })
        .collect()
}

/// A screenshot of the whole screen (base64 PNG), or why there is none.
pub(crate) async fn screenshot(caller: &dyn ToolCaller) -> Result<String, String> {
    let r = caller
        .call(
            ToolName::DesktopScreenshot.as_str(),
            json!({ "ocr": false }),
        )
        .await;
    if r.is_error {
        let code = r.structured.pointer("/error/code").and_then(Value::as_str);
        return Err(format!(
            "no screenshot: desktop_screenshot answered {}",
            code.unwrap_or("an error")
        ));
    }
    r.images
        .into_iter()
        .next()
        .map(|i| i.data)
        .ok_or_else(|| "no screenshot: desktop_screenshot sent no image".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_come_from_steps_and_the_expect_once_each() {
        let args = json!({
            "stateId": "s1",
            "actions": [
                {"action": "press", "ref": "@e2"},
                {"action": "typeText", "ref": "@e5", "text": "x"},
                {"action": "press", "ref": "@e2"},
                {"action": "keypress", "keys": ["Return"]}
            ],
            "expect": {"text": "done", "scopeRef": "@e9"}
        });
        assert_eq!(refs_of(&args), ["@e2", "@e5", "@e9"]);
        assert!(is_secret("password-text", &json!([])));
        assert!(is_secret("text", &json!(["editable", "password"])));
        assert!(!is_secret("text", &json!(["editable"])));
    }
}
