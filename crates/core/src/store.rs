//! The bounded store of immutable states and the registry of root refs.
//!
//! Ids are never reused, also not across a daemon restart: the caller starts the store at a
//! number persisted by the previous daemon (see `service`'s id file), and the store can tell an
//! evicted id from one issued by an earlier daemon or never issued at all.
//!
//! Both use `std::sync::Mutex`: nothing awaits while a lock is held and every critical section
//! is a few map operations.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::json;

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{RootRef, StateId};
use crate::model::RootInfo;
use crate::state::State;

/// Default number of states kept.
pub const DEFAULT_CAPACITY: usize = 128;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave these maps half-updated in a way that matters
    // more than losing the daemon, so recover the guard instead of propagating the poison.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

struct StoreInner {
    states: HashMap<u64, Arc<State>>,
    order: VecDeque<u64>,
    latest: HashMap<RootRef, u64>,
    capacity: usize,
    first: u64,
    next: u64,
    evicted: u64,
}

/// Keeps the last `capacity` states.
pub struct StateStore {
    inner: Mutex<StoreInner>,
}

impl StateStore {
    /// A store whose first id is `first` (ids below it belong to earlier daemons).
    pub fn new(capacity: usize, first: u64) -> Self {
        StateStore {
            inner: Mutex::new(StoreInner {
                states: HashMap::new(),
                order: VecDeque::new(),
                latest: HashMap::new(),
                capacity: capacity.max(1),
                first: first.max(1),
                next: first.max(1),
                evicted: 0,
            }),
        }
    }

    /// Reserves the next id.
    pub fn allocate(&self) -> StateId {
        let mut g = lock(&self.inner);
        let id = g.next;
        g.next += 1;
        StateId::from_raw(id)
    }

    /// The id the next allocation will return.
    pub fn next_id(&self) -> u64 {
        lock(&self.inner).next
    }

    /// Stores a state, evicting the oldest beyond capacity. Returns the shared state.
    pub fn insert(&self, state: State) -> Arc<State> {
        let state = Arc::new(state);
        let mut g = lock(&self.inner);
        let id = state.id.get();
        g.states.insert(id, state.clone());
        g.order.push_back(id);
        g.latest.insert(state.root, id);
        while g.order.len() > g.capacity {
            if let Some(old) = g.order.pop_front() {
                if let Some(s) = g.states.remove(&old) {
                    if g.latest.get(&s.root) == Some(&old) {
                        g.latest.remove(&s.root);
                    }
                }
                g.evicted += 1;
            }
        }
        state
    }

    /// A stored state, or `stale_state` saying whether it was evicted, is unknown, or is from an
    /// earlier daemon.
    pub fn get(&self, id: StateId) -> Result<Arc<State>> {
        let g = lock(&self.inner);
        if let Some(s) = g.states.get(&id.get()) {
            return Ok(s.clone());
        }
        let n = id.get();
        let (reason, msg) = if n < g.first {
            (
                "earlier_daemon",
                format!("{id} was issued by an earlier uidriver daemon; states do not survive a restart"),
            )
        } else if n >= g.next {
            ("unknown", format!("{id} was never issued by this daemon"))
        } else {
            (
                "evicted",
                format!(
                    "{id} was evicted: only the last {} states are kept",
                    g.capacity
                ),
            )
        };
        Err(Error::new(ErrorCode::StaleState, msg).with_details(json!({ "reason": reason })))
    }

    /// The newest stored state of a root.
    pub fn latest(&self, root: RootRef) -> Option<Arc<State>> {
        let g = lock(&self.inner);
        g.latest.get(&root).and_then(|id| g.states.get(id).cloned())
    }

    /// Number of states held.
    pub fn len(&self) -> usize {
        lock(&self.inner).states.len()
    }

    /// Whether no state is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many states were evicted so far.
    pub fn evicted(&self) -> u64 {
        lock(&self.inner).evicted
    }
}

struct RegistryInner {
    by_key: HashMap<String, RootRef>,
    infos: HashMap<RootRef, RootInfo>,
    first: u64,
    next: u64,
}

/// Root refs: one per backend root identity, for the daemon's life.
pub struct RootRegistry {
    inner: Mutex<RegistryInner>,
}

