"""Fill and send the contact form in Chromium."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    page = await ui.act(page, [
        {"action": "setText", "ref": await ui.field(page, "Full name"), "text": "Ada Lovelace"},
        {"action": "setText", "ref": await ui.field(page, "Email"), "text": "ada@example.org"},
        {"action": "select", "ref": await ui.field(page, "Topic"), "value": "Technical support"},
        {"action": "setText", "ref": await ui.field(page, "Message"), "text": "The engine stops at step 7."},
        {"action": "check", "ref": (await ui.find_named(page, "Send me a copy", role="check-box"))["ref"]},
    ])
    send = await ui.find_named(page, "Send message", role="button")
    await ui.act(page, [{"action": "press", "ref": send["ref"]}], expect={"text": "Thank you", "timeoutMs": 8000})
    ui.done()


run(solve)
