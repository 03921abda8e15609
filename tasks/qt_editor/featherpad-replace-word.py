"""Find and replace in FeatherPad's Replacement dock: the fields follow their labels; the
Replace all button has no name, only the description "Replace all (F10)"."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="featherpad", kind="window")
    replace = await ui.find_named(main, "Replace", role="button")
    main = await ui.act(main, [{"action": "press", "ref": replace["ref"]}])
    find = await ui.field_after(main, "Find:")
    with_ = await ui.field_after(main, "Replace with:")
    main = await ui.act(main, [
        {"action": "setText", "ref": find, "text": "colour"},
        {"action": "setText", "ref": with_, "text": "color"},
    ])
    button = await ui.find(main, text="Replace all", role="button")
    main = await ui.act(main, [{"action": "press", "ref": button["ref"]}])
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
