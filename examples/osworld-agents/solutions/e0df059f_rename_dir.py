"""os e0df059f: rename the directory todo_list_Jan_1 (on the Desktop) to todo_list_Jan_2.
Nothing is open: Thunar is started from the desktop's menu (right click > Applications >
System > Thunar File Manager), then Desktop in its side pane, the folder, F2, the new name,
Rename."""
TASK_ID = "e0df059f-28a6-4169-924f-b9623e7184cc"

import asyncio

import desktop_ui
from uitask import NotFound


async def solve(ui):
    await desktop_ui.launch_from_menu(ui, ["a", "s", "Right", "t"], "thunar")
    state = await ui.observe(app="thunar", kind="window")
    # The side pane's row "Desktop" has two cells of that name (icon and text); the one with a
    # box on the screen takes the click.
    for cell in await ui.search(state, text="Desktop", role="cell", ocrFallback=False):
        r = await ui.call("act_ui", {"stateId": state["stateId"],
                                     "actions": [{"action": "click", "ref": cell["ref"]}]}, check=False)
        if r.get("outcome") == "worked":
            break
    await ui.wait_for(root=state["root"], text="Desktop - Thunar", timeout_ms=10000)
    state, item = await ui.thunar_file("todo_list_Jan_1")
    state = await ui.act(state, [{"action": "click", "ref": item["ref"]}])
    await ui.keys(state, "F2")
    dlg = await ui.dialog("Rename")
    field = await ui.find(dlg, role="text", capability="set-text")
    dlg = await ui.act(dlg, [{"action": "setText", "ref": field["ref"], "text": "todo_list_Jan_2"}])
    await ui.press_named(dlg, "Rename")
    for _ in range(20):
        state = await ui.observe(app="thunar", kind="window")
        if [m for m in await ui.search(state, text="todo_list_Jan_2", ocrFallback=False)
                if m.get("name") == "todo_list_Jan_2"]:
            ui.done()
            return
        await asyncio.sleep(0.5)
    raise NotFound("Thunar does not show todo_list_Jan_2")
