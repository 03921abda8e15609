"""Select a Score cell, then Data > Sort Descending; save."""
from uitask import run


async def solve(ui):
    state = await ui.calc_select("grades.xlsx", "B2")
    item = await ui.find_named(state, "Sort Descending", role="menu-item", includeHidden=True)
    await ui.act(state, [{"action": "press", "ref": item["ref"]}])
    await ui.office_save("grades.xlsx")
    ui.done()


run(solve)
