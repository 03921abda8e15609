"""Read the shipped orders from the web table, type them into Calc, save."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    table = await ui.table_rows(page)
    header = table[0]
    col = {name: header.index(name) for name in ("Order", "Total", "Status")}
    rows = [(r[col["Order"]], r[col["Total"]]) for r in table[1:] if r[col["Status"]] == "shipped"]
    for n, (order, total) in enumerate(rows, start=1):
        await ui.calc_enter("orders.xlsx", f"A{n}", order)
        await ui.calc_enter("orders.xlsx", f"B{n}", total)
    await ui.office_save("orders.xlsx")
    ui.done()


run(solve)
