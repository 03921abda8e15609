//! A state: one immutable observation of one root, with the element refs that belong to it.
//! Building a state assigns refs by matching identities against the root's previous state
//! (`identity.rs`); storing and evicting states is `store.rs`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, ErrorCode, Result};
use crate::identity::assign_refs;
use crate::ids::{ElementRef, RootRef, StateId};
use crate::model::{ImageInfo, Node, OcrText, RootInfo, Snapshot};

/// One immutable observation.
#[derive(Debug)]
pub struct State {
    /// Its id.
    pub id: StateId,
    /// The root it observes.
    pub root: RootRef,
    /// The root as listed when observed.
    pub root_info: RootInfo,
    /// The resource epoch when observed; writes from an older epoch are rejected.
    pub epoch: u64,
    /// The nodes.
    pub snapshot: Snapshot,
    /// `refs[i]` is the ref of `snapshot.nodes[i]`.
    pub refs: Vec<ElementRef>,
    /// The next unused ref number for successors of this state.
    pub next_ref: u32,
    /// Share of nodes whose ref was carried over from the previous state (1.0 when none).
    pub carried: f64,
    /// The image the state's coordinates refer to.
    pub image: Option<ImageInfo>,
    /// OCR words and lines read from the image.
    pub ocr: Vec<OcrText>,
    /// The state it succeeded, if it came from an action or an expand.
    pub parent: Option<StateId>,
    /// When it was observed.
    pub created: SystemTime,
    by_ref: HashMap<ElementRef, usize>,
}

/// What a new state is built from.
pub struct NewState {
    /// The id the store allocated.
    pub id: StateId,
    /// The root.
    pub root: RootRef,
    /// The root as listed.
    pub root_info: RootInfo,
    /// The epoch observed under.
    pub epoch: u64,
    /// The backend's snapshot.
    pub snapshot: Snapshot,
    /// The image, if one was taken.
    pub image: Option<ImageInfo>,
    /// OCR results, if read.
    pub ocr: Vec<OcrText>,
    /// The state refs are carried over from (the root's latest state).
    pub previous: Option<Arc<State>>,
    /// Whether this state succeeds `previous` (act, expand) rather than being a fresh look.
    pub successor: bool,
}

impl State {
    /// Builds a state, assigning refs (carried over from `previous` where identity matches).
    pub fn build(n: NewState) -> State {
        let assigned = assign_refs(n.previous.as_deref(), &n.snapshot);
        let by_ref = assigned
            .refs
            .iter()
            .enumerate()
            .map(|(i, r)| (*r, i))
            .collect();
        State {
            id: n.id,
            root: n.root,
            root_info: n.root_info,
            epoch: n.epoch,
            snapshot: n.snapshot,
            refs: assigned.refs,
            next_ref: assigned.next_ref,
            carried: assigned.carried,
            image: n.image,
            ocr: n.ocr,
            parent: if n.successor {
                n.previous.as_ref().map(|p| p.id)
            } else {
                None
            },
            created: SystemTime::now(),
            by_ref,
        }
    }

    /// The node index of a ref, or `stale_ref`.
    pub fn resolve(&self, r: ElementRef) -> Result<usize> {
        self.by_ref.get(&r).copied().ok_or_else(|| {
            Error::new(
                ErrorCode::StaleRef,
                format!("{r} is not an element of state {}", self.id),
            )
        })
    }

    /// The node of a ref.
    pub fn node(&self, r: ElementRef) -> Result<&Node> {
        Ok(&self.snapshot.nodes[self.resolve(r)?])
    }

    /// The ref of a node index.
    pub fn ref_of(&self, i: usize) -> ElementRef {
        self.refs[i]
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.snapshot.nodes.len()
    }

    /// Whether the state has no nodes.
    pub fn is_empty(&self) -> bool {
        self.snapshot.nodes.is_empty()
    }

    /// Indices of `i` and all its descendants, in pre-order.
    pub fn subtree(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![i];
        while let Some(n) = stack.pop() {
            out.push(n);
            for &c in self.snapshot.nodes[n].children.iter().rev() {
                stack.push(c);
            }
        }
        out
    }

    /// Ancestors of `i`, nearest first.
    pub fn ancestors(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = self.snapshot.nodes[i].parent;
        while let Some(p) = cur {
            out.push(p);
            cur = self.snapshot.nodes[p].parent;
        }
        out
    }
}
