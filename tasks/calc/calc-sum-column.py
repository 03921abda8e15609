"""A label and an AVERAGE formula typed into two cells."""
from uitask import run


async def solve(ui):
    await ui.calc_enter("grades.xlsx", "A7", "Average")
    await ui.calc_enter("grades.xlsx", "B7", "=AVERAGE(B2:B6)")
    await ui.office_save("grades.xlsx")
    ui.done()


run(solve)
