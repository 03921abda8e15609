//! `org.a11y.atspi.Action` (per object): the named actions a widget offers (`click`,
//! `activate`, `toggle`, `expand or contract`). Listing them is observation; `DoAction` is for
//! acting.

use zbus::zvariant::OwnedValue;

use super::connection::Caller;
use super::{Obj, PROPERTIES};
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Action";

/// Action names in platform order, as `GetName(i)` gives them (`click`, `press`, `activate`):
/// the count from the `NActions` property, then one `GetName(i)` per action, sent together.
/// A rule for every toolkit, in looks and in acting.
///
/// `GetActions` is never sent. at-spi2-atk answers it by fetching an action's name,
/// description and key binding before marshalling them, and Gecko's three getters return
/// pointers into one shared string (`AccessibleWrap::ReturnString`): the first two dangle by
/// then, and libdbus aborts the app on their invalid UTF-8, or it dies of SIGSEGV
/// (Thunderbird and Firefox ESR 153 with a menu open: 5 of 6 looks killed Thunderbird). When it
/// survives, all three read as the key binding (`N;`). `GetActions`' first field is also the
/// localized name, translated under another locale, and Chromium leaves it empty. `GetName(i)`
/// returns one string, read before it is marshalled.
pub(crate) async fn names(c: &Caller, o: &Obj) -> Result<Vec<String>, LinuxError> {
    let count = count(c, o).await?.clamp(0, MAX_ACTIONS);
    let calls = (0..count).map(|i| async move {
        c.call::<_, String>(&o.bus, &o.path, IFACE, "GetName", &(i,))
            .await
    });
    futures_util::future::join_all(calls)
        .await
        .into_iter()
        .collect()
}

/// The number of actions: the `NActions` property.
async fn count(c: &Caller, o: &Obj) -> Result<i32, LinuxError> {
    let v: OwnedValue = c
        .call(&o.bus, &o.path, PROPERTIES, "Get", &(IFACE, "NActions"))
        .await?;
    i32::try_from(&v).map_err(|e| LinuxError::Dbus(e.into()))
}

/// More actions than any widget has: a bound on the calls one listing makes.
const MAX_ACTIONS: i32 = 32;

/// Runs action `index`; whether the toolkit reported success.
///
/// The answer is delivery, not proof: at-spi2-atk replies before it runs the action (so a
/// handler that opens a modal dialog cannot block the reply), but then runs it inside the
/// call's D-Bus dispatch: GTK 3 runs a button's or menu item's handler right there, and one
/// that runs a modal dialog leaves the app deaf until it closes (`act/nested.rs`); GTK 4
/// applies it after replying. The effect is checked by reading back (`act/verify.rs`).
pub(crate) async fn do_action(c: &Caller, o: &Obj, index: i32) -> Result<bool, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "DoAction", &(index,)).await
}
