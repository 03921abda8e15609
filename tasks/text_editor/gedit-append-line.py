"""Append a line at the end of a gedit document and save."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="gedit", kind="window")
    editor = await ui.find(main, role="text", capability="type-text")
    main = await ui.act(main, [{"action": "focus", "ref": editor["ref"]},
                               {"action": "keypress", "keys": ["ctrl+End"]}])
    text = editor.get("value") or ""
    line = "4. Call the plumber\n" if text.endswith("\n") else "\n4. Call the plumber\n"
    main = await ui.type_into(main, editor["ref"], line)
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
