"""chrome 030eeff7: enable 'Do Not Track'. Settings > Privacy > Third-party cookies has the
toggle "Send a 'Do Not Track' request…"; turning it on asks to confirm."""
TASK_ID = "030eeff7-b492-4218-b312-701ec99ee0cc"

import chrome_ui


async def solve(ui):
    page = await chrome_ui.goto(ui, "chrome://settings/cookies", wait_text="Do Not Track")
    toggle = await ui.find_named(page, "Do Not Track", exact=False, role="toggle-button")
    if "checked" not in (toggle.get("states") or []) and "pressed" not in (toggle.get("states") or []):
        await ui.act(page, [{"action": "press", "ref": toggle["ref"]}])
        page = await ui.observe(page["root"])
        await ui.press_named(page, "Confirm")
    await chrome_ui.quit_browser(ui)
    ui.done()
