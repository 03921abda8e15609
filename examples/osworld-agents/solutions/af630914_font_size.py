"""chrome af630914: the largest default font size. Settings > Appearance > Font size, the
combo box's largest choice, "Very large"."""
TASK_ID = "af630914-714e-4a24-a7bb-f9af687d3b91"

import chrome_ui


async def solve(ui):
    page = await chrome_ui.goto(ui, "chrome://settings/appearance", wait_text="Font size")
    combo = await ui.find_named(page, "Font size", role="combo-box")
    await ui.act(page, [{"action": "select", "ref": combo["ref"], "value": "Very large"}])
    await chrome_ui.quit_browser(ui)
    ui.done()
