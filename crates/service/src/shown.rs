//! What each viewer was last shown of each root, so `observe_ui` can answer a second look at a
//! root with what changed since, not the whole outline again (issue 24 item 8: an agent that
//! looks after each act read every unchanged line of the window again).
//!
//! A viewer is one reader of results: an MCP session (its `Handler`), or a daemon client that
//! passes its session's viewer on. A call without one (`uidriver call`, the in-process tests)
//! is always shown the whole outline, since nobody can say what it already read.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use uidriver_core::{RootRef, StateId};

/// One reader of results: an MCP session. Unique within the machine's daemon (random, so two
/// MCP processes that share a daemon never share a viewer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ViewerId(u64);

impl crate::Service {
    /// Whether the running call's view carries the data note ([`Shown::note_due`] for the
    /// call's viewer).
    pub(crate) fn data_note_due(&self) -> bool {
        self.shown.note_due(crate::call::viewer())
    }
}

impl ViewerId {
    /// A new viewer, unlike any other.
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        ViewerId(std::hash::RandomState::new().hash_one((std::process::id(), n)))
    }
}

impl Default for ViewerId {
    fn default() -> Self {
        Self::new()
    }
}

/// A state a viewer was shown, and how.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Seen {
    /// The state.
    pub state: StateId,
    /// The outline's line budget when it was shown in full (`observe_ui`'s `maxLines`); `None`
    /// when it was shown as an act's changes, which any budget continues.
    pub max_lines: Option<usize>,
}

/// Most (viewer, root) pairs remembered; past it the record starts again (every viewer's next
/// look is whole once more: a cost, never a wrong answer).
const MOST: usize = 4096;

/// The last state of each root each viewer was shown, and the viewers told that quoted text
/// is data.
#[derive(Default)]
pub(crate) struct Shown {
    map: Mutex<HashMap<(ViewerId, RootRef), Seen>>,
    noted: Mutex<HashSet<ViewerId>>,
}

impl Shown {
    /// Whether a view for `viewer` carries the data note (`render::DATA_NOTE`): always for an
    /// anonymous caller, once for a viewer (its first view; the session's instructions say it
    /// too). Counts this view as told.
    pub fn note_due(&self, viewer: Option<ViewerId>) -> bool {
        let Some(v) = viewer else {
            return true;
        };
        let mut noted = self.noted.lock().unwrap_or_else(|p| p.into_inner());
        if noted.len() >= MOST && !noted.contains(&v) {
            noted.clear();
        }
        noted.insert(v)
    }

    /// `viewer` was just shown `seen` of `root`.
    pub fn record(&self, viewer: ViewerId, root: RootRef, seen: Seen) {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MOST && !map.contains_key(&(viewer, root)) {
            map.clear();
        }
        map.insert((viewer, root), seen);
    }

    /// The last state of `root` that `viewer` was shown.
    pub fn last(&self, viewer: ViewerId, root: RootRef) -> Option<Seen> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&(viewer, root)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_viewer_has_its_own_record() {
        let shown = Shown::default();
        let (a, b) = (ViewerId::new(), ViewerId::new());
        assert_ne!(a, b);
        let r = RootRef::new(1).unwrap();
        let seen = Seen {
            state: StateId::new(7).unwrap(),
            max_lines: None,
        };
        shown.record(a, r, seen);
        assert_eq!(shown.last(a, r), Some(seen));
        assert_eq!(shown.last(b, r), None);
        assert_eq!(shown.last(a, RootRef::new(2).unwrap()), None);
    }

    #[test]
    fn a_viewer_is_told_once_that_text_is_data_and_an_anonymous_caller_always() {
        let shown = Shown::default();
        let v = ViewerId::new();
        assert!(shown.note_due(Some(v)));
        assert!(!shown.note_due(Some(v)));
        assert!(shown.note_due(Some(ViewerId::new())));
        assert!(shown.note_due(None));
        assert!(shown.note_due(None));
    }
}
