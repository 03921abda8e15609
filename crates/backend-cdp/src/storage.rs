//! A browser's state saved and loaded again: its cookies (`Storage.getCookies` /
//! `setCookies`, browser-level) and the local and session storage of a page's origins, as one
//! JSON document (`{cookies: [...], origins: [{origin, localStorage, sessionStorage}]}`, the
//! shape Playwright's `storageState` has, session storage added). Writing the file is the
//! service's job.
//!
//! Web storage can only be written by a document of its origin. Loading opens each saved
//! origin in the first page with every request answered by an empty document
//! (`Fetch.enable` + `Fetch.fulfillRequest`: no request reaches the network), writes the items
//! there (`js/storage_write.js`), then leaves the page blank. Session storage belongs to a
//! tab, so it is restored in that first page only.

use std::sync::Arc;

use serde_json::{json, Value};
use uidriver_core::{Deadline, Navigation};

use crate::browser::Browser;
use crate::error::{CdpError, CdpResult};
use crate::page::Page;
use crate::protocol::{
    CreateTarget, FetchDisable, FetchEnable, FulfillRequest, GetCookies, SetCookies,
};

const READ_JS: &str = include_str!("js/storage_read.js");
const WRITE_JS: &str = include_str!("js/storage_write.js");
/// `<!doctype html><title></title>`, base64: the document every paused request gets.
const BLANK: &str = "PCFkb2N0eXBlIGh0bWw+PHRpdGxlPjwvdGl0bGU+";
/// The fields of a saved cookie that `Network.CookieParam` takes (the others, such as
/// `size` and `session`, are facts about the cookie, not settings).
const COOKIE_FIELDS: &[&str] = &[
    "name",
    "value",
    "domain",
    "path",
    "secure",
    "httpOnly",
    "sameSite",
    "priority",
    "sourceScheme",
    "sourcePort",
    "partitionKey",
];

/// The cookies of the browser and the storage of `page`'s origins.
pub(crate) async fn save(browser: &Browser, page: &Page, deadline: Deadline) -> CdpResult<Value> {
    let cookies = browser.client.send(None, &GetCookies {}, deadline).await?;
    let origins = page.eval_value(&format!("({READ_JS})()"), deadline).await?;
    Ok(json!({ "cookies": cookies.cookies, "origins": origins }))
}

/// What a state file must look like before anything is loaded: an object with a `cookies`
/// array and an `origins` array (either may be missing).
pub fn check(state: &Value) -> Result<(), String> {
    let o = state.as_object().ok_or("expected a JSON object")?;
    for key in ["cookies", "origins"] {
        if o.get(key).is_some_and(|v| !v.is_array()) {
            return Err(format!("{key} is not an array"));
        }
    }
    for (i, origin) in arr(state, "origins").iter().enumerate() {
        let url = origin["origin"].as_str().unwrap_or_default();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!("origins[{i}].origin is not an http(s) origin"));
        }
    }
    Ok(())
}

fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// Loads a saved state into a browser that has shown no page yet.
pub(crate) async fn load(browser: &Browser, state: &Value, deadline: Deadline) -> CdpResult<()> {
    check(state).map_err(|e| CdpError::Launch(format!("storageState: {e}")))?;
    let cookies: Vec<Value> = arr(state, "cookies").iter().map(cookie_param).collect();
    if !cookies.is_empty() {
        browser
            .client
            .send(None, &SetCookies { cookies }, deadline)
            .await?;
    }
    let origins: Vec<&Value> = arr(state, "origins")
        .iter()
        .filter(|o| !arr(o, "localStorage").is_empty() || !arr(o, "sessionStorage").is_empty())
        .collect();
    if origins.is_empty() {
        return Ok(());
    }
    let target = match browser.pages(deadline).await?.first() {
        Some(t) => t.target_id.clone(),
        None => {
            let blank = CreateTarget { url: "about:blank" };
            browser.client.send(None, &blank, deadline).await?.target_id
        }
    };
    let page = browser.page(&target, deadline).await?;
    let answering = answer_paused(&page);
    let fetch = FetchEnable {
        patterns: vec![json!({ "urlPattern": "*" })],
    };
    let loaded = async {
        page.send(&fetch, deadline).await?;
        for o in origins {
            let url = format!("{}/", o["origin"].as_str().unwrap_or_default());
            page.navigate(&Navigation::Url(url), deadline).await?;
            page.eval_value(&format!("({WRITE_JS})({o})"), deadline)
                .await?;
        }
        Ok::<_, CdpError>(())
    }
    .await;
    let _ = page.send(&FetchDisable {}, deadline).await;
    answering.abort();
    loaded?;
    page.navigate(&Navigation::Url("about:blank".into()), deadline)
        .await
}

/// A saved cookie as `Network.CookieParam`: its settings, and its expiry unless it is a
/// session cookie.
fn cookie_param(c: &Value) -> Value {
    let mut p = serde_json::Map::new();
    for f in COOKIE_FIELDS {
        if let Some(v) = c.get(*f) {
            p.insert((*f).to_string(), v.clone());
        }
    }
    let session = c["session"].as_bool().unwrap_or(false);
    if let Some(exp) = c["expires"].as_f64().filter(|e| *e > 0.0 && !session) {
        p.insert("expires".into(), json!(exp));
    }
    Value::Object(p)
}

/// Answers every request the page pauses with [`BLANK`] until aborted.
fn answer_paused(page: &Arc<Page>) -> tokio::task::JoinHandle<()> {
    let mut events = page.client().events();
    let page = page.clone();
    tokio::spawn(async move {
        while let Ok(ev) = events.recv().await {
            if ev.method != "Fetch.requestPaused"
                || ev.session_id.as_deref() != Some(page.session())
            {
                continue;
            }
            let params: Value = ev
                .params
                .as_deref()
                .and_then(|p| serde_json::from_str(p.get()).ok())
                .unwrap_or_default();
            let Some(id) = params["requestId"].as_str() else {
                continue;
            };
            let answer = FulfillRequest {
                request_id: id.to_string(),
                response_code: 200,
                body: BLANK.to_string(),
            };
            let d = Deadline::after(std::time::Duration::from_secs(5));
            if let Err(e) = page.send(&answer, d).await {
                tracing::debug!(error = %e, "a paused request was not answered");
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_files_are_checked_and_cookies_become_params() {
        assert!(check(&json!({"cookies": [], "origins": [{"origin": "http://a:1"}]})).is_ok());
        assert!(check(&json!({})).is_ok());
        assert!(check(&json!([])).is_err());
        assert!(check(&json!({"cookies": {}})).is_err());
        assert!(check(&json!({"origins": [{"origin": "file://"}]})).is_err());
        let p = cookie_param(
            &json!({"name": "sid", "value": "1", "domain": "a", "path": "/",
            "size": 4, "session": true, "expires": -1, "httpOnly": true}),
        );
        assert_eq!(
            p,
            json!({"name": "sid", "value": "1", "domain": "a", "path": "/", "httpOnly": true})
        );
        let p = cookie_param(&json!({"name": "k", "value": "v", "expires": 2e9, "session": false}));
        assert_eq!(p["expires"], json!(2e9));
    }
}
