"""gimp 7b7617bd: at least 100 undo steps. Edit > Preferences > System Resources, "Minimal
number of undo levels" (a spin button, set by value), OK; GIMP writes gimprc."""
TASK_ID = "7b7617bd-57cc-468e-9c91-40c4ec2bcb3d"

import gimp_ui


async def solve(ui):
    dlg = await gimp_ui.preferences_page(ui, "System Resources")
    spin = await ui.find_named(dlg, "Minimal number of undo levels", role="spin-button")
    # setValue, not setText: a GTK spin button keeps its old number until its text is activated.
    dlg = await ui.act(dlg, [{"action": "setValue", "ref": spin["ref"], "value": 100}])
    dlg = await ui.dialog("Preferences")
    await ui.press_named(dlg, "OK")
    await gimp_ui.quit_gimp(ui)
    ui.done()
