//! What is read for each showing node beyond the tree: extents, text (as a value for editable
//! text, as content for nameless text leaves), numeric value, action names and Chromium's DOM
//! id — all in parallel, each only when the node has the interface. Deciding which nodes get
//! details is `observe.rs`; turning them into core fields is `to_node` there.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use uidriver_core::{Bounds, Evidence, NumericValue};

use crate::atspi::connection::Caller;
use crate::atspi::events::Event;
use crate::atspi::{accessible, action, component, text, value, Ifaces, Obj, States};
use crate::error::LinuxError;
use crate::mapping::{self, role};
use crate::origin::Placement;
use crate::roots::Toolkit;

/// Characters of text read into a node's value (the rest is `read_text`'s job).
const VALUE_CHARS: i32 = 200;
/// What a password's value reads as.
const REDACTED: &str = "••••";

/// Facts that do not change for the life of an object, remembered across observations so a
/// repeated look costs fewer calls: action names (a GTK3 button's `click` never changes), the
/// interfaces it implements (fixed by its toolkit type when it is created) and its role (fixed
/// too; a toolkit that changes one announces it with a `PropertyChange accessible-role` event,
/// which forgets it — see [`Memo::on_event`]). Object paths are not reused while the app runs.
/// Bounded; each table is forgotten wholesale when full.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    actions: Table<Vec<String>>,
    interfaces: Table<Ifaces>,
    roles: Table<u32>,
    /// Bumped (under the roles' lock) each time an event forgets a role. A role read by a call
    /// is stored only if no role was forgotten since the call was sent: the reply and the change
    /// event arrive in order but are handled by different tasks.
    role_forgets: std::sync::atomic::AtomicU64,
    /// Cells of tables that make a new accessible on every `GetAccessibleAt` (LibreOffice
    /// Calc: every look created ~500 objects the app then kept, +3.4 MB of soffice per look),
    /// by `table handle#row:col`, with the name they had: reused while it still has that name.
    cells: Table<(Obj, String)>,
}

/// Entries kept per table before it starts over.
const MEMO_CAP: usize = 100_000;

/// One kind of fact by object handle (`bus:path`). A std mutex: held for one map operation,
/// never across a call.
#[derive(Debug)]
struct Table<T>(Mutex<HashMap<String, T>>);

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table(Mutex::new(HashMap::new()))
    }
}

impl<T: Clone> Table<T> {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, T>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, handle: &str) -> Option<T> {
        self.map().get(handle).cloned()
    }

    fn put(&self, handle: String, value: T) {
        self.put_if(handle, value, || true);
    }

    /// Stores `value` if `still` holds once the table is locked (what could make it stale is
    /// changed under the same lock).
    fn put_if(&self, handle: String, value: T, still: impl FnOnce() -> bool) {
        let mut m = self.map();
        if !still() {
            return;
        }
        if m.len() >= MEMO_CAP {
            m.clear();
        }
        m.insert(handle, value);
    }

    fn forget_prefix(&self, prefix: &str) {
        self.map().retain(|k, _| !k.starts_with(prefix));
    }
}

impl Memo {
    fn actions(&self, handle: &str) -> Option<Vec<String>> {
        self.actions.get(handle)
    }

    fn remember_actions(&self, handle: String, names: &[String]) {
        self.actions.put(handle, names.to_vec());
    }

    pub(crate) fn interfaces(&self, handle: &str) -> Option<Ifaces> {
        self.interfaces.get(handle)
    }

    pub(crate) fn remember_interfaces(&self, handle: String, ifaces: Ifaces) {
        self.interfaces.put(handle, ifaces);
    }

    /// The interfaces `o` implements: remembered, or one `GetInterfaces` (then remembered).
    pub(crate) async fn interfaces_of(&self, c: &Caller, o: &Obj) -> Result<Ifaces, LinuxError> {
        let key = o.to_string();
        if let Some(i) = self.interfaces(&key) {
            return Ok(i);
        }
        let i = accessible::interfaces(c, o).await?;
        self.remember_interfaces(key, i);
        Ok(i)
    }

    /// Whether `o` implements `Text` (false when that cannot be read). Asked before any text
    /// call on an object a look did not read as text: the ATK bridge answers a text call on an
    /// object without it with `impl_GetText: assertion 'ATK_IS_TEXT' failed` in the app, and
    /// Thunderbird aborted after one.
    pub(crate) async fn has_text(&self, c: &Caller, o: &Obj) -> bool {
        self.interfaces_of(c, o)
            .await
            .is_ok_and(|i| i.has(Ifaces::TEXT))
    }

    pub(crate) fn role(&self, handle: &str) -> Option<u32> {
        self.roles.get(handle)
    }

    /// Taken before asking an object's role; hand it back to [`Memo::remember_role`].
    pub(crate) fn role_epoch(&self) -> u64 {
        self.role_forgets.load(Ordering::SeqCst)
    }

