"""Select a phrase with Find All, close the dialog, ctrl+b, save."""
from uitask import run


async def solve(ui):
    state = await ui.office("memo.docx")
    dlg = await ui.open_dialog(state, "ctrl+h", "Find and Replace")
    find = await ui.field_after(dlg, "Find")
    dlg = await ui.act(dlg, [{"action": "setText", "ref": find, "text": "Thursday at 10:00"}])
    dlg = await ui.press_named(dlg, "Find All")
    dlg = await ui.dialog("Find and Replace")
    await ui.press_named(dlg, "Close")
    state = await ui.office("memo.docx")
    await ui.keys(state, "ctrl+b")
    await ui.office_save("memo.docx")
    ui.done()


run(solve)
