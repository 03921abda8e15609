//! Steps done through the `Value` interface: `setValue` (range-checked, read back within half
//! a step), and `scroll`, which moves the scroll bars of the element's scroll pane by whole
//! increments when it has them and falls back to the wheel (`pointer.rs`) when it has none.

use uidriver_core::{Delivery, ElementRef, ErrorCode, Role, StepReport, Target};
use uidriver_core::{DeliveryMethod, GroundingMethod, VerificationMethod};

use super::verify::{QUIET, SETTLE};
use super::{nothing_to_send, refuse, semantic_failed, Ctx, RefAim};
use crate::atspi::accessible::PropReads;
use crate::atspi::{accessible, state as st, value, Ifaces, Obj};

/// `setValue`: `Value.CurrentValue`, range-checked first, read back (within half a step: the
/// control may round to its increment).
pub(crate) async fn set_value(ctx: &Ctx<'_>, r: &mut StepReport, e: ElementRef, v: f64) {
    let Some((el, l)) = ctx.live_element(r, e).await else {
        return;
    };
    if !l.ifaces.has(Ifaces::VALUE) {
        return refuse(
            r,
            ErrorCode::NotSupported,
            format!(
                "{e} has no numeric value (setValue works on sliders, spin buttons, scroll bars)"
            ),
        );
    }
    let c = &ctx.caller;
    // Acts read the range one property at a time whatever the toolkit: four calls sent
    // together cost nothing next to the step, and no toolkit dies of them.
    let (cur, min, max, step) = match value::value(c, &el.obj, PropReads::OneByOne).await {
        Ok(v) => v,
        Err(err) => return r.error = Some(err.into()),
    };
    if min < max && (v < min || v > max) {
        return refuse(
            r,
            ErrorCode::InvalidArgs,
            format!("{v} is outside {e}'s range {min}..{max}"),
        );
    }
    let tol = tolerance(step, v);
    r.verification.method = VerificationMethod::ReadBack;
    if (cur - v).abs() <= 1e-9 * v.abs().max(1.0) {
        return nothing_to_send(r, format!("{e} was already {cur}"));
    }
    let mut w = ctx.watch(&el.obj.bus).await;
    r.delivery.method = DeliveryMethod::Value;
    r.delivery.detail = Some("CurrentValue".into());
    if let Err(err) = value::set_current(c, &el.obj, v).await {
        return semantic_failed(r, err);
    }
    r.delivery.delivered = Delivery::Delivered;
    let got = w
        .until(SETTLE, || async {
            let now = value::current(c, &el.obj).await.ok()?;
            ((now - v).abs() <= tol).then_some(now)
        })
        .await;
    w.settle(got.is_some()).await;
    match got {
        Some(now) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!("{e} reads back {now}{}", w.after()));
        }
        None => {
            let now = value::current(c, &el.obj).await.ok();
            r.verification.passed = Some(false);
            r.verification.detail = Some(match now {
                Some(n) => format!("{e} reads back {n}, not {v} (was {cur})"),
                None => format!("{e} could not be read back"),
            });
        }
    }
}

/// A scroll bar found for a scroll step, with its orientation.
struct Bar {
    obj: Obj,
    vertical: bool,
}

/// Scroll bars of the scroll pane around node `i` (itself, or its nearest scroll-pane
/// ancestor), found in the state and oriented by their live states.
async fn bars_near(ctx: &Ctx<'_>, i: usize) -> Vec<Bar> {
    let s = ctx.state;
    let mut chain = vec![i];
    chain.extend(s.ancestors(i).into_iter().take(8));
    let mut found = Vec::new();
    for n in chain {
        let node = &s.snapshot.nodes[n];
        let kids: Vec<usize> = if node.role == Role::ScrollBar {
            vec![n]
        } else {
            node.children
                .iter()
                .copied()
                .filter(|&k| s.snapshot.nodes[k].role == Role::ScrollBar)
                .collect()
        };
        if kids.is_empty() {
            continue;
        }
        for k in kids {
            let Some(obj) = Obj::from_handle(&s.snapshot.nodes[k].handle) else {
                continue;
            };
            let vertical = match accessible::states(&ctx.caller, &obj).await {
                Ok(st_) if st_.has(st::VERTICAL) => true,
                Ok(st_) if st_.has(st::HORIZONTAL) => false,
                _ => s.snapshot.nodes[k]
                    .bounds
                    .is_some_and(|b| b.height > b.width),
            };
            found.push(Bar { obj, vertical });
        }
        break;
    }
    found
}

