//! A connection to the accessibility bus, and [`Caller`], through which every AT-SPI call of one
//! operation goes (timeouts, concurrency limit, call count). Replacing a connection whose bus
//! died is `link.rs`'s job; this file only says so: a call on a closed connection is
//! [`LinuxError::BusLost`], never an app's failure.
//!
//! Bus discovery follows at-spi2-core: `AT_SPI_BUS_ADDRESS` first, else `org.a11y.Bus.GetAddress`
//! on the session bus, asked only once the launcher owns `org.a11y.Bus` (calling an unowned name
//! would make the session bus activate a second launcher). The connection is an ordinary bus
//! connection (no peer-to-peer: some apps advertise sockets they never serve).

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::Semaphore;
use tracing::{debug, trace};
use uidriver_core::Deadline;
use zbus::zvariant::{DynamicType, Type};

use crate::error::{classify, LinuxError};

/// How long `connect` waits for `org.a11y.Bus` to get an owner.
pub(crate) const LAUNCHER_WAIT: Duration = Duration::from_secs(5);

/// The accessibility bus connection.
#[derive(Clone, Debug)]
pub(crate) struct A11yBus {
    conn: zbus::Connection,
    address: String,
}

impl A11yBus {
    /// Connects to `address`, or discovers the bus through the session bus at `session` (or the
    /// default session bus when `None`), waiting up to [`LAUNCHER_WAIT`] for the launcher.
    pub(crate) async fn connect(
        address: Option<&str>,
        session: Option<&str>,
    ) -> Result<A11yBus, LinuxError> {
        Self::connect_within(address, session, LAUNCHER_WAIT).await
    }

    /// [`A11yBus::connect`], waiting at most `wait` for `org.a11y.Bus` to get an owner.
    pub(crate) async fn connect_within(
        address: Option<&str>,
        session: Option<&str>,
        wait: Duration,
    ) -> Result<A11yBus, LinuxError> {
        let address = match address.filter(|a| !a.is_empty()) {
            Some(a) => a.to_string(),
            None => discover(session, wait).await?,
        };
        // A deep queue: event bursts (a page load emits thousands of signals) must not stall
        // method replies, which share the connection's reader.
        let conn = zbus::connection::Builder::address(address.as_str())
            .map_err(|e| LinuxError::NoAccessibilityBus(format!("{address}: {e}")))?
            .max_queued(4096)
            .build()
            .await
            // zbus names the address ("Failed to connect to address `…`: Connection refused").
            .map_err(|e| LinuxError::NoAccessibilityBus(e.to_string()))?;
        debug!(%address, "connected to the accessibility bus");
        Ok(A11yBus { conn, address })
    }

    /// The zbus connection.
    pub(crate) fn conn(&self) -> &zbus::Connection {
        &self.conn
    }

    /// The bus address.
    pub(crate) fn address(&self) -> &str {
        &self.address
    }

    /// Whether the connection is closed for good (the bus daemon exited or the socket broke):
    /// zbus never reopens a connection, so every later call on it fails.
    pub(crate) fn is_closed(&self) -> bool {
        self.conn.is_closed()
    }

    /// The error for a failure `e` on this connection: [`LinuxError::BusLost`] once the
    /// connection is closed or its socket failed, else what `classify` makes of it. (zbus fails
    /// the waiting calls with the socket's I/O error a moment before it marks the connection
    /// closed, so the error itself counts too.)
    pub(crate) fn explain(&self, e: zbus::Error, what: impl FnOnce() -> String) -> LinuxError {
        if self.is_closed() || matches!(e, zbus::Error::InputOutput(_)) {
            return self.lost(&e.to_string());
        }
        classify(e, what)
    }

    /// [`LinuxError::BusLost`] naming this bus and `reason`.
    pub(crate) fn lost(&self, reason: &str) -> LinuxError {
        LinuxError::BusLost(format!("{} ({reason})", self.address))
    }

    /// A caller for one operation.
    pub(crate) fn caller(
        &self,
        deadline: Deadline,
        per_call: Duration,
        in_flight: usize,
    ) -> Caller {
        Caller {
            bus: self.clone(),
            calls: AtomicU32::new(0),
            limit: Semaphore::new(in_flight.max(1)),
            deadline,
            per_call,
        }
    }

    /// Pid of the process owning a bus name, from the bus daemon (answers even when the app is
    /// stopped).
    pub(crate) async fn pid_of(&self, bus: &str, timeout: Duration) -> Result<u32, LinuxError> {
        let body = (bus,);
        let call = self.conn.call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus"),
            "GetConnectionUnixProcessID",
            &body,
        );
        let msg = match tokio::time::timeout(timeout, call).await {
            Ok(r) => r.map_err(|e| self.explain(e, || format!("pid of {bus}")))?,
            Err(_) if self.is_closed() => return Err(self.lost("no reply")),
            Err(_) => {
                return Err(LinuxError::Unresponsive {
                    what: "the accessibility bus daemon".into(),
                    timeout,
                })
            }
        };
        Ok(msg.body().deserialize::<u32>()?)
    }
}

