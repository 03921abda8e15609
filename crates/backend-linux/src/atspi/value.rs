//! `org.a11y.atspi.Value` (per object): numeric value and range of sliders, spin buttons and
//! progress bars, and setting it (`CurrentValue` is a writable property).

use std::collections::HashMap;

use zbus::zvariant::OwnedValue;

use super::connection::Caller;
use super::{Obj, PROPERTIES};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Value";

/// Current, minimum, maximum and minimum increment, read in one `GetAll`.
pub(crate) async fn value(c: &Caller, o: &Obj) -> Result<(f64, f64, f64, f64), LinuxError> {
    let all: HashMap<String, OwnedValue> = c
        .call(&o.bus, &o.path, PROPERTIES, "GetAll", &(IFACE,))
        .await?;
    let f = |k: &str| {
        all.get(k)
            .and_then(|v| f64::try_from(v).ok())
            .unwrap_or(0.0)
    };
    Ok((
        f("CurrentValue"),
        f("MinimumValue"),
        f("MaximumValue"),
        f("MinimumIncrement"),
    ))
}

/// Writes `CurrentValue`. The toolkit may clamp or round it to its step: read it back.
pub(crate) async fn set_current(c: &Caller, o: &Obj, v: f64) -> Result<(), LinuxError> {
    let value = zbus::zvariant::Value::F64(v);
    c.call::<_, ()>(
        &o.bus,
        &o.path,
        PROPERTIES,
        "Set",
        &(IFACE, "CurrentValue", value),
    )
    .await
}

/// Reads `CurrentValue` alone.
pub(crate) async fn current(c: &Caller, o: &Obj) -> Result<f64, LinuxError> {
    let v: OwnedValue = c
        .call(&o.bus, &o.path, PROPERTIES, "Get", &(IFACE, "CurrentValue"))
        .await?;
    f64::try_from(&v).map_err(|e| LinuxError::Dbus(e.into()))
}
