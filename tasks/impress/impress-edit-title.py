"""Edit the first slide's title in Impress and save."""
from uitask import run


async def solve(ui):
    await ui.impress_set_title("pitch.pptx", "Our new product")
    await ui.office_save("pitch.pptx")
    ui.done()


run(solve)
