"""Add two items to a script-driven todo list, tick one, save."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    for item in ("Renew passport", "Email Bob"):
        page = await ui.act(page, [
            {"action": "setText", "ref": await ui.field(page, "New item"), "text": item},
            {"action": "press", "ref": (await ui.find_named(page, "Add item", role="button"))["ref"]},
        ], expect={"text": item, "role": "check-box", "timeoutMs": 5000})
    milk = await ui.find_named(page, "Buy milk", role="check-box")
    page = await ui.act(page, [{"action": "check", "ref": milk["ref"]}])
    await ui.act(page, [{"action": "press", "ref": (await ui.find_named(page, "Save list", role="button"))["ref"]}],
                 expect={"text": "Saved", "timeoutMs": 8000})
    ui.done()


run(solve)
