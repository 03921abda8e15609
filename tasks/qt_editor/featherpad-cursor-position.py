"""A FeatherPad preference: Options > Preferences, check a box by its name, close."""
from uitask import run


async def solve(ui):
    await ui.menu({"app": "featherpad", "kind": "window"}, "Options", "Preferences")
    dlg = await ui.dialog(text="Preferences")
    box = await ui.find_named(dlg, "Show cursor position on status bar", role="check-box")
    dlg = await ui.act(dlg, [{"action": "check", "ref": box["ref"]}])
    await ui.press_named(dlg, "Close")
    ui.done()


run(solve)
