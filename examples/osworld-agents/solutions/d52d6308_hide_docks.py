"""gimp d52d6308: remove the dock on the left. Windows > Hide Docks (a check item); GIMP
records it in sessionrc when it quits (File > Quit)."""
TASK_ID = "d52d6308-ec58-42b7-a2c9-de80e4837b2b"

import gimp_ui


async def solve(ui):
    state = await gimp_ui.main_window(ui)
    item = await ui.find_named(state, "Hide Docks", role="check-menu-item", includeHidden=True)
    if "checked" not in (item.get("states") or []):
        await ui.act(state, [{"action": "press", "ref": item["ref"]}])
        state = await gimp_ui.main_window(ui)
        await ui.keys(state, "Escape")  # the Windows menu stays open after the press
    await gimp_ui.quit_gimp(ui)
    ui.done()
