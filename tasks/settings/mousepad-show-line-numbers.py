"""Edit > Preferences…, tick "Show line numbers", close."""
from uitask import run


async def solve(ui):
    dlg = await ui.mousepad_preferences()
    box = await ui.find_named(dlg, "Show line numbers", role="check-box")
    dlg = await ui.act(dlg, [{"action": "check", "ref": box["ref"]}])
    await ui.keys(dlg, "Escape")  # the dialog has no Close button; changes apply at once
    ui.done()


run(solve)
