//! AT-SPI events: registration with the registry, and one task that reads them off the bus and
//! fans them out on a broadcast channel.
//!
//! Registering matters beyond `wait_change`: the GTK3/ATK bridge only emits events, and only
//! serves `Cache.GetItems`, once some client has registered a listener with the registry.
//! The reader task does no work per event beyond copying the sender, so a burst (a page load
//! emits thousands) cannot hold up method replies that share the connection.

use std::sync::Arc;

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

/// One event, reduced to what waiters need.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    /// Unique bus name of the application that sent it.
    pub sender: Arc<str>,
    /// `Object`, `Window` or `Focus` (the last part of the signal interface).
    pub class: &'static str,
    /// The signal name (`ChildrenChanged`, `StateChanged`, `TextChanged`, ...).
    pub member: Arc<str>,
}

/// The event fan-out. Dropping it stops the reader task (whose match-rule streams would
/// otherwise keep the bus connection open for the life of the runtime).
#[derive(Debug)]
pub(crate) struct Events {
    tx: broadcast::Sender<Event>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Events {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Events {
    /// Registers listeners with the registry, adds the match rules and starts the reader task.
    pub(crate) async fn start(bus: &A11yBus) -> Result<Events, LinuxError> {
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
        for class in CLASSES {
            // at-spi2-core 2.46: RegisterEvent(s event, as properties, s app_bus_name) on
            // /org/a11y/atspi/registry; "" registers for every application.
            let body = (*class, Vec::<String>::new(), "");
            conn.call_method(
                Some(REGISTRY),
                REGISTRY_PATH,
                Some("org.a11y.atspi.Registry"),
                "RegisterEvent",
                &body,
            )
            .await
            .map_err(|e| crate::error::classify(e, || format!("RegisterEvent {class}")))?;
        }
        let (tx, _) = broadcast::channel(DEPTH);
        let sender = tx.clone();
        let mut all = futures_util::stream::select_all(streams);
        let reader = tokio::spawn(async move {
            while let Some((class, msg)) = all.next().await {
                let Ok(msg) = msg else { continue };
                let header = msg.header();
                let (Some(from), Some(member)) = (header.sender(), header.member()) else {
                    continue;
                };
                // No receivers is normal (nobody waiting); the send result is irrelevant.
                let _ = sender.send(Event {
                    sender: Arc::from(from.as_str()),
                    class,
                    member: Arc::from(member.as_str()),
                });
            }
            debug!("AT-SPI event stream ended");
        });
        Ok(Events { tx, reader })
    }

    /// A new receiver of every later event.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.tx.subscribe()
    }
}

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
