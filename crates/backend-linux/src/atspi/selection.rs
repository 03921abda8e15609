//! `org.a11y.atspi.Selection` (per object): which children of a container are selected (combo
//! box items, page tabs, list rows), and selecting one without pointer input.
//!
//! Indices are child indices of the container. A GTK 3 combo box counts the items of its
//! (hidden) menu child, not its own children: `SelectChild(1)` picks the menu's second item.

use super::connection::Caller;
use super::{Obj, WireRef};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Selection";

/// Selects child `index`; whether the toolkit accepted.
pub(crate) async fn select_child(c: &Caller, o: &Obj, index: i32) -> Result<bool, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "SelectChild", &(index,))
        .await
}

/// The `n`-th selected child (`None` when fewer are selected).
pub(crate) async fn selected_child(c: &Caller, o: &Obj, n: i32) -> Result<Option<Obj>, LinuxError> {
    let r: WireRef = c
        .call(&o.bus, &o.path, IFACE, "GetSelectedChild", &(n,))
        .await?;
    let r = Obj::from(r);
    Ok((!r.is_null()).then_some(r))
}
