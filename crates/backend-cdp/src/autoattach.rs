//! New pages are attached as the browser creates them (`Target.setAutoAttach` on the browser,
//! pages only), held before their first script until `Page.enable` is sent on their session
//! (the browser reads commands in order), then let go.
//!
//! Why: a page's renderer that waits in a JavaScript dialog answers no command, `Page.enable`
//! included, and a dialog that opened before any session enabled the Page domain is never
//! reported. A popup that alerts as it loads then made every listing wait out its deadline
//! (measured: 30 s) and its dialog could not be seen. Held at start, a page cannot open a
//! dialog before `dialog_state.rs` listens. Attaching on demand (`Browser::page`) stays for pages
//! that existed before; the first session of a page is the one kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::broadcast::error::RecvError;
use uidriver_core::Deadline;

use crate::client::Client;
use crate::dialog_state::{Dialogs, Peers};
use crate::error::CdpResult;
use crate::page::Page;
use crate::protocol::{AttachedToTarget, RunIfWaitingForDebugger, SetAutoAttach, TargetFilter};

/// The page sessions of a browser by target id (shared with `Browser`).
pub(crate) type Pages = Arc<Mutex<HashMap<String, Arc<Page>>>>;

/// How long a held page may take to turn its Page domain on before it is let go anyway.
const ENABLE_WAIT: Duration = Duration::from_secs(10);

/// Starts attaching new pages of the browser into `pages` (their dialogs told to `peers`). The listener is subscribed before
/// the command, so no page created meanwhile is missed.
pub(crate) async fn start(
    client: &Arc<Client>,
    pages: &Pages,
    peers: &Arc<Peers>,
    deadline: Deadline,
) -> CdpResult<()> {
    let mut events = client.events();
    let (c, p, peers) = (Arc::downgrade(client), pages.clone(), peers.clone());
    tokio::spawn(async move {
        loop {
            let ev = match events.recv().await {
                Ok(ev) => ev,
                Err(RecvError::Lagged(n)) => {
                    tracing::debug!(n, "auto-attach listener lagged");
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            if ev.session_id.is_some() || ev.method != "Target.attachedToTarget" {
                continue;
            }
            let Some(client) = c.upgrade() else { break };
            let params = ev.params.as_deref().map(RawValue::get).unwrap_or("{}");
            match serde_json::from_str::<AttachedToTarget>(params) {
                Ok(a) => {
                    tokio::spawn(adopt(client, p.clone(), peers.clone(), a));
                }
                Err(e) => tracing::debug!(error = %e, "undecodable attachedToTarget"),
            }
        }
    });
    let cmd = SetAutoAttach {
        auto_attach: true,
        wait_for_debugger_on_start: true,
        flatten: true,
        filter: vec![TargetFilter {
            kind: "page",
            exclude: false,
        }],
    };
    client.send(None, &cmd, deadline).await.map(|_| ())
}

/// Keeps an auto-attached page's session (unless the page has one already), with its dialog
/// listener and Page domain on, then lets the page run.
async fn adopt(client: Arc<Client>, pages: Pages, peers: Arc<Peers>, a: AttachedToTarget) {
    let (tid, session) = (a.target_info.target_id, a.session_id);
    let known = pages.lock().map(|m| m.contains_key(&tid)).unwrap_or(true);
    let page = (a.target_info.kind == "page" && !known).then(|| {
        let dialogs = Dialogs::start(&client, &session, &peers);
        Arc::new(Page::new(client.clone(), &tid, session.clone(), dialogs).with_log())
    });
    let enable = async {
        match &page {
            Some(p) => p.enable(Deadline::after(ENABLE_WAIT)).await,
            None => Ok(()),
        }
    };
    let release = async {
        if a.waiting_for_debugger {
            let d = Deadline::after(ENABLE_WAIT);
            if let Err(e) = client
                .send(Some(&session), &RunIfWaitingForDebugger {}, d)
                .await
            {
                tracing::debug!(error = %e, "a held page could not be let go");
            }
        }
    };
    // `Page.enable` is queued first and the page let go without waiting for its reply: the
    // browser turns the domain on (and so reports dialogs) as it reads the command, in order,
    // but a page whose renderer is still starting (a `target=_blank` tab, opened without its
    // opener in a new process) answers only once it runs: waiting first held it for
    // ENABLE_WAIT (measured: 10 s, the tab blank all along).
    let (enabled, ()) = tokio::join!(enable, release);
    match (page, enabled) {
        (Some(page), Ok(())) => {
            if let Ok(mut m) = pages.lock() {
                m.entry(tid).or_insert(page);
            }
        }
        (Some(_), Err(e)) => {
            tracing::debug!(target = %tid, error = %e, "auto-attached page not enabled")
        }
        (None, _) => {}
    }
}
