"""Edit > Find and Replace in Writer: fill both fields, Replace All, close, save."""
from uitask import run, NotFound


async def solve(ui):
    state = await ui.office("report.docx")
    dlg = await ui.open_dialog(state, "ctrl+h", "Find and Replace")
    find = await ui.field_after(dlg, "Find")
    replace = await ui.field_after(dlg, "Replace")
    dlg = await ui.act(dlg, [{"action": "setText", "ref": find, "text": "colour"},
                             {"action": "setText", "ref": replace, "text": "color"}])
    dlg = await ui.press_named(dlg, "Replace All")
    # LibreOffice may report the result in a small dialog of its own.
    dlg = await ui.dialog("Find and Replace")
    await ui.press_named(dlg, "Close")
    await ui.office_save("report.docx")
    ui.done()


run(solve)
