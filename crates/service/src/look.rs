//! One look at one root, stored as a new state: the backend's snapshot, refs carried over from
//! the root's previous state, and (in visual or fused mode) an image with OCR text fused in.
//! Callers of [`Service::look`] hold the root's lane; the successors of a stored state (its
//! pixels read: `ocr_successor`; a region read again: `read_region`) take it themselves, and
//! only while no write happened since that state.

use std::sync::Arc;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uidriver_core::{
    Backend, Deadline, Error, Evidence, ImageInfo, NewState, Node, ObserveRequest, OcrText, Role,
    RootInfo, RootRef, Snapshot, State,
};

use crate::Service;

/// Which evidence an observation gathers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Accessibility tree only.
    Semantic,
    /// Tree plus an image and OCR, always.
    Visual,
    /// Tree, plus image and OCR when the tree is poor (few or unlabeled nodes, no tree at all).
    #[default]
    Fused,
}

/// How a look relates to earlier states.
pub(crate) struct LookSpec<'a> {
    pub root: RootRef,
    pub info: &'a RootInfo,
    pub epoch: u64,
    pub mode: Mode,
    /// The state this one succeeds (act, expand), if any.
    pub successor_of: Option<Arc<State>>,
}

/// What one look gathered (see [`Service::gather`]), not stored yet.
pub(crate) struct Gathered {
    snapshot: Snapshot,
    image: Option<ImageInfo>,
    ocr: Vec<OcrText>,
}

impl Service {
    /// Observes and stores. The caller holds the lane of `spec.info.resource`.
    pub(crate) async fn look(
        &self,
        spec: LookSpec<'_>,
        deadline: Deadline,
    ) -> Result<Arc<State>, Error> {
        let gathered = self.gather(&spec, deadline).await?;
        Ok(self.store_look(spec, gathered))
    }

    /// The observing half of [`Service::look`]: the root's tree (and, in visual or fused mode,
    /// its pixels), as `spec.info` describes it; nothing is stored. Of the description, a tree's
    /// observation reads only the backend, the key and `has_tree`; pixels, or a window without
    /// a tree, read its window, title and bounds too.
    pub(crate) async fn gather(
        &self,
        spec: &LookSpec<'_>,
        deadline: Deadline,
    ) -> Result<Gathered, Error> {
        let started = Instant::now();
        let backend = self.backend_named(&spec.info.backend)?.clone();
        // Rectangles are read when pixels will be matched to nodes (visual); fused mode reads
        // them only once the tree turned out poor and an image will be taken.
        let mut snapshot = if spec.info.has_tree {
            run_observe(
                backend.as_ref(),
                spec.info,
                spec.mode == Mode::Visual,
                deadline,
            )
            .await?
        } else {
            bare_window(spec.info)
        };
        let pixels = match spec.mode {
            Mode::Semantic => false,
            Mode::Visual => true,
            Mode::Fused => !spec.info.has_tree || crate::pixels::tree_is_poor(&snapshot),
        };
        if pixels && spec.mode == Mode::Fused && spec.info.has_tree {
            snapshot = run_observe(backend.as_ref(), spec.info, true, deadline).await?;
        }
        let (image, ocr) = if pixels {
            self.gather_pixels(backend.as_ref(), spec.info, &mut snapshot, deadline)
                .await
        } else {
            (None, vec![])
        };
        snapshot.timings.total_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(Gathered {
            snapshot,
            image,
            ocr,
        })
    }

    /// The storing half of [`Service::look`]: what [`Service::gather`] observed, as a new state
    /// of `spec.root` described by `spec.info`, its refs carried over.
    pub(crate) fn store_look(&self, spec: LookSpec<'_>, gathered: Gathered) -> Arc<State> {
        let Gathered {
            snapshot,
            image,
            ocr,
        } = gathered;
        let successor = spec.successor_of.is_some();
        let previous = spec.successor_of.or_else(|| self.store.latest(spec.root));
        let state = State::build(NewState {
            id: self.store.allocate(),
            root: spec.root,
            root_info: spec.info.clone(),
            epoch: spec.epoch,
            snapshot,
            image,
            ocr,
            previous,
            successor,
        });
        let state = self.store.insert(state);
        self.persist_ids();
        state
    }

    /// Captures, encodes and reads text from the root's pixels. Failures become notes on the
    /// snapshot: a missing image never fails an observation.
    async fn gather_pixels(
        &self,
        backend: &dyn Backend,
        info: &RootInfo,
        snapshot: &mut Snapshot,
        deadline: Deadline,
    ) -> (
        Option<uidriver_core::ImageInfo>,
        Vec<uidriver_core::OcrText>,
    ) {
        match crate::pixels::capture_and_read(
            backend,
            info,
            snapshot,
            self.config.image_max,
            deadline,
        )
        .await
        {
            Ok(r) => r,
            Err(e) => {
                snapshot.notes.push(format!("no image: {}", e.message));
                (None, vec![])
            }
        }
    }
}

