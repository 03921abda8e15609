"""chrome 2ad9387a: a bookmarks-bar folder called Favorites. The Bookmark manager opens on
"Bookmarks bar"; Organize > Add new folder asks for the name, Save."""
TASK_ID = "2ad9387a-65d8-4e33-ad5b-7580065a27ca"

import chrome_ui


async def solve(ui):
    page = await chrome_ui.goto(ui, "chrome://bookmarks", wait_text="Organize")
    root = page["root"]
    bar = await ui.find_named(page, "Bookmarks bar", role="tree-item")
    if "selected" not in (bar.get("states") or []):
        await ui.act(page, [{"action": "click", "ref": bar["ref"]}])
        page = await ui.observe(root)
    await ui.press_named(page, "Organize")
    page = await ui.observe(root)
    await ui.press_named(page, "Add new folder", role="menu-item")
    await ui.wait_for(root=root, text="Add folder", timeout_ms=10000)
    page = await ui.observe(root)
    name = await ui.find_named(page, "Name", role="text")
    page = await ui.act(page, [{"action": "setText", "ref": name["ref"], "text": "Favorites"}])
    await ui.press_named(page, "Save")
    await chrome_ui.quit_browser(ui)
    ui.done()
