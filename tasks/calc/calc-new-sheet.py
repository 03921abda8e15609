"""Sheet > Insert Sheet at End… named Summary; type into its A1; save."""
from uitask import run


async def solve(ui):
    state = await ui.office("sales.xlsx")
    item = await ui.find_named(state, "Insert Sheet at End", exact=False, role="menu-item", includeHidden=True)
    await ui.act(state, [{"action": "press", "ref": item["ref"]}])
    dlg = await ui.dialog("Sheet")
    name = await ui.find(dlg, role="text", capability="set-text")
    dlg = await ui.act(dlg, [{"action": "setText", "ref": name["ref"], "text": "Summary"}])
    await ui.press_named(dlg, "OK")
    await ui.calc_enter("sales.xlsx", "A1", "Grand total")
    await ui.office_save("sales.xlsx")
    ui.done()


run(solve)
