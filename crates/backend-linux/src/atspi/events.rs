//! AT-SPI events: registration with the registry, and one task that reads them off the bus and
//! fans them out on a broadcast channel.
//!
//! Registering matters beyond `wait_change`: the GTK3/ATK bridge only emits events, and only
//! serves `Cache.GetItems`, once some client has registered a listener with the registry.
//! The reader task does little per event (the sender, the object path, the detail string, and
//! the time of the app's last change), so a burst (a page load emits thousands) cannot hold up
//! method replies that share the connection. It runs before the first registration: an unread
//! stream that fills makes the connection's reader wait, and every reply behind it with it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures_util::StreamExt;
use tokio::sync::broadcast;
use tracing::{debug, warn};

use super::connection::A11yBus;
use super::REGISTRY;

/// Object path of the registry's own interface (not the desktop root).
const REGISTRY_PATH: &str = "/org/a11y/atspi/registry";
use crate::error::LinuxError;

/// Event classes uidriver listens to (registry spelling).
const CLASSES: &[&str] = &["object:", "window:", "focus:"];
/// Signal interfaces of those classes (match rules).
const INTERFACES: &[&str] = &[
    "org.a11y.atspi.Event.Object",
    "org.a11y.atspi.Event.Window",
    "org.a11y.atspi.Event.Focus",
];
/// Broadcast depth; a lagging receiver only learns "something changed", which is all it needs.
const DEPTH: usize = 1024;
/// How long the registry has to answer one `RegisterEvent`.
const REGISTER_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// One event, reduced to what waiters need.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    /// Unique bus name of the application that sent it.
    pub sender: Arc<str>,
    /// `Object`, `Window` or `Focus` (the last part of the signal interface).
    pub class: &'static str,
    /// The signal name (`ChildrenChanged`, `StateChanged`, `TextChanged`, ...).
    pub member: Arc<str>,
    /// Object path of the source object.
    pub path: Arc<str>,
    /// The event's detail string for object events: the state of `StateChanged` (`checked`,
    /// `focused`), `insert`/`delete` for `TextChanged`, the property of `PropertyChange`.
    pub detail: Arc<str>,
    /// When the reader received it.
    pub at: Instant,
}

/// Per application: when it last sent a change event, and up to when an action of ours has
/// accounted for its events. Lets acting tell "the app reacted to us" from background churn.
#[derive(Debug, Default)]
struct Activity {
    last_change: Option<Instant>,
    accounted: Option<Instant>,
    /// When an act's last step read its effect back and left the rest of its aftermath to its
    /// caller (`act::verify::settle_deferred`).
    deferred: Option<Instant>,
}

/// The event fan-out. Dropping it stops the reader task (whose match-rule streams would
/// otherwise keep the bus connection open for the life of the runtime).
#[derive(Debug)]
pub(crate) struct Events {
    tx: broadcast::Sender<Event>,
    reader: tokio::task::JoinHandle<()>,
    /// By sender. A std mutex: held for a map lookup only, never across an await.
    activity: Arc<Mutex<HashMap<Arc<str>, Activity>>>,
}

