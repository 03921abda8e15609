//! Waits timed to a tenth of a millisecond, for the short windows of a step's verification.
//!
//! tokio's timer counts whole milliseconds and rounds a deadline up to the next one, then wakes
//! with the driver: its 3 ms wait took 4.1 ms (median, gtk3-widget-factory), so the quiet a
//! step waits after its effect was read back ([`super::verify::AFTERMATH`]) cost every step a
//! third more than it says. One thread sleeps on the nearest deadline instead (a futex wait,
//! as exact as the kernel's timer slack) and wakes the waiters whose time came; a waiter that
//! stops waiting (its event came first) is forgotten at the next wake-up.

use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// Waits longer than this are tokio's: a millisecond late is nothing to them.
const SHORT: Duration = Duration::from_millis(100);

/// A wake-up asked of the timer thread: when, and whom to tell.
type Wake = (Instant, oneshot::Sender<()>);

/// Returns at `until` (at once when it passed): a short wait on the timer thread, a longer one
/// (or one the thread cannot take) on tokio's timer.
pub(crate) async fn sleep_until(until: Instant) {
    let left = until.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return;
    }
    if left <= SHORT {
        let (tx, rx) = oneshot::channel();
        if ask((until, tx)) && rx.await.is_ok() {
            return;
        }
    }
    tokio::time::sleep_until(until.into()).await;
}

/// Hands a wake-up to the timer thread (started on first use); false when it cannot take it.
fn ask(wake: Wake) -> bool {
    static THREAD: OnceLock<Option<Mutex<Sender<Wake>>>> = OnceLock::new();
    let thread = THREAD.get_or_init(|| {
        let (tx, rx) = channel::<Wake>();
        std::thread::Builder::new()
            .name("uidriver-timer".into())
            .spawn(move || {
                let mut waiting: Vec<Wake> = Vec::new();
                loop {
                    let next = waiting.iter().map(|(at, _)| *at).min();
                    let got = match next {
                        Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
                        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    };
                    match got {
                        Ok(w) => waiting.push(w),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                    let now = Instant::now();
                    // Due ones are told; ones nobody waits for any more are dropped.
                    let (due, rest): (Vec<Wake>, Vec<Wake>) =
                        waiting.drain(..).partition(|(at, _)| *at <= now);
                    waiting = rest.into_iter().filter(|(_, tx)| !tx.is_closed()).collect();
                    for (_, tx) in due {
                        let _ = tx.send(());
                    }
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    match thread {
        Some(tx) => tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send(wake)
            .is_ok(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn wakes_at_its_time_never_before() {
        for _ in 0..20 {
            let until = Instant::now() + Duration::from_micros(2_500);
            sleep_until(until).await;
            let now = Instant::now();
            assert!(now >= until);
            assert!(now - until < Duration::from_millis(50));
        }
    }

    #[tokio::test]
    async fn a_wait_given_up_does_not_hold_the_others() {
        let far = Instant::now() + Duration::from_millis(80);
        let near = Instant::now() + Duration::from_millis(2);
        let _ = tokio::time::timeout(Duration::from_millis(1), sleep_until(far)).await;
        sleep_until(near).await;
        assert!(Instant::now() < far);
    }
}
