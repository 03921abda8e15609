"""gedit: ctrl+h, fill Find and Replace with, Replace All, close, save."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="gedit", kind="window")
    dlg = await ui.open_dialog(main, "ctrl+h", "Replace")
    # The two fields are labelled by "Find" and "Replace with" (AT-SPI labelled-by relations);
    # their layout puts both labels after both fields, so only the names can tell them apart.
    # Each is a combo box holding a text entry, both named by the label: the text is typed into
    # the entry.
    find = await ui.field(dlg, "Find", role=("text",))
    replace = await ui.field(dlg, "Replace with", role=("text",))
    dlg = await ui.act(dlg, [{"action": "setText", "ref": find, "text": "2023"},
                             {"action": "setText", "ref": replace, "text": "2024"}])
    dlg = await ui.press_named(dlg, "Replace All")
    dlg = await ui.dialog("Replace")
    await ui.press_named(dlg, "Close")
    main = await ui.observe(app="gedit", kind="window")
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
