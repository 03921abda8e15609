"""Type three lines into a new Mousepad document and save it through the Save As dialog."""
from uitask import run


async def solve(ui):
    main = await ui.observe(app="mousepad", kind="window")
    editor = await ui.find(main, role="text", capability="type-text")
    main = await ui.type_into(main, editor["ref"], "eggs\nflour\nbutter\n")
    await ui.keys(main, "ctrl+s")
    await ui.save_dialog("shopping.txt")
    ui.done()


run(solve)