impl Drop for Events {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Events {
    /// Adds the match rules, starts the reader task, then registers listeners with the registry
    /// (each registration bounded by [`REGISTER_WITHIN`]).
    /// `first` sees every event before it is broadcast (so memos it keeps are current by the
    /// time a waiter wakes).
    pub(crate) async fn start(
        bus: &A11yBus,
        first: impl Fn(&Event) + Send + 'static,
    ) -> Result<Events, LinuxError> {
        let conn = bus.conn();
        let mut streams = Vec::new();
        for (iface, class) in INTERFACES.iter().zip(["Object", "Window", "Focus"]) {
            let rule = zbus::MatchRule::builder()
                .msg_type(zbus::message::Type::Signal)
                .interface(*iface)
                .map_err(LinuxError::Dbus)?
                .build();
            let s = zbus::MessageStream::for_match_rule(rule, conn, Some(DEPTH)).await?;
            streams.push(s.map(move |m| (class, m)));
        }
        let (tx, _) = broadcast::channel(DEPTH);
        let sender = tx.clone();
        let activity: Arc<Mutex<HashMap<Arc<str>, Activity>>> = Arc::default();
        let seen = activity.clone();
        let mut all = futures_util::stream::select_all(streams);
        let reader = tokio::spawn(async move {
            while let Some((class, msg)) = all.next().await {
                let Ok(msg) = msg else { continue };
                let header = msg.header();
                let (Some(from), Some(member)) = (header.sender(), header.member()) else {
                    continue;
                };
                let path = header.path().map(|p| p.as_str()).unwrap_or_default();
                // Every AT-SPI event body starts with its detail string: `(siiva{sv})`.
                let detail = if class == "Object" {
                    msg.body()
                        .deserialize::<EventBody>()
                        .map(|b| b.0)
                        .unwrap_or_default()
                } else {
                    String::new()
                };
                let ev = Event {
                    sender: Arc::from(from.as_str()),
                    class,
                    member: Arc::from(member.as_str()),
                    path: Arc::from(path),
                    detail: Arc::from(detail.as_str()),
                    at: Instant::now(),
                };
                tracing::trace!(sender = %ev.sender, class, member = %ev.member, detail = %ev.detail, path = %ev.path, "event");
                first(&ev);
                if ev.is_reaction() {
                    let mut a = seen.lock().unwrap_or_else(|p| p.into_inner());
                    a.entry(ev.sender.clone()).or_default().last_change = Some(ev.at);
                }
                // No receivers is normal (nobody waiting); the send result is irrelevant.
                let _ = sender.send(ev);
            }
            debug!("AT-SPI event stream ended");
        });
        // Only now register: an app starts emitting once a listener is registered (a document
        // being loaded sends thousands of events at once). Were the streams not read yet, their
        // buffers would fill, the connection's reader would wait for room, and the registry's
        // replies queued behind those events would never be read: start would hang for good.
        if let Err(e) = register(conn).await {
            reader.abort();
            return Err(e);
        }
        Ok(Events {
            tx,
            reader,
            activity,
        })
    }

    /// Whether the reader stopped: its bus connection closed, so no event will come again.
    pub(crate) fn ended(&self) -> bool {
        self.reader.is_finished()
    }

    /// A new receiver of every later event.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.tx.subscribe()
    }

    /// Whether `bus` sent a reaction event after `since` that no action of ours accounted for
    /// (see [`Events::account`]): background churn such as a clock or a progress bar.
    pub(crate) fn busy_since(&self, bus: &str, since: Instant) -> bool {
        let a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.get(bus).is_some_and(|a| {
            a.last_change
                .is_some_and(|t| t > since && a.accounted.is_none_or(|acc| t > acc))
        })
    }

    /// Whether `bus` sent a reaction event after `since`, explained or not.
    pub(crate) fn active_since(&self, bus: &str, since: Instant) -> bool {
        let a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.get(bus)
            .is_some_and(|a| a.last_change.is_some_and(|t| t > since))
    }

    /// Records that every event of `bus` up to now was explained by an action of ours.
    pub(crate) fn account(&self, bus: &str) {
        let mut a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.entry(Arc::from(bus)).or_default().accounted = Some(Instant::now());
    }

    /// An event fan-out with no bus behind it, whose changes a test notes itself
    /// ([`Events::note_change`]).
    #[cfg(test)]
    pub(crate) fn detached() -> Events {
        let (tx, _) = broadcast::channel(DEPTH);
        Events {
            tx,
            reader: tokio::spawn(async {}),
            activity: Arc::default(),
        }
    }

    /// Notes a reaction event of `bus` now, as the reader does.
    #[cfg(test)]
    pub(crate) fn note_change(&self, bus: &str) {
        let mut a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.entry(Arc::from(bus)).or_default().last_change = Some(Instant::now());
    }

    /// When `bus` last sent a reaction event.
    pub(crate) fn last_change(&self, bus: &str) -> Option<Instant> {
        let a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.get(bus).and_then(|a| a.last_change)
    }

    /// Notes that an act's last step left its aftermath (from `at`) to its caller.
    pub(crate) fn defer_settle(&self, bus: &str, at: Instant) {
        let mut a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.entry(Arc::from(bus)).or_default().deferred = Some(at);
    }

    /// Takes what [`Events::defer_settle`] noted.
    pub(crate) fn take_deferred(&self, bus: &str) -> Option<Instant> {
        let mut a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.get_mut(bus).and_then(|a| a.deferred.take())
    }

    /// Forgets an application that left the bus.
    pub(crate) fn forget(&self, bus: &str) {
        let mut a = self.activity.lock().unwrap_or_else(|p| p.into_inner());
        a.remove(bus);
    }
}