pub(crate) use uidriver_bus_address::without_guid;

async fn discover(session: Option<&str>, wait: Duration) -> Result<String, LinuxError> {
    let unavailable = |e: zbus::Error| LinuxError::NoAccessibilityBus(format!("session bus: {e}"));
    let conn = match session.filter(|s| !s.is_empty()) {
        Some(a) => zbus::connection::Builder::address(a)
            .map_err(unavailable)?
            .build()
            .await
            .map_err(unavailable)?,
        None => zbus::Connection::session().await.map_err(unavailable)?,
    };
    let waited = tokio::time::Instant::now();
    loop {
        let reply = conn
            .call_method(
                Some("org.freedesktop.DBus"),
                "/org/freedesktop/DBus",
                Some("org.freedesktop.DBus"),
                "NameHasOwner",
                &("org.a11y.Bus",),
            )
            .await
            .map_err(unavailable)?;
        if reply.body().deserialize::<bool>().map_err(unavailable)? {
            break;
        }
        if waited.elapsed() >= wait {
            return Err(LinuxError::NoAccessibilityBus(
                "org.a11y.Bus has no owner (is at-spi-bus-launcher running?)".into(),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let reply = conn
        .call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.a11y.Bus"),
            "GetAddress",
            &(),
        )
        .await
        .map_err(unavailable)?;
    reply.body().deserialize::<String>().map_err(unavailable)
}

/// Every AT-SPI call of one operation goes through one `Caller`: it bounds each call by the
/// per-call timeout and the operation's deadline, caps the calls in flight (64 by default: more
/// only queues inside the app's single-threaded main loop), and counts calls for `Timings`.
pub(crate) struct Caller {
    bus: A11yBus,
    calls: AtomicU32,
    limit: Semaphore,
    deadline: Deadline,
    per_call: Duration,
}

impl Caller {
    /// Calls made so far.
    pub(crate) fn calls(&self) -> u32 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Calls a method with the default per-call timeout and decodes the reply body.
    pub(crate) async fn call<B, R>(
        &self,
        dest: &str,
        path: &str,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, LinuxError>
    where
        B: Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        self.call_within(self.per_call, dest, path, iface, method, body)
            .await
    }

    /// Like [`Caller::call`] with a specific timeout (still capped by the deadline).
    pub(crate) async fn call_within<B, R>(
        &self,
        timeout: Duration,
        dest: &str,
        path: &str,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, LinuxError>
    where
        B: Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        let msg = self
            .message_within(timeout, dest, path, iface, method, body)
            .await?;
        msg.body().deserialize::<R>().map_err(LinuxError::Dbus)
    }

    /// Like [`Caller::call_within`], returning the reply message undecoded (a large reply a
    /// caller decodes itself).
    pub(crate) async fn message_within<B>(
        &self,
        timeout: Duration,
        dest: &str,
        path: &str,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<zbus::Message, LinuxError>
    where
        B: Serialize + DynamicType,
    {
        let what = || format!("{iface}.{method} on {dest}:{path}");
        // Waiting for a permit is bounded by the deadline only: a call queued behind 64 others is
        // not evidence that the app is stuck.
        let permit = match with_timeout(self.deadline.remaining(), self.limit.acquire()).await {
            Some(Ok(p)) => p,
            _ => return Err(LinuxError::Deadline(what())),
        };
        let timeout = timeout.min(self.deadline.remaining());
        if timeout.is_zero() {
            return Err(LinuxError::Deadline(what()));
        }
        self.calls.fetch_add(1, Ordering::Relaxed);
        trace!(dest, path, iface, method, "call");
        let call = self
            .bus
            .conn
            .call_method(Some(dest), path, Some(iface), method, body);
        let reply = with_timeout(timeout, call).await;
        drop(permit);
        match reply {
            Some(Ok(msg)) => Ok(msg),
            Some(Err(e)) => Err(self.bus.explain(e, what)),
            None if self.bus.is_closed() => Err(self.bus.lost("no reply")),
            None if self.deadline.expired() => Err(LinuxError::Deadline(what())),
            None => Err(LinuxError::Unresponsive {
                what: what(),
                timeout,
            }),
        }
    }
}

async fn with_timeout<F: Future>(d: Duration, f: F) -> Option<F::Output> {
    tokio::time::timeout(d, f).await.ok()
}