/// `scroll`: the scroll bars' `Value` by whole increments when the element has them (nothing
/// physical, works headless); else the wheel at its centre, the point, or the window's centre.
pub(crate) async fn scroll(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    target: &Option<Target>,
    dx: i32,
    dy: i32,
) {
    let (el, index) = match target {
        Some(Target::Point(p)) => {
            r.grounding.method = GroundingMethod::Point;
            let sp = ctx.state.image.as_ref().map(|img| img.to_screen(p.x, p.y));
            let Some(sp) = sp else {
                return refuse(r, ErrorCode::InvalidArgs, "the state has no image for x/y");
            };
            r.grounding.point = Some(sp);
            return super::pointer::wheel(ctx, r, None, Some(sp), dx, dy, None).await;
        }
        Some(Target::Ref(e)) => match ctx.pointer_ref(r, *e) {
            Some(RefAim::Live(el)) => {
                let i = el.index;
                (Some(el), Some(i))
            }
            Some(RefAim::Pixels(p)) => {
                r.grounding.point = Some(p);
                return super::pointer::wheel(ctx, r, None, Some(p), dx, dy, None).await;
            }
            None => return,
        },
        None => {
            r.grounding.method = GroundingMethod::Focus;
            (None, ctx.state.snapshot.focused())
        }
    };
    let bars = match index {
        Some(i) => bars_near(ctx, i).await,
        None => Vec::new(),
    };
    let c = &ctx.caller;
    let mut plan = Vec::new();
    for (amount, vertical) in [(dy, true), (dx, false)] {
        if amount == 0 {
            continue;
        }
        let Some(bar) = bars.iter().find(|b| b.vertical == vertical) else {
            plan.clear();
            break;
        };
        match value::value(c, &bar.obj, PropReads::OneByOne).await {
            Ok((cur, min, max, step)) if max > min => {
                let unit = if step > 0.0 { step } else { (max - min) / 20.0 };
                let to = (cur + f64::from(amount) * unit).clamp(min, max);
                plan.push((bar.obj.clone(), cur, to, max, min));
            }
            _ => {
                plan.clear();
                break;
            }
        }
    }
    if plan.is_empty() {
        // No scroll bar with a value: the wheel, when allowed (nothing was sent yet).
        let first_bar = bars.first().map(|b| b.obj.clone());
        return super::pointer::wheel(ctx, r, el.as_ref(), None, dx, dy, first_bar).await;
    }
    r.verification.method = VerificationMethod::ReadBack;
    if plan
        .iter()
        .all(|(_, cur, to, _, _)| (cur - to).abs() < f64::EPSILON)
    {
        r.verification.passed = Some(false);
        r.verification.detail =
            Some("already scrolled to the end in that direction: nothing was sent".into());
        return;
    }
    let bus = plan[0].0.bus.clone();
    let mut w = ctx.watch(&bus).await;
    r.delivery.method = DeliveryMethod::Value;
    r.delivery.detail = Some("scroll bar CurrentValue".into());
    for (obj, cur, to, _, _) in &plan {
        if (cur - to).abs() < f64::EPSILON {
            continue;
        }
        if let Err(err) = value::set_current(c, obj, *to).await {
            return semantic_failed(r, err);
        }
        r.delivery.delivered = Delivery::Delivered;
    }
    let plan_ref = &plan;
    let got = w
        .until(SETTLE, || async move {
            let mut moved = Vec::new();
            for (obj, cur, to, _, _) in plan_ref {
                let now = value::current(c, obj).await.ok()?;
                if (now - to).abs() > 0.5 && (now - cur).abs() < f64::EPSILON {
                    return None;
                }
                moved.push(format!("{cur} → {now}"));
            }
            Some(moved.join(", "))
        })
        .await;
    w.quiet(QUIET).await;
    match got {
        Some(d) => {
            r.verification.passed = Some(true);
            r.verification.detail = Some(format!("the scroll bar moved: {d}"));
        }
        None => {
            r.verification.detail = Some(format!(
                "the scroll bar did not move within {} ms",
                SETTLE.as_millis()
            ))
        }
    }
    let _ = el;
}

/// After text was set in a field that also has a numeric value (a spin button): the value the
/// text says, when the field has not taken it yet (GTK takes a spin button's typed text on
/// Enter or when focus leaves), set through `Value` and read back. `Ok` says what the value
/// is; `Err` why it is not the number the text says.
pub(crate) async fn commit_typed_number(
    c: &crate::atspi::connection::Caller,
    obj: &Obj,
    text: &str,
) -> Result<Option<String>, String> {
    let Ok(want) = text.trim().parse::<f64>() else {
        return Ok(None);
    };
    let (cur, min, max, step) = value::value(c, obj, PropReads::OneByOne)
        .await
        .map_err(|e| format!("its value could not be read: {e}"))?;
    let tol = tolerance(step, want);
    if (cur - want).abs() <= tol {
        return Ok(Some(format!("its value is {cur}")));
    }
    if min < max && (want < min || want > max) {
        return Err(format!(
            "its value stays {cur}: {want} is outside its range {min}..{max}"
        ));
    }
    value::set_current(c, obj, want)
        .await
        .map_err(|e| format!("its value stays {cur} and could not be set: {e}"))?;
    let t0 = std::time::Instant::now();
    loop {
        let now = value::current(c, obj).await.unwrap_or(cur);
        if (now - want).abs() <= tol {
            return Ok(Some(format!(
                "its value was still {cur}, so it was set through Value: now {now}"
            )));
        }
        if t0.elapsed() > SETTLE {
            return Err(format!(
                "its value stays {now}, not the {want} the text says"
            ));
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// How far a read-back value may be from `v` and still be it: half a step (a control rounds to
/// its increment), or float noise when it has no step.
fn tolerance(step: f64, v: f64) -> f64 {
    if step > 0.0 {
        step / 2.0
    } else {
        1e-9 * v.abs().max(1.0)
    }
}
