"""What the GIMP solutions share: its main window, a menu item by name (GIMP's menus are in the
window's tree, hidden until opened; pressing an item opens its menus first), the Preferences
dialog and one of its pages, and quitting GIMP (it writes sessionrc, and gimprc, on exit)."""
import asyncio

from uitask import NotFound


async def main_window(ui):
    """The image window (GIMP shows a "GIMP Startup" splash window first while it loads)."""
    return await ui.observe(app="gimp", kind="window", text="GNU Image Manipulation Program", timeout=90)


async def menu_item(ui, name, roles=("menu-item", "check-menu-item")):
    """Presses the menu item called `name` (e.g. "Preferences", in Edit); the item is hidden
    until its menu opens, and press opens the menus on its way."""
    state = await main_window(ui)
    item = await ui.find_named(state, name, role=list(roles), includeHidden=True)
    return await ui.act(state, [{"action": "press", "ref": item["ref"]}])


async def preferences_page(ui, page):
    """Opens Edit > Preferences and shows its page `page` (a row of the tree on the left): the
    row is clicked until it reads back selected (a first click may only focus the tree)."""
    await menu_item(ui, "Preferences")
    dlg = await ui.dialog("Preferences", timeout=20)
    for _ in range(4):
        cell = await ui.find_named(dlg, page, role="cell")
        if "selected" in (cell.get("states") or []):
            return dlg
        await ui.act(dlg, [{"action": "click", "ref": cell["ref"]}])
        await asyncio.sleep(0.5)
        dlg = await ui.observe(dlg["root"])
    raise NotFound(f"the Preferences page {page!r} did not open")


async def quit_gimp(ui):
    """File > Quit (no image is open, so GIMP asks nothing) and waits until its window is gone."""
    await menu_item(ui, "Quit")
    for _ in range(30):
        if not (await ui.call("find_roots", {"app": "gimp"})).get("roots"):
            await asyncio.sleep(1)
            return
        await asyncio.sleep(0.5)
    raise NotFound("GIMP did not quit")
