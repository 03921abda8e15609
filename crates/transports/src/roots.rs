//! An MCP session's file roots (see the service's `files.rs` for the rule they feed): the
//! client's own `roots/list` when it declares the roots capability and lists any `file:` root,
//! asked on the first call and again after each `notifications/roots/list_changed`; else the
//! roots the server was started with (a policy's `[files] roots`, or the working directory of
//! `uidriver mcp`). A server started with `--allow-unrestricted-file-access` asks nothing.

use std::time::Duration;

use rmcp::service::{Peer, RoleServer};
use uidriver_service::{file_url_path, FileAccess};

/// How long a client may take to list its roots before the call goes on without them.
const LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// What a session's client says of its roots.
pub(crate) struct SessionRoots {
    /// The server's own roots, for a client that declares none.
    base: FileAccess,
    /// The client's answer, until it says its roots changed.
    known: tokio::sync::Mutex<Option<FileAccess>>,
}

impl SessionRoots {
    pub(crate) fn new(base: FileAccess) -> Self {
        SessionRoots {
            base,
            known: tokio::sync::Mutex::new(None),
        }
    }

    /// The client said its roots changed: the next call asks again.
    pub(crate) async fn changed(&self) {
        *self.known.lock().await = None;
    }

    /// The roots of the next call. A client that declares roots but does not answer (or
    /// answers an error) confines the call to nothing, with the reason: its roots are the
    /// rule it asked for, and guessing wider would fail open.
    #[allow(deprecated)] // roots are deprecated by SEP-2577, with no successor yet
    pub(crate) async fn for_call(&self, peer: &Peer<RoleServer>) -> FileAccess {
        if self.base.unrestricted {
            return self.base.clone();
        }
        let declares = peer
            .peer_info()
            .is_some_and(|i| i.capabilities.roots.is_some());
        if !declares {
            return self.base.clone();
        }
        let mut known = self.known.lock().await;
        if let Some(k) = known.as_ref() {
            return k.clone();
        }
        let asked = tokio::time::timeout(LIST_TIMEOUT, peer.list_roots()).await;
        let listed = match asked {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return unanswered(&format!("roots/list failed: {e}")),
            Err(_) => return unanswered("roots/list was not answered within 5 s"),
        };
        let paths: Vec<_> = listed
            .roots
            .iter()
            .filter_map(|r| file_url_path(&r.uri).flatten())
            .filter(|p| p.is_absolute())
            .collect();
        let access = if paths.is_empty() {
            self.base.clone()
        } else {
            FileAccess::within(paths, "the MCP client's roots")
        };
        tracing::info!(roots = ?access.roots, source = %access.source, "file roots of the session");
        *known = Some(access.clone());
        access
    }
}

fn unanswered(why: &str) -> FileAccess {
    tracing::warn!("{why}: the call's files are confined to nothing");
    FileAccess::within([], format!("the MCP client's roots ({why})"))
}