    /// Remembers a role read by a call sent at `epoch`, unless an event forgot a role since.
    pub(crate) fn remember_role(&self, handle: String, role: u32, epoch: u64) {
        self.roles.put_if(handle, role, || {
            self.role_forgets.load(Ordering::SeqCst) == epoch
        });
    }

    /// Keeps the memo true to the app: called by the event reader for every event, before
    /// anyone waiting on events sees it.
    pub(crate) fn on_event(&self, ev: &Event) {
        if &*ev.member == "PropertyChange" && &*ev.detail == "accessible-role" {
            let mut m = self.roles.map();
            m.remove(&format!("{}:{}", ev.sender, ev.path));
            self.role_forgets.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The cell of `table` at (`row`, `col`) a look read before, and its name then.
    pub(crate) fn cell(&self, table: &Obj, row: i32, col: i32) -> Option<(Obj, String)> {
        self.cells.get(&format!("{table}#{row}:{col}"))
    }

    pub(crate) fn remember_cell(&self, table: &Obj, row: i32, col: i32, cell: Obj, name: String) {
        self.cells.put(format!("{table}#{row}:{col}"), (cell, name));
    }

    /// Forgets everything about an application (its bus name left the bus).
    pub(crate) fn forget_app(&self, bus: &str) {
        let prefix = format!("{bus}:");
        self.cells.forget_prefix(&prefix);
        self.actions.forget_prefix(&prefix);
        self.interfaces.forget_prefix(&prefix);
        self.roles.forget_prefix(&prefix);
    }
}

/// Facts read only for showing nodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Details {
    pub bounds: Option<Bounds>,
    /// Whether `bounds` was asked for (a missing rectangle then means "none", not "not read").
    pub bounds_read: bool,
    /// Whether the rectangle was answered with no area, even where it cannot be placed on screen
    /// (window-relative extents without the window's origin): GTK4 keeps widgets it does not show (a stack page not
    /// shown, a closed info bar) visible at 0×0.
    pub empty: bool,
    pub value: Evidence<String>,
    pub numeric: Option<NumericValue>,
    pub text_len: Option<u32>,
    pub actions: Vec<String>,
    pub native_id: Option<String>,
    /// Visible text of a nameless text node (web paragraphs, static text).
    pub content: Option<String>,
    /// The name a nameless control's labels give it (`labelled-by`).
    pub label: Option<String>,
}

/// Extents, text, value, actions and (Chromium) DOM id of a showing node, in parallel.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn details(
    c: &Caller,
    obj: &Obj,
    role_n: u32,
    states: States,
    ifaces: Ifaces,
    no_name: bool,
    toolkit: Toolkit,
    placement: Placement,
    memo: &Memo,
    want_bounds: bool,
) -> Result<Details, LinuxError> {
    let bounds = async {
        if !want_bounds || !ifaces.has(Ifaces::COMPONENT) {
            return Ok(None);
        }
        let (x, y, w, h) = component::extents(c, obj, component::COORD_SCREEN).await?;
        let placed = placement.place(Bounds::new(x, y, w, h));
        Ok::<_, LinuxError>(Some((placed, w <= 0 || h <= 0)))
    };
    let want_value = mapping::text_is_value(role_n, states, ifaces);
    let want_content =
        !want_value && no_name && ifaces.has(Ifaces::TEXT) && mapping::text_is_content(role_n);
    let text_f = async {
        if !(want_value || want_content) {
            return Ok(None);
        }
        if mapping::is_password(role_n) {
            // Only whether there is a secret, never its characters.
            return Ok(Some((text::character_count(c, obj).await?, String::new())));
        }
        let (count, t) = text::head(c, obj, VALUE_CHARS).await?;
        Ok::<_, LinuxError>(Some((count, t)))
    };
    let value_f = async {
        if ifaces.has(Ifaces::VALUE) {
            value::value(c, obj, toolkit.value_reads()).await.map(Some)
        } else {
            Ok(None)
        }
    };
    let actions_f = async {
        if !ifaces.has(Ifaces::ACTION) {
            return Ok(Vec::new());
        }
        let key = obj.to_string();
        if let Some(a) = memo.actions(&key) {
            return Ok(a);
        }
        let a = action::names(c, obj).await?;
        memo.remember_actions(key, &a);
        Ok(a)
    };
    let id_f = async {
        // Text leaves never carry a DOM id worth a call each (half of a page's nodes).
        if toolkit == Toolkit::Chromium && !matches!(role_n, role::STATIC | role::LABEL) {
            accessible::attributes(c, obj)
                .await
                .map(|mut a| a.remove("id"))
        } else {
            Ok(None)
        }
    };
    let label_f = async {
        if no_name && mapping::takes_label(role_n) {
            accessible::label_names(c, obj)
                .await
                .map(mapping::label_from)
        } else {
            Ok(None)
        }
    };
    let (bounds, text_r, value_r, actions_r, id_r, label_r) =
        tokio::join!(bounds, text_f, value_f, actions_f, id_f, label_f);
    for r in [
        bounds.as_ref().err(),
        text_r.as_ref().err(),
        value_r.as_ref().err(),
        actions_r.as_ref().err(),
        id_r.as_ref().err(),
        label_r.as_ref().err(),
    ]
    .into_iter()
    .flatten()
    {
        if r.is_unresponsive() || r.is_app_gone() {
            return Err(clone_err(r));
        }
    }
    let (bounds, empty) = bounds.ok().flatten().unwrap_or((None, false));
    let mut d = Details {
        bounds,
        empty,
        bounds_read: want_bounds && ifaces.has(Ifaces::COMPONENT),
        actions: actions_r.unwrap_or_default(),
        native_id: id_r.ok().flatten().filter(|s| !s.is_empty()),
        label: label_r.ok().flatten(),
        ..Details::default()
    };
    match text_r {
        Ok(Some((count, t))) => {
            let len = count.max(0) as u32;
            if want_value {
                if mapping::is_password(role_n) {
                    d.value = if len > 0 {
                        Evidence::Known(REDACTED.into())
                    } else {
                        Evidence::Absent
                    };
                } else {
                    d.value = Evidence::from_text(without_embeds(&t));
                    d.text_len = Some(len);
                }
            } else {
                let clean = without_embeds(&t);
                let clean = clean.trim();
                if !clean.is_empty() {
                    d.content = Some(text::take_chars(clean, VALUE_CHARS as usize).to_string());
                }
                if len as usize > VALUE_CHARS as usize {
                    d.text_len = Some(len);
                }
            }
        }
        Ok(None) => {}
        Err(_) if want_value => d.value = Evidence::Unknown,
        Err(_) => {}
    }
    if let Ok(Some((cur, min, max, step))) = value_r {
        d.numeric = mapping::numeric_is_meaningful(role_n, min, max).then_some(NumericValue {
            current: cur,
            min,
            max,
            step,
        });
    }
    Ok(d)
}

