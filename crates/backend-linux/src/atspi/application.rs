//! `org.a11y.atspi.Application` (on each app's root path): which toolkit drew the app. uidriver
//! needs it for toolkit quirks: GTK 4 reports window-relative extents, Chromium's web content
//! is deep and carries DOM ids in attributes.

use zbus::zvariant::OwnedValue;

use super::connection::Caller;
use super::{PROPERTIES, ROOT_PATH};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Application";

/// Toolkit name and version (`("gtk", "3.24.38")`, `("GTK", "4.8.3")`, `("Chromium", "1.0")`).
///
/// Read property by property: GTK3's bridge fails the whole `GetAll` because `Id` is unavailable.
pub(crate) async fn toolkit(c: &Caller, bus: &str) -> Result<(String, String), LinuxError> {
    let get = |prop: &'static str| async move {
        let v: OwnedValue = c
            .call(bus, ROOT_PATH, PROPERTIES, "Get", &(IFACE, prop))
            .await?;
        String::try_from(v).map_err(|e| LinuxError::Dbus(e.into()))
    };
    let (name, version) = tokio::join!(get("ToolkitName"), get("Version"));
    Ok((name?, version.unwrap_or_default()))
}
