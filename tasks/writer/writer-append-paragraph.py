"""Go to the end of the Writer document, start a paragraph, type it, save."""
from uitask import run


async def solve(ui):
    state = await ui.office("report.docx")
    state = await ui.keys(state, "ctrl+End")
    text = await ui.focused(await ui.office("report.docx"), role="paragraph")
    await ui.act(state, [{"action": "typeText", "ref": text["ref"], "text": "\nNext quarter we open two new offices."}])
    await ui.office_save("report.docx")
    ui.done()


run(solve)
