//! A browser's pages as roots: one [`RootInfo`] per `page` target, keyed
//! `cdp:<browser-id>:<targetId>`, with the browser's pid so the service can pair a headed page
//! with the X11 window of the same process. Browser UI targets (omnibox popup, extensions'
//! backgrounds, service workers) are not pages and are not listed. A page with a JavaScript
//! dialog open has that dialog listed after it (`<page key>:dialog:<n>`, see `dialog.rs`),
//! holding the focus the page would have.

use std::time::Duration;

use futures_util::future::join_all;
use uidriver_core::{Bounds, Deadline, ResourceKey, RootInfo, RootKind};

use crate::browser::Browser;
use crate::dialog_state::OpenDialog;
use crate::error::CdpResult;
use crate::protocol::{GetWindowForTarget, TargetInfo};

/// The backend name (`RootInfo::backend`).
pub const BACKEND: &str = "cdp";

/// The root key of a page.
pub fn key(browser_id: &str, target_id: &str) -> String {
    format!("cdp:{browser_id}:{target_id}")
}

/// Splits a root key into browser id and target id (a dialog's key gives its page's).
pub fn parse_key(key: &str) -> Option<(&str, &str)> {
    let (bid, rest) = key.strip_prefix("cdp:")?.split_once(':')?;
    Some((bid, rest.split(':').next()?))
}

/// The dialog number of a dialog root's key; None for a page.
pub fn dialog_seq(key: &str) -> Option<u64> {
    let (_, rest) = key.strip_prefix("cdp:")?.split_once(':')?;
    rest.split_once(":dialog:")?.1.parse().ok()
}

/// The root of an open dialog, beside its page's root (same lane, same browser process).
pub(crate) fn dialog_root(page: &RootInfo, d: &OpenDialog) -> RootInfo {
    RootInfo {
        key: format!("{}:dialog:{}", page.key, d.seq),
        kind: RootKind::Dialog,
        title: d.title(),
        modal: true,
        bounds: None,
        stacking: None,
        window_id: None,
        url: Some(d.url.clone()),
        ..page.clone()
    }
}

/// Lists the pages of one browser.
pub async fn list(browser: &Browser, deadline: Deadline) -> CdpResult<Vec<RootInfo>> {
    let pages = browser.pages(deadline).await?;
    let infos = join_all(pages.iter().map(|t| describe(browser, t, deadline))).await;
    let mut roots: Vec<(RootInfo, Option<OpenDialog>)> = infos.into_iter().flatten().collect();
    // With no page holding focus (a headless browser, or focus in another app), the visible
    // tab of the first window stands for "the active one".
    if !roots.iter().any(|r| r.0.focused) {
        if let Some(r) = roots.iter_mut().find(|r| !r.0.hidden) {
            r.0.focused = true;
        }
    }
    let mut out = Vec::with_capacity(roots.len());
    for (mut page, dialog) in roots {
        let dialog = dialog.map(|d| dialog_root(&page, &d));
        // The dialog takes the keyboard from its page.
        page.focused &= dialog.is_none();
        out.push(page);
        out.extend(dialog);
    }
    Ok(out)
}

/// Describes one page (and its open dialog); None when it closed while we looked.
async fn describe(
    browser: &Browser,
    t: &TargetInfo,
    deadline: Deadline,
) -> Option<(RootInfo, Option<OpenDialog>)> {
    let page = match browser.page(&t.target_id, deadline).await {
        Ok(p) => p,
        Err(e) => {
            tracing::debug!(target = %t.target_id, error = %e, "page vanished while listing");
            return None;
        }
    };
    // A busy or hung page must not hold up the listing: give it two seconds, then assume
    // visible and not focused.
    let seen = page
        .eval_value(
            "[document.visibilityState, document.hasFocus()]",
            deadline.cap(Duration::from_secs(2)),
        )
        .await
        .ok();
    let visible = seen
        .as_ref()
        .and_then(|v| v.get(0))
        .and_then(|v| v.as_str())
        .map(|s| s == "visible")
        .unwrap_or(true);
    let has_focus = seen
        .as_ref()
        .and_then(|v| v.get(1))
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let mut bounds = None;
    let mut minimized = false;
    if !browser.headless {
        if let Ok(w) = browser
            .client
            .send(
                None,
                &GetWindowForTarget {
                    target_id: &t.target_id,
                },
                deadline,
            )
            .await
        {
            let b = w.bounds;
            minimized = b.window_state.as_deref() == Some("minimized");
            if let (Some(x), Some(y), Some(wd), Some(h)) = (b.left, b.top, b.width, b.height) {
                bounds = Some(Bounds::new(x, y, wd, h));
            }
        }
    }
    let info = RootInfo {
        key: key(&browser.id, &t.target_id),
        backend: BACKEND.into(),
        kind: RootKind::BrowserPage,
        app: "Chromium".into(),
        pid: browser.pid,
        title: t.title.clone(),
        focused: visible && has_focus && !minimized,
        modal: false,
        bounds,
        resource: ResourceKey::new(format!("cdp:{}", t.target_id.clone())),
        stacking: None,
        has_tree: true,
        hidden: !visible || minimized,
        window_id: None,
        url: Some(t.url.clone()),
    };
    Some((info, page.dialog()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        let k = key("b1", "T9");
        assert_eq!(k, "cdp:b1:T9");
        assert_eq!(parse_key(&k), Some(("b1", "T9")));
        assert_eq!(parse_key("x11:1"), None);
        assert_eq!(dialog_seq(&k), None);
        let d = format!("{k}:dialog:12");
        assert_eq!(parse_key(&d), Some(("b1", "T9")));
        assert_eq!(dialog_seq(&d), Some(12));
    }
}
