"""Delete lines in FeatherPad: read the document from the editor, set the edited text, save."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="featherpad", kind="window")
    editor = await ui.find(main, role="text", capability="set-text")
    text = await ui.read_all(main, editor["ref"])
    kept = "".join(line for line in text.splitlines(keepends=True) if "DEBUG" not in line)
    main = await ui.act(main, [{"action": "setText", "ref": editor["ref"], "text": kept}])
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
