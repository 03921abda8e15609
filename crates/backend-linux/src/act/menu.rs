//! Pressing an item of a closed menu: a person opens File, then its submenu, then clicks the
//! item. A toolkit refuses the action of an item that is not on screen (GTK 3 answers no, and
//! there is no box to click), so `press` on such an item first opens the menus above it from
//! the outside in, each through its own action and each verified open (the next level, or the
//! item, is showing), then presses the item as usual. GTK 2 and 3 on Wayland are the
//! exception: a menu opened by its action, with no input event behind it, has no grab serial
//! for its popup, and GTK opened the bar's first menu instead of "Edit"; there each level is
//! clicked open, unless the step is headless.

use std::time::Duration;

use uidriver_core::{Delivery, Error, ErrorCode, Role, StepReport};

use super::verify;
use super::{pick_action, Ctx, Element};
use crate::atspi::{accessible, action, component, state as st, Ifaces, Obj};

/// Actions that open a menu, in priority order (GTK 3 and VCL `click`, Qt `ShowMenu`).
const OPEN: &[&str] = &[
    "click", "showmenu", "press", "open", "expand", "activate", "toggle",
];

/// How long one level may take to show its items.
const OPENS_WITHIN: Duration = Duration::from_millis(1500);

pub(crate) fn is_menu_item(role: Role) -> bool {
    matches!(
        role,
        Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    )
}

/// What opens each closed menu between `el` and its menu bar (or window), outermost first:
/// a `menu` node, which GTK and VCL make their own opener ("Edit" in the bar is the menu), or,
/// where the menu hangs under a `menu-item` (Qt: menu-item "Edit" › menu › items), that item.
/// Empty when `el` is not a menu item.
fn openers_above(ctx: &Ctx<'_>, el: &Element<'_>) -> Vec<usize> {
    if !is_menu_item(el.node.role) {
        return Vec::new();
    }
    let nodes = &ctx.state.snapshot.nodes;
    let mut chain = Vec::new();
    let mut at = el.node.parent;
    while let Some(i) = at {
        match nodes[i].role {
            Role::Menu => match nodes[i].parent {
                Some(p) if is_menu_item(nodes[p].role) => {
                    chain.push(p);
                    at = nodes[p].parent;
                    continue;
                }
                _ => chain.push(i),
            },
            Role::MenuBar | Role::Window | Role::Dialog => break,
            _ => {}
        }
        at = nodes[i].parent;
    }
    chain.reverse();
    chain
}

/// Whether a rectangle `(x, y, width, height)` read from GTK 2 is a place on screen: an item
/// of a menu never opened answers 1×1 at `i32::MIN` (one opened before keeps its last place,
/// and its `click` action then presses it all the same).
fn on_screen((x, y, w, h): (i32, i32, i32, i32)) -> bool {
    x != i32::MIN && y != i32::MIN && w > 1 && h > 1
}

/// Whether `o` is on screen: `SHOWING`, or, in GTK 2, which never sets it on a menu's items,
/// visible with a place on screen (a closed menu's items answer 1×1 at `i32::MIN`).
async fn showing(ctx: &Ctx<'_>, o: &Obj) -> bool {
    match verify::read(&ctx.caller, o).await {
        Ok(Some(r)) if r.states.has(st::SHOWING) => true,
        Ok(Some(r)) if r.states.has(st::VISIBLE) && ctx.toolkit().leaves_menu_items_unshown() => {
            component::extents(&ctx.caller, o, component::COORD_SCREEN)
                .await
                .is_ok_and(on_screen)
        }
        _ => false,
    }
}

/// Whether a GTK 4 menu item is in an open menu: GTK 4.8 sets `SHOWING` on nothing below a
/// window, so the state's word that the item was on screen (judged by its containers'
/// rectangles when it was observed) stands, while the item is still visible. Its popover menu
/// opened by the menu button is then pressed into directly (it was refused: the menu has no
/// action that opens it).
async fn gtk4_open(ctx: &Ctx<'_>, el: &Element<'_>) -> bool {
    ctx.toolkit() == crate::roots::Toolkit::Gtk4
        && !el.node.has_state(uidriver_core::StateFlag::Hidden)
        && matches!(verify::read(&ctx.caller, &el.obj).await, Ok(Some(r)) if r.states.has(st::VISIBLE))
}

/// One menu level opened by a step: its name, its opener and the action that opened it, and
/// the element that showed when it opened (the next level, or the item).
pub(crate) struct Level {
    name: String,
    opener: Obj,
    action: i32,
    shows: Obj,
}

/// The menus a step opened, outermost first.
#[derive(Default)]
pub(crate) struct Opened(Vec<Level>);

impl Opened {
    /// `after opening "Edit" › "Convert"`, or nothing when no menu was opened.
    pub(crate) fn note(&self) -> Option<String> {
        let names: Vec<String> = self.0.iter().map(|l| l.name.clone()).collect();
        (!names.is_empty()).then(|| format!("after opening {}", path_text(&names)))
    }

    /// Closes, innermost first, the levels still open: Qt's `Press` runs the item's action
    /// and leaves its menu up (a person's click would have closed it), and its `ShowMenu`
    /// toggles. GTK closes its menus itself, so nothing is left to close there.
    pub(crate) async fn close_left_open(&self, ctx: &Ctx<'_>) {
        for l in self.0.iter().rev() {
            if showing(ctx, &l.shows).await {
                let _ = action::do_action(&ctx.caller, &l.opener, l.action).await;
            }
        }
    }
}

