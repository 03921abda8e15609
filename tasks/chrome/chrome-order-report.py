"""Read an order number from a table, then send it in a form."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    order = (await ui.row_of(page, "Katherine Johnson"))[0]
    page = await ui.act(page, [
        {"action": "setText", "ref": await ui.field(page, "Order number"), "text": order},
        {"action": "setText", "ref": await ui.field(page, "What went wrong?"), "text": "Parcel arrived damaged"},
    ])
    await ui.act(page, [{"action": "press", "ref": (await ui.find_named(page, "Submit report", role="button"))["ref"]}],
                 expect={"text": "Thank you", "timeoutMs": 8000})
    ui.done()


run(solve)
