"""Preferences > Editor: tab width 4 and spaces for tabs."""
from uitask import run


async def solve(ui):
    dlg = await ui.mousepad_preferences()
    tab = await ui.find_named(dlg, "Editor", role="tab")
    dlg = await ui.act(dlg, [{"action": "press", "ref": tab["ref"]}])
    dlg = await ui.observe(await ui.root(kind="dialog", text="Preferences"))
    # GTK lays the labels out after their controls: the Indentation pane holds one spin
    # button (the tab width) and the "Tab mode" combo box that reads "Insert Tabs".
    pane = await ui.find_named(dlg, "Indentation", role="pane")
    width = await ui.find(dlg, role="spin-button", scopeRef=pane["ref"])
    mode = await ui.find_named(dlg, "Insert Tabs", role="combo-box")
    dlg = await ui.act(dlg, [{"action": "setValue", "ref": width["ref"], "value": 4},
                             {"action": "select", "ref": mode["ref"], "value": "Insert Spaces"}])
    await ui.keys(dlg, "Escape")  # the dialog has no Close button; changes apply at once
    ui.done()


run(solve)
