"""Read the file names shown by Thunar, write the .txt ones into Mousepad, save."""
from uitask import run


async def solve(ui):
    state = await ui.observe(app="thunar", kind="window")
    await ui.keys(state, "ctrl+2")  # the icon view shows no items to accessibility
    state = await ui.observe(app="thunar", kind="window")
    view = await ui.find(state, role="table", scopeRef=(await ui.find_named(state, "Details view", role="pane"))["ref"])
    names = sorted({c["name"] for c in await ui.search(state, role="cell", scopeRef=view["ref"], text=".txt", limit=100)
                    if (c.get("name") or "").endswith(".txt")})
    editor_state = await ui.observe(app="mousepad", kind="window")
    editor = await ui.find(editor_state, role="text", capability="set-text")
    editor_state = await ui.act(editor_state, [{"action": "setText", "ref": editor["ref"], "text": "\n".join(names) + "\n"}])
    await ui.keys(editor_state, "ctrl+s")
    ui.done()


run(solve)
