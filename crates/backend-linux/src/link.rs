//! The backend's attachment to the accessibility bus, renewed when the bus comes back.
//!
//! The bus can die under a long-running daemon (at-spi-bus-launcher killed or restarted with a
//! session). zbus never reopens a closed connection, and what hangs off one connection is only
//! good on that bus: the event listener registered with its registry, and the facts remembered
//! about objects named by its unique names (a new bus hands `:1.5` to another app). So the three
//! live together in one [`Attachment`], replaced as a whole on the first call that finds it
//! dead; a call while no bus can be reached answers [`LinuxError::BusLost`] naming the address
//! and the reason. What the backend caches about apps and roots is keyed by the attachment's
//! generation (`lib.rs` clears it when the generation changes).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing::{debug, info};
use uidriver_core::Deadline;

use crate::atspi::connection::{without_guid, A11yBus, LAUNCHER_WAIT};
use crate::atspi::events::Events;
use crate::details::Memo;
use crate::error::LinuxError;

/// Longest a call spends reattaching (connect, match rules, `RegisterEvent` on a registry that
/// may still be starting): the bus is local, so a bus that needs longer is as good as absent.
const REATTACH_BUDGET: Duration = Duration::from_secs(3);

/// One connection to the bus and everything that is only valid on it.
pub(crate) struct Attachment {
    /// The connection.
    pub bus: A11yBus,
    /// The event listener registered on it.
    pub events: Events,
    /// Facts remembered about its objects (fed by `events`).
    pub memo: Arc<Memo>,
    /// 0 for the first attachment, one more for each renewal.
    pub generation: u64,
}

impl Attachment {
    async fn open(
        address: Option<&str>,
        session: Option<&str>,
        wait: Duration,
        generation: u64,
    ) -> Result<Attachment, LinuxError> {
        let bus = A11yBus::connect_within(address, session, wait).await?;
        let memo = Arc::new(Memo::default());
        let m = memo.clone();
        let events = Events::start(&bus, move |ev| m.on_event(ev)).await?;
        Ok(Attachment {
            bus,
            events,
            memo,
            generation,
        })
    }

    /// Whether the bus is still there: the connection open and its event reader running.
    fn alive(&self) -> bool {
        !self.bus.is_closed() && !self.events.ended()
    }
}

/// Where the bus is, and the current attachment.
pub(crate) struct Link {
    /// The configured address (`AT_SPI_BUS_ADDRESS`), tried first on every renewal.
    address: Option<String>,
    /// The session bus to ask `org.a11y.Bus` when there is no address, or it fails.
    session: Option<String>,
    /// A std mutex: held only to clone or swap the `Arc`, never across an await.
    current: Mutex<Arc<Attachment>>,
    /// One renewal at a time: calls that find the bus dead together wait for one attempt.
    renewing: tokio::sync::Mutex<()>,
    /// When the current attachment was first found dead (for the error's "gone for N s").
    lost_at: Mutex<Option<Instant>>,
    /// Renewals made so far (the next attachment's generation).
    renewals: AtomicU64,
}

impl Link {
    /// Attaches for the first time, waiting for the launcher as long as `connect` always did.
    pub(crate) async fn connect(
        address: Option<&str>,
        session: Option<&str>,
    ) -> Result<Link, LinuxError> {
        let first = Attachment::open(address, session, LAUNCHER_WAIT, 0).await?;
        debug!(
            address = first.bus.address(),
            "attached to the accessibility bus"
        );
        Ok(Link {
            address: address.map(String::from),
            session: session.map(String::from),
            current: Mutex::new(Arc::new(first)),
            renewing: tokio::sync::Mutex::new(()),
            lost_at: Mutex::new(None),
            renewals: AtomicU64::new(0),
        })
    }

    /// The current attachment as it is, dead or alive (for what only reads its caches).
    pub(crate) fn current(&self) -> Arc<Attachment> {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// A live attachment: the current one, or a new one when its bus went away.
    ///
    /// # Errors
    /// [`LinuxError::BusLost`] when the bus is gone and cannot be reached again within the
    /// deadline (capped at [`REATTACH_BUDGET`]).
    pub(crate) async fn get(&self, deadline: Deadline) -> Result<Arc<Attachment>, LinuxError> {
        let now = self.current();
        if now.alive() {
            return Ok(now);
        }
        let since = *self
            .lost_at
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(Instant::now);
        let budget = deadline.remaining().min(REATTACH_BUDGET);
        let Ok(_one) = tokio::time::timeout(budget, self.renewing.lock()).await else {
            return Err(self.gone(&now, since, "another call is reconnecting"));
        };
        let now = self.current();
        if now.alive() {
            return Ok(now);
        }
        let generation = self.renewals.load(Ordering::SeqCst) + 1;
        let budget = deadline.remaining().min(REATTACH_BUDGET);
        let open = self.open(generation, budget);
        let reason = match tokio::time::timeout(budget, open).await {
            Ok(Ok(fresh)) => {
                self.renewals.store(generation, Ordering::SeqCst);
                let fresh = Arc::new(fresh);
                *self.current.lock().unwrap_or_else(|p| p.into_inner()) = fresh.clone();
                *self.lost_at.lock().unwrap_or_else(|p| p.into_inner()) = None;
                info!(
                    address = fresh.bus.address(),
                    generation,
                    after_ms = since.elapsed().as_millis() as u64,
                    "reattached to the accessibility bus"
                );
                return Ok(fresh);
            }
            Ok(Err(LinuxError::NoAccessibilityBus(why))) => why,
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("reconnecting took over {} ms", budget.as_millis()),
        };
        debug!(%reason, "the accessibility bus is still gone");
        Err(self.gone(&now, since, &reason))
    }

    /// The configured address first (without its guid: that names the bus that died), then
    /// (when it fails or there is none) the session bus's answer: a restarted launcher may
    /// listen elsewhere (older at-spi2-core picks a random abstract socket each time).
    async fn open(&self, generation: u64, wait: Duration) -> Result<Attachment, LinuxError> {
        let session = self.session.as_deref();
        let address = self.address.as_deref().map(without_guid);
        match address.as_deref() {
            Some(a) => match Attachment::open(Some(a), session, wait, generation).await {
                Ok(att) => Ok(att),
                Err(first) => Attachment::open(None, session, Duration::ZERO, generation)
                    .await
                    .map_err(|_| first),
            },
            None => Attachment::open(None, session, wait, generation).await,
        }
    }

    fn gone(&self, dead: &Attachment, since: Instant, reason: &str) -> LinuxError {
        LinuxError::BusLost(format!(
            "{} went away {} s ago and cannot be reached again ({reason})",
            dead.bus.address(),
            since.elapsed().as_secs()
        ))
    }

    /// Whether the bus was ever renewed: roots listed since then only show apps that joined
    /// the new bus.
    pub(crate) fn renewed(&self) -> bool {
        self.renewals.load(Ordering::SeqCst) > 0
    }
}
