"""Fill D2:D4 with =B*C in Calc and save as xlsx."""
from uitask import run


async def solve(ui):
    await ui.calc_enter("sales.xlsx", "D2:D4", "=B2*C2", fill=True)
    await ui.office_save("sales.xlsx")
    ui.done()


run(solve)
