//! Resource lanes and epochs: live work on one physical resource (a desktop process, a CDP
//! target) runs one call at a time, different resources run in parallel, and every write bumps
//! the resource's epoch so a call carrying an older state is rejected before it sends anything.
//!
//! Lanes use `tokio::sync::Mutex` because the guard is held across the backend's awaits; the
//! map of lanes uses a `std` mutex held only to look a lane up.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use crate::error::{Error, ErrorCode, Result};
use crate::model::ResourceKey;

struct Lane {
    lock: Arc<AsyncMutex<()>>,
    epoch: AtomicU64,
}

/// All lanes of the daemon.
#[derive(Default)]
pub struct Lanes {
    lanes: Mutex<HashMap<ResourceKey, Arc<Lane>>>,
}

/// Exclusive use of one resource until dropped.
pub struct LaneGuard {
    lane: Arc<Lane>,
    key: ResourceKey,
    _guard: OwnedMutexGuard<()>,
}

impl Lanes {
    /// An empty set of lanes.
    pub fn new() -> Self {
        Self::default()
    }

    fn lane(&self, key: &ResourceKey) -> Arc<Lane> {
        let mut g = self.lanes.lock().unwrap_or_else(|p| p.into_inner());
        g.entry(key.clone())
            .or_insert_with(|| {
                Arc::new(Lane {
                    lock: Arc::new(AsyncMutex::new(())),
                    epoch: AtomicU64::new(0),
                })
            })
            .clone()
    }

    /// Waits for the resource and holds it.
    pub async fn enter(&self, key: &ResourceKey) -> LaneGuard {
        let lane = self.lane(key);
        let guard = lane.lock.clone().lock_owned().await;
        LaneGuard {
            lane,
            key: key.clone(),
            _guard: guard,
        }
    }

    /// The current epoch of a resource, without waiting for its lane.
    pub fn epoch(&self, key: &ResourceKey) -> u64 {
        self.lane(key).epoch.load(Ordering::SeqCst)
    }
}

impl LaneGuard {
    /// The resource's epoch now.
    pub fn epoch(&self) -> u64 {
        self.lane.epoch.load(Ordering::SeqCst)
    }

    /// Rejects a state observed at an older epoch (another write happened since).
    pub fn check(&self, state_epoch: u64) -> Result<()> {
        let now = self.epoch();
        if state_epoch == now {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::StaleState,
            format!(
                "another write to {} happened after this state was observed (epoch {state_epoch}, now {now}); nothing was sent",
                self.key
            ),
        )
        .with_details(json!({ "reason": "epoch", "stateEpoch": state_epoch, "epoch": now })))
    }

    /// Records a write; returns the new epoch.
    pub fn bump(&self) -> u64 {
        self.lane.epoch.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The resource this guard holds.
    pub fn key(&self) -> &ResourceKey {
        &self.key
    }
}

/// The process-wide lock around physical pointer and keyboard injection, so two lanes never
/// interleave input. (Machine-wide exclusivity across processes is the backend's lease.)
#[derive(Default)]
pub struct InputLock(AsyncMutex<()>);

impl InputLock {
    /// A free lock.
    pub fn new() -> Self {
        Self::default()
    }
    /// Waits for exclusive input.
    pub async fn hold(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.0.lock().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn same_resource_serializes_and_others_overlap() {
        let lanes = Arc::new(Lanes::new());
        let a = ResourceKey::new("desktop-pid:1");
        let b = ResourceKey::new("desktop-pid:2");
        let t0 = tokio::time::Instant::now();
        let run = |key: ResourceKey| {
            let lanes = lanes.clone();
            tokio::spawn(async move {
                let _g = lanes.enter(&key).await;
                let start = t0.elapsed();
                tokio::time::sleep(Duration::from_millis(100)).await;
                (start, t0.elapsed())
            })
        };
        let (a1, a2, b1) = (run(a.clone()), run(a.clone()), run(b));
        let (a1, a2, b1) = (a1.await.unwrap(), a2.await.unwrap(), b1.await.unwrap());
        // The two calls on `a` do not overlap; the call on `b` overlaps the first.
        assert!(a2.0 >= a1.1 || a1.0 >= a2.1);
        assert!(b1.0 < a1.1.min(a2.1));
    }

    #[tokio::test]
    async fn older_epoch_is_rejected() {
        let lanes = Lanes::new();
        let k = ResourceKey::new("cdp:T");
        let g = lanes.enter(&k).await;
        assert!(g.check(0).is_ok());
        assert_eq!(g.bump(), 1);
        let e = g.check(0).unwrap_err();
        assert_eq!(e.code, ErrorCode::StaleState);
        assert_eq!(e.delivery, crate::Delivery::NotDelivered);
        drop(g);
        assert_eq!(lanes.epoch(&k), 1);
    }
}
