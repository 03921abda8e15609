"""xfce4-terminal: Edit > Preferences…, Cursor blinks, Cursor shape I-Beam, Close."""
from uitask import run


async def solve(ui):
    dlg = await ui.terminal_preferences()
    blink = await ui.find_named(dlg, "Cursor blinks", role="check-box")
    pane = await ui.find_named(dlg, "Cursor", role="pane")
    shape = await ui.find(dlg, role="combo-box", scopeRef=pane["ref"])
    dlg = await ui.act(dlg, [{"action": "check", "ref": blink["ref"]},
                             {"action": "select", "ref": shape["ref"], "value": "I-Beam"}])
    await ui.press_named(dlg, "Close")
    ui.done()


run(solve)
