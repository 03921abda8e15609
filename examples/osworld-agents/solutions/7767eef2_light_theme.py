"""gimp 7767eef2: theme from Dark to Light. Edit > Preferences > Interface > Theme lists the
themes in a table; the "Light" row, OK; GIMP writes gimprc."""
TASK_ID = "7767eef2-56a3-4cea-8c9f-48c070c7d65b"

import gimp_ui


async def solve(ui):
    dlg = await gimp_ui.preferences_page(ui, "Theme")
    light = await ui.find_named(dlg, "Light", role="cell")
    await ui.act(dlg, [{"action": "click", "ref": light["ref"]}])
    dlg = await ui.dialog("Preferences")
    await ui.press_named(dlg, "OK")
    await gimp_ui.quit_gimp(ui)
    ui.done()