fn clone_err(e: &LinuxError) -> LinuxError {
    match e {
        LinuxError::Unresponsive { what, timeout } => LinuxError::Unresponsive {
            what: what.clone(),
            timeout: *timeout,
        },
        LinuxError::Gone { what, reason } => LinuxError::Gone {
            what: what.clone(),
            reason: reason.clone(),
        },
        other => LinuxError::Deadline(other.to_string()),
    }
}

/// A text without the U+FFFC characters that stand for embedded children (Chromium and Gecko
/// put one in a container's text per child: a form's text is "￼￼￼￼"); the children carry
/// their own text.
fn without_embeds(t: &str) -> String {
    t.chars().filter(|ch| *ch != '\u{fffc}').collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_change_event_forgets_the_role_and_outdates_reads_in_flight() {
        let m = Memo::default();
        let h = ":1.5:/org/a11y/atspi/accessible/7";
        let e = m.role_epoch();
        m.remember_role(h.into(), 43, e);
        assert_eq!(m.role(h), Some(43));
        let change = Event {
            sender: ":1.5".into(),
            class: "Object",
            member: "PropertyChange".into(),
            path: "/org/a11y/atspi/accessible/7".into(),
            detail: "accessible-role".into(),
            at: std::time::Instant::now(),
        };
        // A read sent before the change, answered with the old role, lands after the event.
        let before = m.role_epoch();
        m.on_event(&change);
        assert_eq!(m.role(h), None);
        m.remember_role(h.into(), 43, before);
        assert_eq!(m.role(h), None, "a read older than the change is not kept");
        m.remember_role(h.into(), 62, m.role_epoch());
        assert_eq!(m.role(h), Some(62));
    }

    #[test]
    fn memo_remembers_per_object_and_forgets_an_app() {
        let m = Memo::default();
        let ifaces = Ifaces::from_names(&["org.a11y.atspi.Action", "org.a11y.atspi.Text"]);
        m.remember_interfaces(":1.5:/org/a11y/atspi/accessible/7".into(), ifaces);
        m.remember_interfaces(
            ":1.6:/org/a11y/atspi/accessible/7".into(),
            Ifaces::default(),
        );
        m.remember_actions(
            ":1.5:/org/a11y/atspi/accessible/7".into(),
            &["click".into()],
        );
        assert_eq!(
            m.interfaces(":1.5:/org/a11y/atspi/accessible/7"),
            Some(ifaces)
        );
        assert_eq!(m.interfaces(":1.5:/org/a11y/atspi/accessible/8"), None);
        m.forget_app(":1.5");
        assert_eq!(m.interfaces(":1.5:/org/a11y/atspi/accessible/7"), None);
        assert_eq!(m.actions(":1.5:/org/a11y/atspi/accessible/7"), None);
        // Another app's facts stay.
        assert_eq!(
            m.interfaces(":1.6:/org/a11y/atspi/accessible/7"),
            Some(Ifaces::default())
        );
    }
}
