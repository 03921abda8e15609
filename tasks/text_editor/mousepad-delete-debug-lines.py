"""Read the log in Mousepad, drop the DEBUG lines, put the text back and save."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="mousepad", kind="window")
    editor = await ui.find(main, role="text", capability="set-text")
    text = (await ui.call("read_text", {"stateId": main["stateId"], "ref": editor["ref"]}))["text"]
    kept = "".join(l for l in text.splitlines(keepends=True) if "DEBUG" not in l)
    main = await ui.act(main, [{"action": "setText", "ref": editor["ref"], "text": kept}])
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
