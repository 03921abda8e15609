"""Select a slide by its title in the Slides pane and delete it."""
from uitask import run


async def solve(ui):
    state = await ui.office("pitch.pptx")
    slides = await ui.find(state, role="document", text="Slides View")
    slide = await ui.find_named(state, "The market", role="pane", scopeRef=slides["ref"])
    state = await ui.act(state, [{"action": "click", "ref": slide["ref"]}])
    state = await ui.keys(state, "Delete")
    await ui.wait_for(root=(await ui.office("pitch.pptx"))["root"], text="The market", gone=True, timeout_ms=5000)
    await ui.office_save("pitch.pptx")
    ui.done()


run(solve)
