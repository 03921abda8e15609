"""Append a line in FeatherPad (Qt 5): move to the end of the document, type, save."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="featherpad", kind="window")
    editor = await ui.find(main, role="text", capability="type-text")
    main = await ui.act(main, [{"action": "focus", "ref": editor["ref"]},
                               {"action": "keypress", "keys": ["ctrl+End"]}])
    main = await ui.type_into(main, editor["ref"], "4. ship it\n")
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
