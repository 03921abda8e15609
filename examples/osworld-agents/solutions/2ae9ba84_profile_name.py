"""chrome 2ae9ba84: rename the Chrome profile to Thomas. Settings > You and Google > Customize
profile has the "Name" field; the name is kept when the field loses focus (Tab)."""
TASK_ID = "2ae9ba84-3a0d-4d4c-8338-3a1478dc5fe3"

import chrome_ui


async def solve(ui):
    page = await chrome_ui.goto(ui, "chrome://settings/manageProfile", wait_text="Name your")
    name = await ui.find_named(page, "Name", role="text")
    await ui.act(page, [{"action": "setText", "ref": name["ref"], "text": "Thomas"},
                        {"action": "keypress", "keys": ["Tab"]}])
    await chrome_ui.quit_browser(ui)
    ui.done()
