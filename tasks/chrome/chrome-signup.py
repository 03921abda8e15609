"""Create an account: text, password, radio, number and check box controls."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    page = await ui.act(page, [
        {"action": "setText", "ref": await ui.field(page, "Username"), "text": "grace"},
        {"action": "setText", "ref": await ui.field(page, "Password"), "text": "Cobol-1959"},
        {"action": "check", "ref": (await ui.find_named(page, "Team", role="radio-button"))["ref"]},
        {"action": "setText", "ref": await ui.field(page, "Seats"), "text": "12"},
        {"action": "check", "ref": (await ui.find_named(page, "I accept the terms of service", role="check-box"))["ref"]},
    ])
    await ui.act(page, [{"action": "press", "ref": (await ui.find_named(page, "Create account", role="button"))["ref"]}],
                 expect={"text": "Thank you", "timeoutMs": 8000})
    ui.done()


run(solve)
