//! `select`: choosing an option of a combo box, list or tab list by its label through the
//! container's `Selection` interface, the list holding its options, or the option's own
//! action — no pointer, no keys, so it works headless — and reading the selection back.

use uidriver_core::choose;
use uidriver_core::{DeliveryMethod, VerificationMethod};
use uidriver_core::{ElementRef, ErrorCode, Role, StepReport};

use super::verify::SETTLE;
use super::{nothing_to_send, pick_action, record_answer, refuse, Ctx};
use crate::atspi::{accessible, action, selection, state as st, Ifaces, Obj};
use crate::error::LinuxError;

/// Where a container's options are: the object whose children they are (the container
/// itself, or its sole menu or list child: GTK 3 combo boxes, Gecko's and Chromium's
/// `<select>`), and the options with their labels.
struct Options {
    holder: Obj,
    items: Vec<(Obj, String)>,
}

/// The options of a selection container: its children, or (GTK 3 combo boxes, web `<select>`
/// elements) the items of its menu or list child.
async fn options(c: &crate::atspi::connection::Caller, o: &Obj) -> Result<Options, LinuxError> {
    let kids = accessible::children(c, o).await?;
    let mut named = Vec::with_capacity(kids.len());
    for k in &kids {
        named.push((k.clone(), accessible::name(c, k).await.unwrap_or_default()));
    }
    let items_of = |holder: Obj| async move {
        let items = accessible::children(c, &holder).await?;
        let mut out = Vec::with_capacity(items.len());
        for k in items {
            let n = accessible::name(c, &k).await.unwrap_or_default();
            out.push((k, n));
        }
        Ok::<_, LinuxError>(Options { holder, items: out })
    };
    if let [(only, _)] = named.as_slice() {
        let role = accessible::role(c, only).await.unwrap_or(0);
        if role == crate::mapping::role::MENU || crate::mapping::map_role(role).1 == Role::List {
            return items_of(only.clone()).await;
        }
    }
    // A GTK 3 entry combo holds its menu and its entry: the menu is the list.
    for (k, _) in &named {
        if accessible::role(c, k).await.ok() == Some(crate::mapping::role::MENU) {
            return items_of(k.clone()).await;
        }
    }
    Ok(Options {
        holder: o.clone(),
        items: named,
    })
}

/// How an option is chosen: `SelectChild` on the object that offers `Selection` (the
/// container, or the list its options are in), else the option's own action (Gecko's and
/// Chromium's `<select>` options: `select`, `click`).
enum Chooser {
    Selection(Obj),
    Action(i32, String),
}

/// Action names of an option that choose it.
const CHOOSE_ACTIONS: &[&str] = &["select", "click", "activate", "press"];

