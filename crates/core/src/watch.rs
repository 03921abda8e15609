//! Waiting for a postcondition: look, judge the look against an [`Expect`], wait for the root
//! to change, look again, until the condition holds, the root closes or the deadline passes.
//! The one loop behind `act_ui`'s `expect` and `wait_for`. The caller supplies the looks and
//! the waits ([`Watcher`]): they need the service's store, lanes and root listing.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::backend::Deadline;
use crate::error::Error;
use crate::expect::Expect;
use crate::state::State;

/// What one look found.
pub enum Sighting {
    /// The root, observed.
    Seen(Arc<State>),
    /// The root is gone; the error says how (`target_closed`).
    Closed(Error),
}

/// The caller's part of a watch.
#[async_trait]
pub trait Watcher: Send {
    /// A fresh look at the root, the successor of `last` (the previous look, if any).
    async fn look(&mut self, last: Option<&Arc<State>>) -> Result<Sighting, Error>;

    /// Returns when the root may have changed, at the latest when `within` expires.
    async fn changed(&mut self, within: Deadline);
}

/// How a watch ended.
#[derive(Debug)]
pub enum End {
    /// The condition holds in this look (also the watch's last).
    Held(Arc<State>),
    /// The root closed before the condition held.
    Closed(Error),
    /// The deadline passed; the last look (if any) is where it did not hold.
    TimedOut,
    /// A look failed.
    Failed(Error),
}

/// The end of a watch, its last look and how many looks it took.
#[derive(Debug)]
pub struct Watch {
    /// Why it ended.
    pub end: End,
    /// The last look.
    pub last: Option<Arc<State>>,
    /// The looks taken.
    pub checks: u32,
}

/// Looks until `expect` holds, waiting at most `recheck` for a change between looks. A
/// deadline that runs out while waiting ends the watch with the last look, not with a look
/// that had no time left.
pub async fn watch(
    w: &mut dyn Watcher,
    expect: &Expect,
    deadline: Deadline,
    recheck: Duration,
) -> Watch {
    let mut last: Option<Arc<State>> = None;
    let mut checks = 0u32;
    let end = loop {
        let state = match w.look(last.as_ref()).await {
            Ok(Sighting::Seen(s)) => s,
            Ok(Sighting::Closed(e)) => break End::Closed(e),
            Err(e) => break End::Failed(e),
        };
        checks += 1;
        last = Some(state.clone());
        if expect.holds(&state) {
            break End::Held(state);
        }
        if !deadline.expired() {
            let within = deadline.cap(recheck);
            let _ = tokio::time::timeout(within.remaining(), w.changed(within)).await;
        }
        if deadline.expired() {
            break End::TimedOut;
        }
    };
    Watch { end, last, checks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Evidence, Node};
    use crate::vocab::Role;

    /// A one-node state: a window named `name`.
    fn sample_state(name: &str) -> Arc<State> {
        let root = Node {
            role: Role::Window,
            name: Evidence::from_text(name),
            ..Node::default()
        };
        Arc::new(crate::store::tests::state_of(vec![root]))
    }

    /// Answers `looks` in turn, then the last one again; counts the waits.
    struct Script {
        looks: Vec<Result<Option<Arc<State>>, Error>>,
        waits: u32,
    }

    #[async_trait]
    impl Watcher for Script {
        async fn look(&mut self, _last: Option<&Arc<State>>) -> Result<Sighting, Error> {
            let next = if self.looks.len() > 1 {
                self.looks.remove(0)
            } else {
                self.looks[0].clone()
            };
            next.map(|s| match s {
                Some(s) => Sighting::Seen(s),
                None => Sighting::Closed(Error::new(crate::ErrorCode::TargetClosed, "closed")),
            })
        }

        async fn changed(&mut self, _within: Deadline) {
            self.waits += 1;
        }
    }

    fn text(t: &str) -> Expect {
        Expect {
            text: Some(t.into()),
            ..Expect::default()
        }
    }

    #[tokio::test]
    async fn a_watch_ends_at_the_first_look_where_the_condition_holds() {
        let (without, with) = (sample_state("Nothing"), sample_state("Saved"));
        let mut w = Script {
            looks: vec![Ok(Some(without.clone())), Ok(Some(with.clone()))],
            waits: 0,
        };
        let deadline = Deadline::after(Duration::from_secs(5));
        let out = watch(&mut w, &text("saved"), deadline, Duration::from_millis(1)).await;
        let End::Held(held) = out.end else {
            panic!("{:?}", out.end)
        };
        assert_eq!((out.checks, w.waits), (2, 1));
        assert!(Arc::ptr_eq(&held, &with));
    }

    #[tokio::test]
    async fn a_watch_that_runs_out_answers_with_its_last_look() {
        let without = sample_state("Nothing");
        let mut w = Script {
            looks: vec![Ok(Some(without.clone()))],
            waits: 0,
        };
        let deadline = Deadline::after(Duration::from_millis(30));
        let out = watch(&mut w, &text("saved"), deadline, Duration::from_millis(5)).await;
        assert!(matches!(out.end, End::TimedOut), "{:?}", out.end);
        assert!(
            out.checks >= 2 && w.waits >= 2,
            "{} {}",
            out.checks,
            w.waits
        );
        assert!(Arc::ptr_eq(out.last.as_ref().unwrap(), &without));
    }

    #[tokio::test]
    async fn a_closed_root_and_a_failed_look_end_the_watch_with_what_was_seen() {
        let without = sample_state("Nothing");
        let deadline = Deadline::after(Duration::from_secs(5));
        let mut w = Script {
            looks: vec![Ok(Some(without.clone())), Ok(None)],
            waits: 0,
        };
        let out = watch(&mut w, &text("saved"), deadline, Duration::from_millis(1)).await;
        assert!(matches!(out.end, End::Closed(_)), "{:?}", out.end);
        assert_eq!(out.checks, 1);
        let mut w = Script {
            looks: vec![Err(Error::new(crate::ErrorCode::Timeout, "slow"))],
            waits: 0,
        };
        let out = watch(&mut w, &text("saved"), deadline, Duration::from_millis(1)).await;
        assert!(matches!(out.end, End::Failed(_)), "{:?}", out.end);
        assert!(out.last.is_none() && out.checks == 0);
    }
}
