"""libreoffice_impress ef9d12bd: bring the slide panel back. View > Slide Pane; the panel is
the "Slides View" document in the window. The menu item's check mark is not trusted (it read
checked while the pane was closed): the window's content decides."""
TASK_ID = "ef9d12bd-bcee-4ba0-a40e-918400f43ddf"

import asyncio

import office_ui
from uitask import NotFound


async def slides_view(ui, state):
    return [m for m in await ui.search(state, text="Slides View", role="document", limit=5, ocrFallback=False)
            if (m.get("name") or "") == "Slides View"]


async def solve(ui):
    main = await office_ui.impress(ui)
    root = main["root"]
    if not await slides_view(ui, main):
        item = await ui.find_named(main, "Slide Pane", role="check-menu-item", includeHidden=True)
        await ui.act(main, [{"action": "press", "ref": item["ref"]}])
        for _ in range(10):
            main = await ui.observe(root)
            if await slides_view(ui, main):
                break
            await asyncio.sleep(0.5)
        else:
            raise NotFound("the slide pane did not show")
    ui.done()
