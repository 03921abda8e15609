//! The few D-Bus calls the sandbox needs (bus readiness, name ownership, the AT-SPI bus address,
//! registry children and states), on a private current-thread tokio runtime that lives on its own
//! thread: the blocking `Sandbox` API then works both from plain threads and from inside another
//! tokio runtime. Connections are always made by address, never to the caller's session bus.

use std::future::Future;
use std::time::Duration;

use zbus::zvariant::OwnedObjectPath;
use zbus::Connection;

use crate::SandboxError;

/// Well-known name of the AT-SPI bus launcher on the session bus.
pub(crate) const A11Y_BUS_NAME: &str = "org.a11y.Bus";
/// Well-known name of the AT-SPI registry on the a11y bus.
pub(crate) const REGISTRY_NAME: &str = "org.a11y.atspi.Registry";
/// Object path of the registry's (and every application's) root accessible.
pub(crate) const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
const ACCESSIBLE_IFACE: &str = "org.a11y.atspi.Accessible";
const DBUS_NAME: &str = "org.freedesktop.DBus";
const DBUS_PATH: &str = "/org/freedesktop/DBus";

/// AT-SPI `STATE_SHOWING` bit (in the first word of `GetState`).
pub(crate) const STATE_SHOWING: u32 = 25;

/// Runs `make()`'s future to completion on a fresh current-thread runtime on a scoped thread.
pub(crate) fn block_on<T, F, Fut>(make: F) -> Result<T, SandboxError>
where
    T: Send,
    F: FnOnce() -> Fut + Send,
    Fut: Future<Output = Result<T, SandboxError>>,
{
    std::thread::scope(|s| {
        s.spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| SandboxError::io("building tokio runtime", e))?;
            rt.block_on(make())
        })
        .join()
        .unwrap_or_else(|_| Err(SandboxError::dbus("worker thread", "panicked")))
    })
}

/// Connects to the bus at `address` (a D-Bus address string) and says Hello.
pub(crate) async fn connect(address: &str) -> Result<Connection, SandboxError> {
    zbus::connection::Builder::address(address)
        .map_err(|e| SandboxError::dbus(format!("address {address}"), e))?
        .method_timeout(Duration::from_secs(5))
        .build()
        .await
        .map_err(|e| SandboxError::dbus(format!("connecting to {address}"), e))
}

async fn call<B, R>(
    conn: &Connection,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<R, SandboxError>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
    R: for<'d> zbus::zvariant::DynamicDeserialize<'d>,
{
    let ctx = || format!("{dest} {path} {iface}.{method}");
    let msg = conn
        .call_method(Some(dest), path, Some(iface), method, body)
        .await
        .map_err(|e| SandboxError::dbus(ctx(), e))?;
    msg.body()
        .deserialize::<R>()
        .map_err(|e| SandboxError::dbus(ctx(), e))
}

/// `org.freedesktop.DBus.NameHasOwner`.
pub(crate) async fn name_has_owner(conn: &Connection, name: &str) -> Result<bool, SandboxError> {
    call(
        conn,
        DBUS_NAME,
        DBUS_PATH,
        DBUS_NAME,
        "NameHasOwner",
        &(name,),
    )
    .await
}

/// `org.freedesktop.DBus.GetConnectionUnixProcessID`.
pub(crate) async fn unix_pid(conn: &Connection, name: &str) -> Result<u32, SandboxError> {
    call(
        conn,
        DBUS_NAME,
        DBUS_PATH,
        DBUS_NAME,
        "GetConnectionUnixProcessID",
        &(name,),
    )
    .await
}

/// `org.freedesktop.DBus.StartServiceByName` (asks the bus to activate `name`).
pub(crate) async fn start_service(conn: &Connection, name: &str) -> Result<u32, SandboxError> {
    call(
        conn,
        DBUS_NAME,
        DBUS_PATH,
        DBUS_NAME,
        "StartServiceByName",
        &(name, 0u32),
    )
    .await
}

/// `org.a11y.Bus.GetAddress`: only call once the launcher owns the name (otherwise the session
/// bus would auto-activate a second launcher).
pub(crate) async fn a11y_address(session: &Connection) -> Result<String, SandboxError> {
    call(
        session,
        A11Y_BUS_NAME,
        "/org/a11y/bus",
        A11Y_BUS_NAME,
        "GetAddress",
        &(),
    )
    .await
}

/// `org.a11y.atspi.Accessible.GetChildren` of `(bus, path)`.
pub(crate) async fn children(
    conn: &Connection,
    bus: &str,
    path: &str,
) -> Result<Vec<(String, OwnedObjectPath)>, SandboxError> {
    call(conn, bus, path, ACCESSIBLE_IFACE, "GetChildren", &()).await
}

/// `org.a11y.atspi.Accessible.GetState` of `(bus, path)`: the state bit set, as words.
pub(crate) async fn state(
    conn: &Connection,
    bus: &str,
    path: &str,
) -> Result<Vec<u32>, SandboxError> {
    call(conn, bus, path, ACCESSIBLE_IFACE, "GetState", &()).await
}

/// `org.a11y.atspi.Accessible.GetRole` of `(bus, path)`.
pub(crate) async fn role(conn: &Connection, bus: &str, path: &str) -> Result<u32, SandboxError> {
    call(conn, bus, path, ACCESSIBLE_IFACE, "GetRole", &()).await
}

/// True if bit `bit` is set in an AT-SPI state set.
pub(crate) fn has_state(words: &[u32], bit: u32) -> bool {
    let (word, shift) = ((bit / 32) as usize, bit % 32);
    words.get(word).is_some_and(|w| w & (1 << shift) != 0)
}

pub(crate) use uidriver_bus_address::without_guid;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_bits() {
        assert!(has_state(&[1 << 25, 0], STATE_SHOWING));
        assert!(!has_state(&[1 << 24, 0], STATE_SHOWING));
        assert!(has_state(&[0, 1], 32));
        assert!(!has_state(&[], STATE_SHOWING));
    }
}
