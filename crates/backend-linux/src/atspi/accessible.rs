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

/// `ATSPI_RELATION_LABELLED_BY`: the targets are the labels that name the object.
pub(crate) const LABELLED_BY: u32 = 2;

/// The objects of one relation of `o` (`LABELLED_BY`, ...), in the toolkit's order.
pub(crate) async fn related(c: &Caller, o: &Obj, kind: u32) -> Result<Vec<Obj>, LinuxError> {
    let set: Vec<(u32, Vec<WireRef>)> = c
        .call(&o.bus, &o.path, IFACE, "GetRelationSet", &())
        .await?;
    Ok(set
        .into_iter()
        .filter(|(k, _)| *k == kind)
        .flat_map(|(_, t)| t.into_iter().map(Obj::from))
        .filter(|t| !t.is_null())
        .collect())
}

/// The names of the objects that label a control (`labelled-by`, at most 4), as they answer;
/// `mapping::label_from` makes a name of them.
pub(crate) async fn label_names(c: &Caller, o: &Obj) -> Result<Vec<String>, LinuxError> {
    let labels = related(c, o, LABELLED_BY).await?;
    let mut names = Vec::new();
    for l in labels.iter().take(4) {
        names.push(name(c, l).await.unwrap_or_default());
    }
    Ok(names)
}

/// The index of the object in its parent.
pub(crate) async fn index_in_parent(c: &Caller, o: &Obj) -> Result<i32, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "GetIndexInParent", &())
        .await
}

/// How an application's bridge is asked for properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PropReads {
    /// One `Properties.GetAll` per interface (the ATK bridge, GTK 4, Chromium).
    All,
    /// One `Properties.Get` per property, sent together. Qt's bridge dies (SIGSEGV, Qt 5.15)
    /// on `GetAll` of its root object and refuses it on every other one; toolkits not known
    /// to answer `GetAll` are read this way too, since a crash loses the user's work.
    OneByOne,
}

/// The `Accessible` properties uidriver reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Props {
    pub name: String,
    pub description: String,
    pub child_count: i32,
    pub accessible_id: String,
}

/// Reads name, description, child count and accessible id: one `GetAll`, or one `Get` each
/// (an `AccessibleId` the bridge does not have is empty, as Qt 5 answers).
pub(crate) async fn props(c: &Caller, o: &Obj, how: PropReads) -> Result<Props, LinuxError> {
    if how == PropReads::OneByOne {
        let count = async {
            let v: OwnedValue = c
                .call(&o.bus, &o.path, PROPERTIES, "Get", &(IFACE, "ChildCount"))
                .await?;
            i32::try_from(&v).map_err(|e| LinuxError::Dbus(e.into()))
        };
        let (name, description, child_count, id) = tokio::join!(
            string_prop(c, o, "Name"),
            string_prop(c, o, "Description"),
            count,
            string_prop(c, o, "AccessibleId"),
        );
        let id = match id {
            Err(e) if e.is_unresponsive() || e.is_app_gone() => return Err(e),
            other => other.unwrap_or_default(),
        };
        return Ok(Props {
            name: name?,
            description: description?,
            child_count: child_count?,
            accessible_id: id,
        });
    }
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
