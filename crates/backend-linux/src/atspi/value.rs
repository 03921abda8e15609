//! `org.a11y.atspi.Value` (per object): numeric value and range of sliders, spin buttons and
//! progress bars. Setting it (`CurrentValue` write) is for acting.

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
