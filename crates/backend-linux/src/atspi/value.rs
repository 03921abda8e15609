//! `org.a11y.atspi.Value` (per object): numeric value and range of sliders, spin buttons and
//! progress bars, and setting it (`CurrentValue` is a writable property).

use std::collections::HashMap;

use zbus::zvariant::OwnedValue;

use super::accessible::PropReads;
use super::connection::Caller;
use super::{Obj, PROPERTIES};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Value";

/// Current, minimum, maximum and minimum increment, read in one `GetAll` or one `Get` each
/// (see [`PropReads`]; Gecko's one by one: `Toolkit::value_reads`). A property the bridge
/// cannot answer fails the read (Gecko's `MinimumValue` of NaN).
pub(crate) async fn value(
    c: &Caller,
    o: &Obj,
    how: PropReads,
) -> Result<(f64, f64, f64, f64), LinuxError> {
    if how == PropReads::OneByOne {
        let (cur, min, max, step) = tokio::join!(
            number(c, o, "CurrentValue"),
            number(c, o, "MinimumValue"),
            number(c, o, "MaximumValue"),
            number(c, o, "MinimumIncrement"),
        );
        return Ok((cur?, min?, max?, step?));
    }
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
    number(c, o, "CurrentValue").await
}

/// Reads one number property of the `Value` interface.
async fn number(c: &Caller, o: &Obj, prop: &str) -> Result<f64, LinuxError> {
    let v: OwnedValue = c
        .call(&o.bus, &o.path, PROPERTIES, "Get", &(IFACE, prop))
        .await?;
    f64::try_from(&v).map_err(|e| LinuxError::Dbus(e.into()))
}