impl Service {
    /// A successor of `state` with its root's pixels read (image + OCR fused), taken under the
    /// lane and only when no write happened since `state` (its epoch is current).
    pub(crate) async fn ocr_successor(&self, state: &Arc<State>) -> Result<Arc<State>, Error> {
        let backend = self.backend_named(&state.root_info.backend)?.clone();
        let deadline = Deadline::after(self.config.observe_timeout);
        let guard = self.lanes.enter(&state.root_info.resource).await;
        guard.check(state.epoch)?;
        // A fresh look with rectangles (the stored one may have none): OCR lines are matched
        // to nodes by their boxes. No write happened since `state` (epoch checked above).
        let mut snapshot = if state.root_info.has_tree {
            run_observe(backend.as_ref(), &state.root_info, true, deadline).await?
        } else {
            state.snapshot.clone()
        };
        let (image, ocr) = crate::pixels::capture_and_read(
            backend.as_ref(),
            &state.root_info,
            &mut snapshot,
            self.config.image_max,
            deadline,
        )
        .await?;
        Ok(self.store_successor(state, guard.epoch(), snapshot, image, ocr))
    }

    /// A successor of `state` with the subtree of `at` read again and grafted in (`expand_ui`,
    /// `search_ui`), taken under the lane and only when no write happened since `state`;
    /// `seek`: text the caller looks for, which a backend may reach beyond what it would read.
    pub(crate) async fn read_region(
        &self,
        state: &Arc<State>,
        at: usize,
        seek: Option<&str>,
    ) -> Result<Arc<State>, Error> {
        let started = Instant::now();
        let backend = self.backend_named(&state.root_info.backend)?.clone();
        let deadline = Deadline::after(self.config.observe_timeout);
        let guard = self.lanes.enter(&state.root_info.resource).await;
        guard.check(state.epoch)?;
        let req = ObserveRequest {
            max_nodes: uidriver_core::backend::NODE_GUARD,
            max_children: 5_000,
            // Match the rest of the state: rectangles only where the state has an image.
            bounds: state.image.is_some(),
            seek: seek.map(str::to_string),
        };
        let sub = tokio::time::timeout(
            deadline.remaining(),
            backend.observe_region(&state.root_info, state, at, &req, deadline),
        )
        .await
        .map_err(|_| {
            Error::new(
                uidriver_core::ErrorCode::AppUnresponsive,
                "reading the region timed out",
            )
        })??;
        let mut snapshot = state.snapshot.graft(at, &sub).map_err(|why| {
            Error::internal(format!(
                "the {} backend returned a malformed region ({why})",
                state.root_info.backend
            ))
        })?;
        crate::secrets::redact(&mut snapshot);
        snapshot.timings.total_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(self.store_successor(state, guard.epoch(), snapshot, None, vec![]))
    }

    /// Stores `snapshot` (with the image and OCR text read, if any), observed at `epoch`, as a
    /// successor of `state`: its refs carried over.
    fn store_successor(
        &self,
        state: &Arc<State>,
        epoch: u64,
        snapshot: Snapshot,
        image: Option<ImageInfo>,
        ocr: Vec<OcrText>,
    ) -> Arc<State> {
        let next = State::build(NewState {
            id: self.store.allocate(),
            root: state.root,
            root_info: state.root_info.clone(),
            epoch,
            snapshot,
            image,
            ocr,
            previous: Some(state.clone()),
            successor: true,
        });
        let next = self.store.insert(next);
        self.persist_ids();
        next
    }
}

async fn run_observe(
    backend: &dyn Backend,
    info: &RootInfo,
    bounds: bool,
    deadline: Deadline,
) -> Result<Snapshot, Error> {
    let req = ObserveRequest {
        bounds,
        ..ObserveRequest::default()
    };
    let mut snapshot =
        match tokio::time::timeout(deadline.remaining(), backend.observe(info, &req, deadline))
            .await
        {
            Ok(r) => r?,
            Err(_) => {
                return Err(Error::new(
                    uidriver_core::ErrorCode::AppUnresponsive,
                    format!(
                        "{} did not finish describing {:?} before the deadline",
                        info.app, info.title
                    ),
                ))
            }
        };
    // Every stored tree passed this check, so code reading a state may follow its links. A
    // malformed (or empty) tree would make refs and diffs lie, or index past the end: refuse it.
    if let Err(why) = snapshot.check() {
        return Err(Error::internal(format!(
            "the {} backend returned a malformed tree ({why})",
            info.backend
        )));
    }
    crate::secrets::redact(&mut snapshot);
    Ok(snapshot)
}

/// A window without an accessibility tree: one node for the window itself, so the state has a
/// root to hang OCR text on.
fn bare_window(info: &RootInfo) -> Snapshot {
    Snapshot {
        nodes: vec![Node {
            role: Role::Window,
            native_role: "window without accessibility tree".into(),
            name: Evidence::from_text(info.title.clone()),
            bounds: info.bounds,
            handle: info.key.clone(),
            ..Node::default()
        }],
        complete: true,
        notes: vec![
            "this window exposes no accessibility tree; its content comes from its image".into(),
        ],
        ..Snapshot::default()
    }
}
