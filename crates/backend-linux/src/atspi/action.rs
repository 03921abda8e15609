//! `org.a11y.atspi.Action` (per object): the named actions a widget offers (`click`,
//! `activate`, `toggle`, `expand or contract`). Listing them is observation; `DoAction` is for
//! acting.

use super::connection::Caller;
use super::Obj;
use crate::error::LinuxError;

const IFACE: &str = "org.a11y.atspi.Action";

/// Action names in platform order, as `GetName(i)` gives them: the names a program matches
/// (`click`, `press`). `GetActions` answers `a(sss)` of localized name, description and key
/// binding, so its first field is translated under another locale, and Chromium leaves it empty.
pub(crate) async fn names(c: &Caller, o: &Obj) -> Result<Vec<String>, LinuxError> {
    let listed: Vec<(String, String, String)> =
        c.call(&o.bus, &o.path, IFACE, "GetActions", &()).await?;
    let count = (listed.len() as i32).min(MAX_ACTIONS);
    let calls = (0..count).map(|i| async move {
        c.call::<_, String>(&o.bus, &o.path, IFACE, "GetName", &(i,))
            .await
    });
    futures_util::future::join_all(calls)
        .await
        .into_iter()
        .collect()
}

/// Action names for a look, in one call where it can: `GetActions`' first field (the
/// localized name, which is the name in an English session), with `GetName(i)` asked only for
/// the entries it leaves empty (Chromium). Acting matches names with [`names`], which asks
/// `GetName` for each.
pub(crate) async fn listed_names(c: &Caller, o: &Obj) -> Result<Vec<String>, LinuxError> {
    let listed: Vec<(String, String, String)> =
        c.call(&o.bus, &o.path, IFACE, "GetActions", &()).await?;
    let mut out = Vec::with_capacity(listed.len());
    for (i, (name, _, _)) in listed.into_iter().enumerate().take(MAX_ACTIONS as usize) {
        if name.is_empty() {
            out.push(
                c.call::<_, String>(&o.bus, &o.path, IFACE, "GetName", &(i as i32,))
                    .await?,
            );
        } else {
            out.push(name);
        }
    }
    Ok(out)
}

/// More actions than any widget has: a bound on the calls one listing makes.
const MAX_ACTIONS: i32 = 32;

/// Runs action `index`; whether the toolkit reported success.
///
/// The answer is delivery, not proof: at-spi2-atk replies before it runs the action (so a
/// handler that opens a modal dialog cannot block the reply), and GTK queues the click for an
/// idle callback; GTK 4 likewise applies it after replying. The effect is checked by reading
/// back (`act/verify.rs`).
pub(crate) async fn do_action(c: &Caller, o: &Obj, index: i32) -> Result<bool, LinuxError> {
    c.call(&o.bus, &o.path, IFACE, "DoAction", &(index,)).await
}