/// Opens the closed menus above `el` (see the module docs). `Ok` with the menus it opened
/// (none when `el` is showing, or not in a menu); an error on the report, and `Err` (with what
/// it had opened closed again), when a level would not open.
pub(crate) async fn open_menus_above(
    ctx: &Ctx<'_>,
    r: &mut StepReport,
    el: &Element<'_>,
) -> Result<Opened, ()> {
    let chain = openers_above(ctx, el);
    let mut opened = Opened::default();
    if chain.is_empty() || showing(ctx, &el.obj).await || gtk4_open(ctx, el).await {
        return Ok(opened);
    }
    let nodes = &ctx.state.snapshot.nodes;
    let objs: Vec<Obj> = chain
        .iter()
        .filter_map(|&i| Obj::from_handle(&nodes[i].handle))
        .collect();
    if objs.len() != chain.len() {
        let why = format!("{} sits in a menu uidriver cannot reach", el.r);
        fail(r, Delivery::NotDelivered, why);
        return Err(());
    }
    for (level, opener) in objs.iter().enumerate() {
        let shows = objs.get(level + 1).unwrap_or(&el.obj).clone();
        if showing(ctx, &shows).await {
            continue;
        }
        let name = menu_name(&nodes[chain[level]]);
        let by_click = !ctx.headless && ctx.backend.menus_open_by_click(&ctx.target);
        let result = if by_click {
            click_open(ctx, opener).await
        } else {
            open_one(ctx, opener).await
        };
        let why = match result {
            Ok(action) => {
                let level = Level {
                    name,
                    opener: opener.clone(),
                    action,
                    shows,
                };
                let open = shown_soon(ctx, &level).await;
                let name = level.name.clone();
                opened.0.push(level);
                if open {
                    continue;
                }
                format!(
                    "the menu {name:?} was asked to open, but its items did not show within {} ms",
                    OPENS_WITHIN.as_millis()
                )
            }
            Err(why) => format!("the menu {name:?} {why}"),
        };
        let sent = if opened.0.is_empty() {
            Delivery::NotDelivered
        } else {
            Delivery::Delivered
        };
        opened.close_left_open(ctx).await;
        fail(r, sent, why);
        return Err(());
    }
    Ok(opened)
}

/// Whether a level's items show within [`OPENS_WITHIN`] of its opening.
async fn shown_soon(ctx: &Ctx<'_>, l: &Level) -> bool {
    let mut w = ctx.watch(&l.opener.bus).await;
    w.until(OPENS_WITHIN, || async {
        showing(ctx, &l.shows).await.then_some(())
    })
    .await
    .is_some()
}

fn menu_name(n: &uidriver_core::Node) -> String {
    n.name.text().unwrap_or_default().to_string()
}

/// `"File" › "Recent"`.
fn path_text(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(" › ")
}

/// Runs the opening action of one menu, answering its index; why not, when it offers none or
/// refused.
async fn open_one(ctx: &Ctx<'_>, menu: &Obj) -> Result<i32, String> {
    let c = &ctx.caller;
    let ifaces = accessible::interfaces(c, menu)
        .await
        .map_err(|e| format!("could not be read: {e}"))?;
    if !ifaces.has(Ifaces::ACTION) {
        return Err("offers no action to open it".into());
    }
    let names = action::names(c, menu)
        .await
        .map_err(|e| format!("could not be read: {e}"))?;
    let Some((index, _)) = pick_action(&names, OPEN) else {
        return Err(format!("offers no action to open it (it has {names:?})"));
    };
    match action::do_action(c, menu, index).await {
        Ok(_) => Ok(index),
        Err(e) => Err(format!("refused to open: {e}")),
    }
}

/// Clicks a menu open at its live centre; the index of its opening action (for closing what
/// is left open), or why not.
async fn click_open(ctx: &Ctx<'_>, menu: &Obj) -> Result<i32, String> {
    use super::deliver::{self, Aim, Send};
    let b = deliver::live_bounds(ctx, menu)
        .await
        .map_err(|e| format!("could not be placed: {e}"))?
        .filter(|b| b.width > 0 && b.height > 0)
        .ok_or("has no place on screen to click")?;
    let centre = (b.x + b.width / 2, b.y + b.height / 2);
    let click = Send::Click(uidriver_core::action::Button::Left, 1);
    deliver::deliver(ctx, Aim::Points(vec![centre]), click)
        .await
        .map_err(|e| format!("could not be clicked open: {}", e.message))?;
    let names = action::names(&ctx.caller, menu).await.unwrap_or_default();
    Ok(pick_action(&names, OPEN).map_or(-1, |(i, _)| i))
}

fn fail(r: &mut StepReport, sent: Delivery, message: String) {
    r.delivery.delivered = sent;
    let err = Error::new(ErrorCode::NotSupported, message).with_hint(
        "Press the menu itself (it is the item's ancestor), observe again, then press the item.",
    );
    r.error = Some(if sent == Delivery::NotDelivered {
        err
    } else {
        err.delivered(sent)
    });
}
