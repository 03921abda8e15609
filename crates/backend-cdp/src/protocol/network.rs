//! The network of a page and a browser: `Network.enable` (a page's requests as events, for
//! `log.rs`), cookies read and written through `Storage`, and requests answered without the
//! network through `Fetch` (`storage.rs` loads web storage that way).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Empty;

/// `Network.enable`: requests of the page are reported as events.
#[derive(Serialize)]
pub struct NetworkEnable {}
command!(NetworkEnable, "Network.enable", Empty);

/// `Storage.getCookies` (browser-level: every cookie of the default context).
#[derive(Serialize)]
pub struct GetCookies {}

/// Reply of `Storage.getCookies`: cookies as CDP spells them (kept whole for the state file).
#[derive(Debug, Deserialize)]
pub struct Cookies {
    /// The cookies.
    #[serde(default)]
    pub cookies: Vec<Value>,
}
command!(GetCookies, "Storage.getCookies", Cookies);

/// `Storage.setCookies` (browser-level).
#[derive(Serialize)]
pub struct SetCookies {
    /// `Network.CookieParam`s.
    pub cookies: Vec<Value>,
}
command!(SetCookies, "Storage.setCookies", Empty);

/// `Fetch.enable`: requests matching a pattern are paused (`Fetch.requestPaused`).
#[derive(Serialize)]
pub struct FetchEnable {
    /// `{urlPattern}` objects.
    pub patterns: Vec<Value>,
}
command!(FetchEnable, "Fetch.enable", Empty);

/// `Fetch.disable`.
#[derive(Serialize)]
pub struct FetchDisable {}
command!(FetchDisable, "Fetch.disable", Empty);

/// `Fetch.fulfillRequest`: answers a paused request without the network.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FulfillRequest {
    /// The paused request.
    pub request_id: String,
    /// HTTP status.
    pub response_code: u16,
    /// The body, base64.
    pub body: String,
}
command!(FulfillRequest, "Fetch.fulfillRequest", Empty);
