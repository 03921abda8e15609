"""Rename a file in Thunar: select it, F2, type the new name, confirm."""
from uitask import run


async def solve(ui):
    state, item = await ui.thunar_file("report-draft.txt")
    state = await ui.act(state, [{"action": "click", "ref": item["ref"]}])
    dlg = await ui.open_dialog(state, "F2", "Rename")
    field = await ui.find(dlg, role="text", capability="set-text")
    dlg = await ui.act(dlg, [{"action": "setText", "ref": field["ref"], "text": "report-final.txt"}])
    await ui.press_named(dlg, "Rename")
    ui.done()


run(solve)
