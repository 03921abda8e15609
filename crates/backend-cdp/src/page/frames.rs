//! Cross-origin frames. The walker cannot enter them: the same-origin policy holds in our
//! isolated world too. Each such frame is read as a document of its own, in a world made in
//! that frame: through the page's session when Chromium keeps the frame in the page's process
//! (same site, other origin), or through a session attached to the frame's own target when it
//! runs out of process (another site). The top page remembers, per walked document (by the
//! walker's nonce), which frame page holds it and which element shows it, so refs inside
//! frames resolve to the right world and their boxes map to the top viewport through the
//! chain of owner elements.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use uidriver_core::Deadline;

use super::Page;
use crate::error::{CdpError, CdpResult};
use crate::protocol::{AttachToTarget, CallArgument, DescribeNode, SetDiscoverTargets};

/// How deep frames inside frames are followed.
pub(crate) const MAX_FRAME_DEPTH: usize = 4;

/// Frame documents this many at most are remembered (older ones are forgotten: their refs
/// then resolve as stale).
const MAX_DOCS: usize = 256;

/// The frame registry of one top page.
#[derive(Default)]
pub(crate) struct Frames {
    /// Frame pages by frame id; their sessions and worlds are reused.
    pages: Mutex<HashMap<String, Arc<Page>>>,
    /// Documents read in a frame, by walker nonce.
    docs: Mutex<HashMap<String, FrameDoc>>,
}

/// Where a frame document lives and which element shows it.
#[derive(Clone)]
pub(crate) struct FrameDoc {
    /// The frame's page (its session and world).
    pub page: Arc<Page>,
    /// The owner element (`iframe` or `frame`): its document's nonce and element id.
    pub owner: (String, u64),
}

/// One owner element on the way from a frame document up to the top document.
pub(crate) struct Owner {
    /// The page holding the owner element (`None`: the top page).
    pub page: Option<Arc<Page>>,
    /// The owner's document nonce and element id.
    pub nonce: String,
    pub id: u64,
}

/// The content-box origin of a frame owner element in its own top viewport (same-origin frames
/// between it and that viewport included); with `scroll`, scrolled into view first.
const ORIGIN_JS: &str = include_str!("../js/origin.js");

impl Page {
    /// The frame page holding the document `nonce`; `None` for the top document (or one this
    /// page never read in a frame).
    pub(crate) fn doc_page(&self, nonce: &str) -> Option<Arc<Page>> {
        let docs = self.frames.docs.lock().ok()?;
        docs.get(nonce).map(|d| d.page.clone())
    }

    /// Remembers that the document `nonce` was read in `doc.page`, shown by `doc.owner`.
    pub(crate) fn note_doc(&self, nonce: &str, doc: FrameDoc) {
        if let Ok(mut docs) = self.frames.docs.lock() {
            if docs.len() >= MAX_DOCS && !docs.contains_key(nonce) {
                docs.clear();
            }
            docs.insert(nonce.to_string(), doc);
        }
    }

    /// The owner elements from the document `nonce` up to the top document, innermost first
    /// (empty for the top document).
    pub(crate) fn owners(&self, nonce: &str) -> Vec<Owner> {
        let Ok(docs) = self.frames.docs.lock() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut at = nonce.to_string();
        while let Some(d) = docs.get(&at) {
            if out.len() > MAX_FRAME_DEPTH {
                break;
            }
            let (n, id) = d.owner.clone();
            out.push(Owner {
                page: docs.get(&n).map(|o| o.page.clone()),
                nonce: n.clone(),
                id,
            });
            at = n;
        }
        out
    }

    /// Where the viewport of the document `nonce` sits in the top viewport (CSS pixels); with
    /// `scroll`, each owner element is scrolled into view first.
    pub(crate) async fn frame_offset(
        &self,
        nonce: &str,
        scroll: bool,
        deadline: Deadline,
    ) -> CdpResult<(f64, f64)> {
        let mut off = (0.0, 0.0);
        for o in self.owners(nonce) {
            let p = o.page.as_deref().unwrap_or(self);
            let (x, y) = p.owner_origin(&o.nonce, o.id, scroll, deadline).await?;
            off = (off.0 + x, off.1 + y);
        }
        Ok(off)
    }

    /// The content origin of the owner element `id` of document `nonce` in this page's top
    /// viewport.
    pub(crate) async fn owner_origin(
        &self,
        nonce: &str,
        id: u64,
        scroll: bool,
        deadline: Deadline,
    ) -> CdpResult<(f64, f64)> {
        let obj = self
            .element(nonce, id, deadline)
            .await?
            .ok_or_else(|| CdpError::Gone("the frame's element is no longer in the page".into()))?;
        let v = self.origin_of(&obj, scroll, deadline).await;
        self.release(&obj).await;
        v
    }

    /// [`Page::owner_origin`] for an element handle.
    pub(crate) async fn origin_of(
        &self,
        obj: &str,
        scroll: bool,
        deadline: Deadline,
    ) -> CdpResult<(f64, f64)> {
        let arg = CallArgument {
            value: Some(json!(scroll)),
            object_id: None,
        };
        let v = self.call_on(obj, ORIGIN_JS, vec![arg], deadline).await?;
        serde_json::from_value(v).map_err(|source| CdpError::Decode {
            method: "frame origin",
            source,
        })
    }

    /// The page of the frame that `owner` (an `iframe` or `frame` element of the page `in_page`,
    /// `self` being the top page) shows: a world in it through `in_page`'s session when the
    /// frame shares its process, else a session attached to the frame's own target. `None`
    /// when the element shows no frame.
    pub(crate) async fn frame_page(
        &self,
        in_page: &Page,
        owner: &str,
        deadline: Deadline,
    ) -> CdpResult<Option<Arc<Page>>> {
        let d = in_page
            .send(&DescribeNode { object_id: owner }, deadline)
            .await?;
        let Some(frame_id) = d.node.frame_id else {
            return Ok(None);
        };
        let cached = self
            .frames
            .pages
            .lock()
            .ok()
            .and_then(|m| m.get(&frame_id).cloned());
        if let Some(p) = cached {
            if p.world_context(deadline).await.is_ok() {
                return Ok(Some(p));
            }
            self.forget_frame(&frame_id);
        }
        let client = self.client();
        // In the owner's process first: no new session needed.
        let p = Arc::new(Page::new(
            client.clone(),
            &frame_id,
            in_page.session().to_string(),
            self.dialogs(),
        ));
        let p = if p.world_context(deadline).await.is_ok() {
            p
        } else {
            // Out of process. Chromium keeps a frame's target attachable only while someone
            // watches the target list (idempotent).
            let discover = SetDiscoverTargets { discover: true };
            client.send(None, &discover, deadline).await?;
            let attach = AttachToTarget {
                target_id: &frame_id,
                flatten: true,
            };
            let attached = client.send(None, &attach, deadline).await?;
            let p = Arc::new(Page::new(
                client,
                &frame_id,
                attached.session_id,
                self.dialogs(),
            ));
            p.world_context(deadline).await?;
            p
        };
        if let Ok(mut m) = self.frames.pages.lock() {
            m.insert(frame_id, p.clone());
        }
        Ok(Some(p))
    }

    fn forget_frame(&self, frame_id: &str) {
        if let Ok(mut m) = self.frames.pages.lock() {
            m.remove(frame_id);
        }
    }

    /// Frame pages read so far (for waiting on changes inside them).
    pub(crate) fn frame_pages(&self) -> Vec<Arc<Page>> {
        self.frames
            .pages
            .lock()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }
}