/// `select`: the option whose label is `value` (core's [`choose::pick`]: exact, folded, then a
/// unique prefix), through `Selection` on the container or on the list holding its options, or
/// else the option's own action (a web `<select>` read over AT-SPI: the combo box offers no
/// `Selection`, its options say `select`); nothing sent when it is already selected. Read back
/// by the option's `selected` state, the selection of the object that has one, or the combo
/// box's name (GTK 3 names it after its choice).
pub(crate) async fn select(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef, value: &str) {
    let Some((el, l)) = ctx.live_element(r, e).await else {
        return;
    };
    let c = &ctx.caller;
    let looks_like_choice = l.ifaces.has(Ifaces::SELECTION)
        || matches!(
            el.node.role,
            Role::ComboBox | Role::List | Role::TabList | Role::Menu
        );
    if !looks_like_choice {
        return refuse(
            r,
            ErrorCode::NotSupported,
            format!("{e} offers no selection (select works on combo boxes, lists and tab lists)"),
        );
    }
    let opts = match options(c, &el.obj).await {
        Ok(o) => o,
        Err(err) => return r.error = Some(err.into()),
    };
    let labels: Vec<&str> = opts.items.iter().map(|(_, l)| l.as_str()).collect();
    let (index, fit) = match choose::pick(&labels, value, &e.to_string()) {
        Ok(p) => p,
        Err(err) => return refuse(r, err.code, err.message),
    };
    let option = opts.items[index].0.clone();
    let chooser = if l.ifaces.has(Ifaces::SELECTION) {
        Some(Chooser::Selection(el.obj.clone()))
    } else if opts.holder != el.obj
        && accessible::interfaces(c, &opts.holder)
            .await
            .is_ok_and(|i| i.has(Ifaces::SELECTION))
    {
        Some(Chooser::Selection(opts.holder.clone()))
    } else {
        let names = action::names(c, &option).await.unwrap_or_default();
        pick_action(&names, CHOOSE_ACTIONS).map(|(i, n)| Chooser::Action(i, n))
    };
    let Some(chooser) = chooser else {
        return refuse(
            r,
            ErrorCode::NotSupported,
            format!(
                "{e} offers no selection, and its option {:?} no action that chooses it",
                opts.items[index].1
            ),
        );
    };
    let label = opts.items[index].1.clone();
    // The option by its label, not its index: the index counts every child of the list
    // (separators, options the look does not list), which is no place an outline shows.
    let said = if fit == choose::Fit::Exact {
        format!("option {label:?}")
    } else {
        format!("option {label:?} (asked for {value:?})")
    };
    let is_selected = || async {
        if accessible::states(c, &option)
            .await
            .is_ok_and(|s| s.has(st::SELECTED))
        {
            return true;
        }
        let by_sel = match &chooser {
            Chooser::Selection(holder) => match selection::selected_child(c, holder, 0).await {
                Ok(Some(o)) => {
                    o == option || accessible::name(c, &o).await.ok() == Some(label.clone())
                }
                _ => false,
            },
            Chooser::Action(..) => false,
        };
        // A GTK 3 combo box names itself after its choice.
        by_sel
            || (el.node.role == Role::ComboBox
                && accessible::name(c, &el.obj).await.ok() == Some(label.clone()))
    };
    r.verification.method = VerificationMethod::ReadBack;
    if is_selected().await {
        return nothing_to_send(r, format!("{said} of {e} was already selected"));
    }
    let mut w = ctx.watch(&el.obj.bus).await;
    let answer = match &chooser {
        Chooser::Selection(holder) => {
            r.delivery.method = DeliveryMethod::Selection;
            r.delivery.detail = Some(if *holder == el.obj {
                said.clone()
            } else {
                format!("{said}, SelectChild on the list holding them")
            });
            selection::select_child(c, holder, index as i32).await
        }
        Chooser::Action(i, name) => {
            r.delivery.method = DeliveryMethod::SemanticAction;
            r.delivery.detail = Some(format!(
                "{said}: its action {name:?} (no Selection interface)"
            ));
            action::do_action(c, &option, *i).await
        }
    };
    // A refused `SelectChild` sent nothing (Chromium's `<select>` list answers no): the
    // option's own action is tried instead.
    let answer = match (answer, &chooser) {
        (Ok(false), Chooser::Selection(_)) => {
            let names = action::names(c, &option).await.unwrap_or_default();
            match pick_action(&names, CHOOSE_ACTIONS) {
                Some((i, name)) => {
                    r.delivery.method = DeliveryMethod::SemanticAction;
                    r.delivery.detail = Some(format!(
                        "{said}: its action {name:?} (SelectChild was refused)"
                    ));
                    action::do_action(c, &option, i).await
                }
                None => Ok(false),
            }
        }
        (a, _) => a,
    };
    if !record_answer(r, answer, || {
        format!("the toolkit refused to select {said} of {e}")
    }) {
        return;
    }
    let got = w
        .until(SETTLE, || async { is_selected().await.then_some(()) })
        .await;
    w.settle(got.is_some()).await;
    match got {
        Some(()) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!("{said} of {e} reads back selected"));
        }
        None => {
            r.verification.detail = Some(format!(
                "{said} of {e} does not read back selected after {} ms",
                SETTLE.as_millis()
            ))
        }
    }
}
