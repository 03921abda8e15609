"""Select the last slide, add a slide after it, title it, save."""
import asyncio

from uitask import run


async def solve(ui):
    state = await ui.office("pitch.pptx")
    slides = await ui.find(state, role="document", text="Slides View")
    last = await ui.find_named(state, "The market", role="pane", scopeRef=slides["ref"])
    state = await ui.act(state, [{"action": "click", "ref": last["ref"]}])
    await ui.keys(state, "ctrl+m")
    # The new slide shows in the Slides pane as a third entry once Impress has made it.
    for _ in range(20):
        state = await ui.office("pitch.pptx")
        # While Impress rebuilds its window the pane may be missing from a look: look again.
        slides = await ui.search(state, role="document", text="Slides View", ocrFallback=False)
        if slides:
            entries = await ui.search(state, role="pane", scopeRef=slides[0]["ref"])
            if len(entries) >= 3:
                break
        await asyncio.sleep(0.3)
    await ui.impress_set_title("pitch.pptx", "Next steps")
    await ui.office_save("pitch.pptx")
    ui.done()


run(solve)
