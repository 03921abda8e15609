//! `org.a11y.atspi.Component` (per object): where an object is on screen, and hit-testing.
//! Acting gives focus through it (`GrabFocus`).

use super::connection::Caller;
use super::{Obj, WireRef};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Component";

/// `ATSPI_COORD_TYPE_SCREEN`.
pub(crate) const COORD_SCREEN: u32 = 0;

/// The object's rectangle `(x, y, width, height)` in `coord` coordinates.
pub(crate) async fn extents(
    c: &Caller,
    o: &Obj,
    coord: u32,
) -> Result<(i32, i32, i32, i32), LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GetExtents", &(coord,))
        .await
}

/// The deepest child of `o` at a point (`None` when there is none).
pub(crate) async fn accessible_at_point(
    c: &Caller,
    o: &Obj,
    x: i32,
    y: i32,
    coord: u32,
) -> Result<Option<Obj>, LinuxError> {
    let r: WireRef = c
        .call(
            &o.bus,
            &o.path,
            IFACE,
            "GetAccessibleAtPoint",
            &(x, y, coord),
        )
        .await?;
    let r = Obj::from(r);
    Ok((!r.is_null()).then_some(r))
}

/// Gives the object keyboard focus; whether the toolkit accepted.
///
/// GTK 3 also presents the object's window (`gtk_window_present_with_time`), so this raises
/// and activates it: never call it under the headless policy. GTK 4.8 does not implement it.
pub(crate) async fn grab_focus(c: &Caller, o: &Obj) -> Result<bool, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GrabFocus", &()).await
}
