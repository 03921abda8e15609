"""Read a value off a web page, type it into Mousepad, save."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    total = (await ui.row_of(page, "Alan Turing"))[2]
    editor_state = await ui.observe(app="mousepad", kind="window")
    editor = await ui.find(editor_state, role="text", capability="set-text")
    editor_state = await ui.act(editor_state, [{"action": "setText", "ref": editor["ref"], "text": total + "\n"}])
    await ui.keys(editor_state, "ctrl+s")
    ui.done()


run(solve)
