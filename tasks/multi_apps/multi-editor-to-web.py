"""Read the message from Mousepad, then send it with the web form."""
from uitask import run


async def solve(ui):
    state = await ui.observe(app="mousepad", kind="window")
    editor = await ui.find(state, role="text", capability="read-text")
    message = (await ui.read_all(state, editor["ref"])).strip()
    page = await ui.open_page(ui.url_in_instruction())
    page = await ui.act(page, [
        {"action": "setText", "ref": await ui.field(page, "Full name"), "text": "Mary Somerville"},
        {"action": "setText", "ref": await ui.field(page, "Email"), "text": "mary@example.org"},
        {"action": "select", "ref": await ui.field(page, "Topic"), "value": "Billing"},
        {"action": "setText", "ref": await ui.field(page, "Message"), "text": message},
    ])
    await ui.act(page, [{"action": "press", "ref": (await ui.find_named(page, "Send message", role="button"))["ref"]}],
                 expect={"text": "Thank you", "timeoutMs": 8000})
    ui.done()


run(solve)
