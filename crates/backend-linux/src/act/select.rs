//! `select`: choosing an option of a combo box, list or tab list by its label through the
//! container's `Selection` interface — no pointer, no keys, so it works headless — and reading
//! the selection back.

use uidriver_core::choose;
use uidriver_core::{DeliveryMethod, VerificationMethod};
use uidriver_core::{ElementRef, ErrorCode, Role, StepReport};

use super::verify::{QUIET, SETTLE};
use super::{nothing_to_send, record_answer, refuse, Ctx};
use crate::atspi::{accessible, selection, Ifaces, Obj};
use crate::error::LinuxError;

/// The options of a selection container: its children, or (GTK 3 combo boxes) the items of
/// its menu child.
async fn options(
    c: &crate::atspi::connection::Caller,
    o: &Obj,
) -> Result<Vec<(Obj, String)>, LinuxError> {
    let kids = accessible::children(c, o).await?;
    let mut named = Vec::with_capacity(kids.len());
    for k in &kids {
        named.push((k.clone(), accessible::name(c, k).await.unwrap_or_default()));
    }
    if let [(only, _)] = named.as_slice() {
        let role = accessible::role(c, only).await.unwrap_or(0);
        if role == crate::mapping::role::MENU || crate::mapping::map_role(role).1 == Role::List {
            let items = accessible::children(c, only).await?;
            let mut out = Vec::with_capacity(items.len());
            for k in items {
                let n = accessible::name(c, &k).await.unwrap_or_default();
                out.push((k, n));
            }
            return Ok(out);
        }
    }
    // A GTK 3 entry combo holds its menu and its entry: the menu is the list.
    for (k, _) in &named {
        if accessible::role(c, k).await.ok() == Some(crate::mapping::role::MENU) {
            let items = accessible::children(c, k).await?;
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                let n = accessible::name(c, &i).await.unwrap_or_default();
                out.push((i, n));
            }
            return Ok(out);
        }
    }
    Ok(named)
}

/// `select`: the option whose label is `value` (core's [`choose::pick`]: exact, folded, then a
/// unique prefix), through the container's `Selection`; nothing sent when it is already
/// selected.
pub(crate) async fn select(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef, value: &str) {
    let Some((el, l)) = ctx.live_element(r, e).await else {
        return;
    };
    if !l.ifaces.has(Ifaces::SELECTION) {
        return refuse(
            r,
            ErrorCode::NotSupported,
            format!("{e} offers no selection (select works on combo boxes, lists and tab lists)"),
        );
    }
    let c = &ctx.caller;
    let opts = match options(c, &el.obj).await {
        Ok(o) => o,
        Err(err) => return r.error = Some(err.into()),
    };
    let labels: Vec<&str> = opts.iter().map(|(_, l)| l.as_str()).collect();
    let (index, fit) = match choose::pick(&labels, value, &e.to_string()) {
        Ok(p) => p,
        Err(err) => return refuse(r, err.code, err.message),
    };
    let taken = if fit == choose::Fit::Exact {
        String::new()
    } else {
        format!(", {value:?} taken as {:?}", opts[index].1)
    };
    let label = opts[index].1.clone();
    let is_selected = || async {
        let by_sel = match selection::selected_child(c, &el.obj, 0).await {
            Ok(Some(o)) => accessible::name(c, &o).await.ok() == Some(label.clone()),
            _ => false,
        };
        // A GTK 3 combo box names itself after its choice.
        by_sel
            || (el.node.role == Role::ComboBox
                && accessible::name(c, &el.obj).await.ok() == Some(label.clone()))
    };
    r.verification.method = VerificationMethod::ReadBack;
    if selection::n_selected(c, &el.obj).await.unwrap_or(0) > 0 && is_selected().await {
        return nothing_to_send(r, format!("option {index} of {e} was already selected"));
    }
    let mut w = ctx.watch(&el.obj.bus).await;
    r.delivery.method = DeliveryMethod::Selection;
    r.delivery.detail = Some(format!("option {index} of {}{taken}", opts.len()));
    if !record_answer(
        r,
        selection::select_child(c, &el.obj, index as i32).await,
        || format!("the toolkit refused to select option {index} of {e}"),
    ) {
        return;
    }
    let got = w
        .until(SETTLE, || async { is_selected().await.then_some(()) })
        .await;
    w.quiet(QUIET).await;
    match got {
        Some(()) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!("option {index} of {e} reads back selected"));
        }
        None => {
            r.verification.detail = Some(format!(
                "option {index} of {e} does not read back selected after {} ms",
                SETTLE.as_millis()
            ))
        }
    }
}