impl RootRegistry {
    /// A registry whose first ref number is `first`.
    pub fn new(first: u64) -> Self {
        RootRegistry {
            inner: Mutex::new(RegistryInner {
                by_key: HashMap::new(),
                infos: HashMap::new(),
                first: first.max(1),
                next: first.max(1),
            }),
        }
    }

    /// The ref for a root (allocated on first sight), updating what is known about it.
    pub fn register(&self, info: RootInfo) -> RootRef {
        let mut g = lock(&self.inner);
        let r = match g.by_key.get(&info.key) {
            Some(r) => *r,
            None => {
                let r = RootRef::from_raw(g.next);
                g.next += 1;
                g.by_key.insert(info.key.clone(), r);
                r
            }
        };
        g.infos.insert(r, info);
        r
    }

    /// The ref already given to a backend key.
    pub fn lookup_key(&self, key: &str) -> Option<RootRef> {
        lock(&self.inner).by_key.get(key).copied()
    }

    /// What is known about a root, or `root_not_found`.
    pub fn get(&self, r: RootRef) -> Result<RootInfo> {
        let g = lock(&self.inner);
        g.infos.get(&r).cloned().ok_or_else(|| {
            let why = if r.get() < g.first {
                "was issued by an earlier uidriver daemon"
            } else {
                "is not a known root"
            };
            Error::new(ErrorCode::RootNotFound, format!("{r} {why}"))
        })
    }

    /// The number the next new root will get.
    pub fn next_id(&self) -> u64 {
        lock(&self.inner).next
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Node, ResourceKey, RootKind, Snapshot};
    use crate::state::NewState;

    pub(crate) fn root_info(key: &str) -> RootInfo {
        RootInfo {
            key: key.into(),
            backend: "memory".into(),
            kind: RootKind::Window,
            app: "app".into(),
            pid: Some(1),
            title: "t".into(),
            focused: false,
            modal: false,
            bounds: None,
            resource: ResourceKey::new("desktop-pid:1"),
            stacking: None,
            has_tree: true,
            hidden: false,
            window_id: None,
            url: None,
        }
    }

    /// A complete state s1 of root r1 with `nodes`.
    pub(crate) fn state_of(nodes: Vec<Node>) -> State {
        state_at(StateId::from_raw(1), RootRef::from_raw(1), nodes)
    }

    fn state_at(id: StateId, root: RootRef, nodes: Vec<Node>) -> State {
        State::build(NewState {
            id,
            root,
            root_info: root_info("k"),
            epoch: 0,
            snapshot: Snapshot {
                nodes,
                complete: true,
                ..Snapshot::default()
            },
            image: None,
            ocr: vec![],
            previous: None,
            successor: false,
        })
    }

    fn state(store: &StateStore, root: RootRef) -> State {
        state_at(store.allocate(), root, vec![Node::default()])
    }

    #[test]
    fn evicts_the_129th_and_says_why() {
        let store = StateStore::new(DEFAULT_CAPACITY, 1000);
        let root = RootRef::from_raw(1);
        let first = store.insert(state(&store, root)).id;
        for _ in 0..127 {
            store.insert(state(&store, root));
        }
        assert!(store.get(first).is_ok(), "128 states fit");
        let last = store.insert(state(&store, root)).id;
        assert_eq!(store.len(), 128);
        let e = store.get(first).unwrap_err();
        assert_eq!(e.code, ErrorCode::StaleState);
        assert_eq!(e.details.unwrap()["reason"], "evicted");
        assert!(store.get(last).is_ok());
        let e = store.get(StateId::from_raw(5)).unwrap_err();
        assert_eq!(e.details.unwrap()["reason"], "earlier_daemon");
        let e = store.get(StateId::from_raw(99_999)).unwrap_err();
        assert_eq!(e.details.unwrap()["reason"], "unknown");
        assert_eq!(store.latest(root).unwrap().id, last);
    }

    #[test]
    fn root_refs_are_stable_per_key() {
        let reg = RootRegistry::new(40);
        let a = reg.register(root_info("a"));
        let b = reg.register(root_info("b"));
        assert_eq!(a.get(), 40);
        assert_eq!(reg.register(root_info("a")), a);
        assert_ne!(a, b);
        assert_eq!(
            reg.get(RootRef::from_raw(3)).unwrap_err().code,
            ErrorCode::RootNotFound
        );
    }
}
