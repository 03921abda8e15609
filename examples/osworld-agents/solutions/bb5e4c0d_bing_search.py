"""chrome bb5e4c0d: Bing as the search engine. Settings > Search engine > Change opens a
dialog of radio buttons (named only by their description, e.g. "Microsoft Bing"), then
"Set as default"."""
TASK_ID = "bb5e4c0d-f964-439c-97b6-bdb9747de3f4"

import chrome_ui


async def solve(ui):
    page = await chrome_ui.goto(ui, "chrome://settings/search", wait_text="Change")
    root = page["root"]
    await ui.press_named(page, "Change")
    await ui.wait_for(root=root, text="Set as default", timeout_ms=10000)
    page = await ui.observe(root)
    bing = await ui.find(page, text="Bing", role="radio-button")
    await ui.act(page, [{"action": "check", "ref": bing["ref"]}])
    page = await ui.observe(root)
    await ui.press_named(page, "Set as default")
    await chrome_ui.quit_browser(ui)
    ui.done()
