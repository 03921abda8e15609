"""Create a folder in Thunar through File > Create Folder…"""
from uitask import run


async def solve(ui):
    state = await ui.observe(app="thunar", kind="window")
    dlg = await ui.open_dialog(state, "ctrl+shift+n", "New Folder")
    field = await ui.find(dlg, role="text", capability="set-text")
    dlg = await ui.act(dlg, [{"action": "setText", "ref": field["ref"], "text": "Invoices"}])
    await ui.press_named(dlg, "Create")
    ui.done()


run(solve)
