//! The app's roots as an act's successor look listed them, kept briefly so the next act on
//! that successor starts from them instead of listing again (issue 24 item 7: an act costs at
//! most a look plus 5 ms). Kept per viewer: a listing carries the denials of the caller's
//! policies (`Listed::denied`), and one session's policies are the same on every call.
//!
//! Starting from a listing up to [`FRESH`] old, a root that opened in between (a dialog the
//! previous act's app opened late, say) is reported by the next act as opened: it is news to
//! the agent either way, where a live listing would have hidden it from both acts.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uidriver_core::StateId;

use crate::forest::Listed;
use crate::shown::ViewerId;

/// Oldest listing an act starts from.
pub(crate) const FRESH: Duration = Duration::from_secs(1);
/// Listings kept (the newest).
const KEPT: usize = 16;

struct Kept {
    state: StateId,
    viewer: ViewerId,
    at: Instant,
    roots: Vec<Listed>,
}

/// The latest successor looks' listings.
#[derive(Default)]
pub(crate) struct RecentListings {
    kept: Mutex<VecDeque<Kept>>,
}

impl RecentListings {
    /// The roots listed beside the look that made `state`, for `viewer`.
    pub fn note(&self, state: StateId, viewer: ViewerId, roots: &[Listed]) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= KEPT {
            kept.pop_front();
        }
        kept.push_back(Kept {
            state,
            viewer,
            at: Instant::now(),
            roots: roots.to_vec(),
        });
    }

    /// The listing made with `state` for `viewer`, when it is at most [`FRESH`] old.
    pub fn fresh(&self, state: StateId, viewer: ViewerId) -> Option<Vec<Listed>> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.iter()
            .rev()
            .find(|k| k.state == state && k.viewer == viewer && k.at.elapsed() <= FRESH)
            .map(|k| k.roots.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_serves_its_viewer_for_its_state_only() {
        let l = RecentListings::default();
        let (v, w) = (ViewerId::new(), ViewerId::new());
        let s = StateId::new(3).unwrap();
        l.note(s, v, &[]);
        assert_eq!(l.fresh(s, v).map(|r| r.len()), Some(0));
        assert!(
            l.fresh(s, w).is_none(),
            "another viewer's policies may differ"
        );
        assert!(l.fresh(StateId::new(4).unwrap(), v).is_none());
        for n in 10..10 + KEPT as u64 {
            l.note(StateId::new(n).unwrap(), v, &[]);
        }
        assert!(l.fresh(s, v).is_none(), "only the newest are kept");
    }
}
