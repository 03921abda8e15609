"""Switch to the Notifications tab, change two settings, save."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    tab = await ui.find_named(page, "Notifications", role="tab")
    page = await ui.act(page, [{"action": "press", "ref": tab["ref"]}], expect={"text": "Weekly digest email", "timeoutMs": 5000})
    page = await ui.observe(page["root"] if "root" in page else await ui.root(kind="browser_page"))
    page = await ui.act(page, [
        {"action": "uncheck", "ref": (await ui.find_named(page, "Weekly digest email", role="check-box"))["ref"]},
        {"action": "select", "ref": await ui.field(page, "Reminder frequency"), "value": "weekly"},
    ])
    await ui.act(page, [{"action": "press", "ref": (await ui.find_named(page, "Save settings", role="button"))["ref"]}],
                 expect={"text": "Thank you", "timeoutMs": 8000})
    ui.done()


run(solve)
