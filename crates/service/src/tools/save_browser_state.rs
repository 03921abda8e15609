//! `save_browser_state`: the cookies of a page's browser and the local and session storage of
//! the page's origins written to a JSON file, which `launch_browser {storageState}` loads into
//! a new browser (the backend reads and loads: `BrowserControl::storage_state`). The file holds
//! session cookies, so it is created readable by its owner only, and, as with `save_pdf`, an
//! existing file is replaced only when asked.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use uidriver_core::outline::quote;
use uidriver_core::{Deadline, Error};

use crate::file_out::{check_path, write, PageFile};
use crate::{Service, ToolResult};

/// Arguments of `save_browser_state`: the page and the file.
pub type Args = PageFile;

/// The structured result of `save_browser_state`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The file written.
    pub path: String,
    /// Its size.
    pub bytes: usize,
    /// Cookies saved.
    pub cookies: usize,
    /// Origins whose storage was saved.
    pub origins: Vec<String>,
}

pub(crate) async fn run(svc: &Service, a: Args) -> Result<ToolResult, Error> {
    let path = check_path(&a.path, a.overwrite)?;
    let (r, info) = svc.page_root(Some(a.root), None)?;
    let bc = svc.browser()?;
    let deadline = Deadline::after(Duration::from_secs(15));
    // Reading storage changes nothing in the page: the lane orders it, the epoch stays.
    let guard = svc.lanes.enter(&info.resource).await;
    let state = bc.storage_state(&info, deadline).await;
    drop(guard);
    let state = state?;
    let bytes = serde_json::to_vec_pretty(&state)
        .map_err(|e| Error::internal(format!("encoding the state: {e}")))?;
    write(&path, &bytes, a.overwrite, 0o600)?;
    // A replaced file keeps its mode on open: narrow it too.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::internal(format!("path: narrowing the file's mode: {e}")))?;
    }
    let cookies = state["cookies"].as_array().map(Vec::len).unwrap_or(0);
    let origins: Vec<String> = state["origins"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter_map(|o| o["origin"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let shown = quote(&a.path, 200);
    let names: Vec<String> = origins.iter().map(|o| quote(o, 100)).collect();
    Ok(ToolResult::ok(
        format!(
            "saved {cookies} cookies and the storage of {} origins ({}) of {r} to {shown} ({} bytes, owner-only)\n",
            origins.len(),
            names.join(", "),
            bytes.len()
        ),
        &Output {
            path: a.path,
            bytes: bytes.len(),
            cookies,
            origins,
        },
    ))
}
