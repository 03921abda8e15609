"""xfce4-terminal: Preferences, Scrollback spin button to 5000."""
from uitask import run


async def solve(ui):
    dlg = await ui.terminal_preferences()
    pane = await ui.find_named(dlg, "Scrolling", role="pane")
    lines = await ui.find(dlg, role="spin-button", scopeRef=pane["ref"])
    dlg = await ui.act(dlg, [{"action": "setValue", "ref": lines["ref"], "value": 5000}])
    await ui.press_named(dlg, "Close")
    ui.done()


run(solve)