/// The body of every AT-SPI event signal (at-spi2-core 2.46): detail, detail1, detail2, any
/// data, properties.
type EventBody = (
    String,
    i32,
    i32,
    zbus::zvariant::OwnedValue,
    HashMap<String, zbus::zvariant::OwnedValue>,
);

impl Event {
    /// Whether the event says the tree or its content may have changed: any `window:` or
    /// `focus:` event, and the `object:` events that change what an observation shows (caret
    /// moves, bounds and attribute noise do not).
    pub(crate) fn is_change(&self) -> bool {
        self.class != "Object"
            || matches!(
                &*self.member,
                "ChildrenChanged"
                    | "PropertyChange"
                    | "StateChanged"
                    | "TextChanged"
                    | "SelectionChanged"
                    | "ActiveDescendantChanged"
            )
    }

    /// Whether the event is an application's own reaction to something (content, structure,
    /// meaningful state, windows opening or closing), as opposed to focus moving or a window
    /// being activated — which physical input causes by itself, and which therefore prove
    /// nothing about an action's effect.
    pub(crate) fn is_reaction(&self) -> bool {
        match self.class {
            "Object" => match &*self.member {
                "ChildrenChanged" | "TextChanged" | "SelectionChanged" => true,
                "PropertyChange" => matches!(
                    &*self.detail,
                    "accessible-name" | "accessible-value" | "accessible-description" | ""
                ),
                "StateChanged" => !matches!(
                    &*self.detail,
                    "focused"
                        | "active"
                        | "armed"
                        | "focusable"
                        | "selectable-text"
                        | "defunct"
                        // GTK 4 re-announces scroll bar orientation on every layout.
                        | "horizontal"
                        | "vertical"
                ),
                _ => false,
            },
            "Window" => !matches!(
                &*self.member,
                "Activate" | "Deactivate" | "Move" | "Resize" | "Raise" | "Lower"
            ),
            _ => false,
        }
    }
}

/// Waits for a change event from `bus_name` on `rx`, or returns `false` when `rx` closed.
pub(crate) async fn next_from(rx: &mut broadcast::Receiver<Event>, bus_name: &str) -> bool {
    loop {
        match rx.recv().await {
            Ok(ev) if &*ev.sender == bus_name && ev.is_change() => return true,
            Ok(_) => continue,
            // Missed events may have included ours: report a change rather than miss one.
            Err(broadcast::error::RecvError::Lagged(n)) => {
                warn!(missed = n, "event receiver lagged");
                return true;
            }
            Err(broadcast::error::RecvError::Closed) => return false,
        }
    }
}

/// Registers uidriver's event classes with the registry, each call bounded by
/// [`REGISTER_WITHIN`].
async fn register(conn: &zbus::Connection) -> Result<(), LinuxError> {
    for class in CLASSES {
        // at-spi2-core 2.46: RegisterEvent(s event, as properties, s app_bus_name) on
        // /org/a11y/atspi/registry; "" registers for every application.
        let body = (*class, Vec::<String>::new(), "");
        let call = conn.call_method(
            Some(REGISTRY),
            REGISTRY_PATH,
            Some("org.a11y.atspi.Registry"),
            "RegisterEvent",
            &body,
        );
        match tokio::time::timeout(REGISTER_WITHIN, call).await {
            Ok(reply) => {
                reply
                    .map_err(|e| crate::error::classify(e, || format!("RegisterEvent {class}")))?;
            }
            Err(_) => {
                return Err(LinuxError::Unresponsive {
                    what: format!("the AT-SPI registry (RegisterEvent {class})"),
                    timeout: REGISTER_WITHIN,
                })
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(class: &'static str, member: &str, detail: &str) -> Event {
        Event {
            sender: Arc::from(":1.5"),
            class,
            member: Arc::from(member),
            path: Arc::from("/org/a11y/atspi/accessible/3"),
            detail: Arc::from(detail),
            at: Instant::now(),
        }
    }

    #[test]
    fn reactions_exclude_what_input_causes_by_itself() {
        assert!(ev("Object", "TextChanged", "insert").is_reaction());
        assert!(ev("Object", "StateChanged", "checked").is_reaction());
        assert!(ev("Window", "Create", "").is_reaction());
        assert!(!ev("Object", "StateChanged", "focused").is_reaction());
        assert!(!ev("Object", "StateChanged", "vertical").is_reaction());
        assert!(!ev("Window", "Activate", "").is_reaction());
        assert!(!ev("Focus", "Focus", "").is_reaction());
        assert!(!ev("Object", "BoundsChanged", "").is_reaction());
    }
}
