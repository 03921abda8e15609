"""chrome 9656a811: turn on the warning about harmful sites. The setup turned Safe Browsing
off in Preferences; Settings > Privacy and security > Security offers "Standard protection"."""
TASK_ID = "9656a811-9b5b-4ddf-99c7-5117bcef0626"

import chrome_ui


async def solve(ui):
    page = await chrome_ui.goto(ui, "chrome://settings/security", wait_text="Standard protection")
    radio = await ui.find_named(page, "Standard protection", role="radio-button")
    await ui.act(page, [{"action": "check", "ref": radio["ref"]}])
    await chrome_ui.quit_browser(ui)
    ui.done()
