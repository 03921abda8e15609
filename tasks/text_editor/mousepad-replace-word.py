"""Find and Replace in Mousepad: open the dialog, fill both fields, replace all, save."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="mousepad", kind="window")
    await ui.keys(main, "ctrl+r")
    dlg = await ui.observe(await ui.root(text="Find and Replace", kind="dialog"))
    search = await ui.field_after(dlg, "Search for")
    replace = await ui.field_after(dlg, "Replace with")
    all_in = await ui.find_named(dlg, "Replace all in:", role="check-box")
    dlg = await ui.act(dlg, [
        {"action": "typeText", "ref": search, "text": "colour"},
        {"action": "typeText", "ref": replace, "text": "color"},
        {"action": "check", "ref": all_in["ref"]},
    ])
    button = await ui.find_named(dlg, "Replace All", role="button")
    dlg = await ui.act(dlg, [{"action": "press", "ref": button["ref"]}],
                       expect={"text": "0 occurrences", "timeoutMs": 5000})
    close = await ui.find_named(dlg, "Close", role="button")
    await ui.act(dlg, [{"action": "press", "ref": close["ref"]}])
    main = await ui.observe(app="mousepad", kind="window")
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
