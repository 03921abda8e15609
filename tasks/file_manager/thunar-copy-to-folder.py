"""Copy a file into another folder in Thunar: select, copy, go to the folder, paste."""
from uitask import run


async def solve(ui):
    state, item = await ui.thunar_file("notes.txt")
    state = await ui.act(state, [{"action": "click", "ref": item["ref"]}])
    state = await ui.keys(state, "ctrl+c")
    state = await ui.keys(state, "ctrl+l")
    state = await ui.observe(app="thunar", kind="window")
    location = await ui.find(state, role="text", capability="set-text")
    home = (location.get("value") or "").rstrip("/")
    state = await ui.act(state, [{"action": "setText", "ref": location["ref"], "text": home + "/Backup/"},
                                 {"action": "keypress", "keys": ["Return"]}])
    await ui.wait_for(root=await ui.root(app="thunar", kind="window"), text="Backup - Thunar", timeout_ms=5000)
    state = await ui.observe(app="thunar", kind="window")
    view = await ui.find(state, role="table")
    state = await ui.act(state, [{"action": "focus", "ref": view["ref"]}])
    await ui.keys(state, "ctrl+v")
    await ui.wait_for(root=await ui.root(app="thunar", kind="window"), text="notes.txt", timeout_ms=5000)
    ui.done()


run(solve)
