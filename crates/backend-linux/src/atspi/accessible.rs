//! `org.a11y.atspi.Accessible` (on every object's own path): children, role, states,
//! interfaces, name and the other properties a node is described by.

use std::collections::HashMap;

use zbus::zvariant::OwnedValue;

use super::connection::Caller;
use super::{Ifaces, Obj, States, WireRef, PROPERTIES};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Accessible";

/// The children of an object, in order (null references dropped).
pub(crate) async fn children(c: &Caller, o: &Obj) -> Result<Vec<Obj>, LinuxError> {
    let kids: Vec<WireRef> = c.call(&o.bus, &o.path, IFACE, "GetChildren", &()).await?;
    Ok(kids
        .into_iter()
        .map(Obj::from)
        .filter(|k| !k.is_null())
        .collect())
}

/// One child by index (used for containers that manage their descendants, where `GetChildren`
/// would make the toolkit create an accessible for every row).
pub(crate) async fn child_at(c: &Caller, o: &Obj, index: i32) -> Result<Option<Obj>, LinuxError> {
    let k: WireRef = c
        .call(&o.bus, &o.path, IFACE, "GetChildAtIndex", &(index,))
        .await?;
    let k = Obj::from(k);
    Ok((!k.is_null()).then_some(k))
}

/// The role number (`ATSPI_ROLE_*`).
pub(crate) async fn role(c: &Caller, o: &Obj) -> Result<u32, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GetRole", &()).await
}

/// The state bitfield.
pub(crate) async fn states(c: &Caller, o: &Obj) -> Result<States, LinuxError> {
    let words: Vec<u32> = c.call(&o.bus, &o.path, IFACE, "GetState", &()).await?;
    Ok(States::from_words(&words))
}

/// The interfaces the object implements.
pub(crate) async fn interfaces(c: &Caller, o: &Obj) -> Result<Ifaces, LinuxError> {
    let names: Vec<String> = c.call(&o.bus, &o.path, IFACE, "GetInterfaces", &()).await?;
    Ok(Ifaces::from_names(&names))
}

/// Object attributes (`toolkit`, Chromium's DOM `id`, ...).
pub(crate) async fn attributes(c: &Caller, o: &Obj) -> Result<HashMap<String, String>, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GetAttributes", &()).await
}

/// The index of the object in its parent.
pub(crate) async fn index_in_parent(c: &Caller, o: &Obj) -> Result<i32, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GetIndexInParent", &())
        .await
}

/// The `Accessible` properties uidriver reads, fetched in one `GetAll`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Props {
    pub name: String,
    pub description: String,
    pub child_count: i32,
    pub accessible_id: String,
}

/// Reads name, description, child count and accessible id in one call.
pub(crate) async fn props(c: &Caller, o: &Obj) -> Result<Props, LinuxError> {
    let all: HashMap<String, OwnedValue> = c
        .call(&o.bus, &o.path, PROPERTIES, "GetAll", &(IFACE,))
        .await?;
    let text = |k: &str| {
        all.get(k)
            .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
            .unwrap_or_default()
    };
    Ok(Props {
        name: text("Name"),
        description: text("Description"),
        child_count: all
            .get("ChildCount")
            .and_then(|v| i32::try_from(v).ok())
            .unwrap_or(0),
        accessible_id: text("AccessibleId"),
    })
}

/// Reads one string property of the `Accessible` interface.
pub(crate) async fn string_prop(c: &Caller, o: &Obj, prop: &str) -> Result<String, LinuxError> {
    let v: OwnedValue = c
        .call(&o.bus, &o.path, PROPERTIES, "Get", &(IFACE, prop))
        .await?;
    String::try_from(v).map_err(|e| LinuxError::Dbus(e.into()))
}

/// The name.
pub(crate) async fn name(c: &Caller, o: &Obj) -> Result<String, LinuxError> {
    string_prop(c, o, "Name").await
}
