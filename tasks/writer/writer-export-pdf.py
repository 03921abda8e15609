"""File > Export As > Export as PDF…, Export, name the file."""
from uitask import run


async def solve(ui):
    await ui.office_export_pdf("memo.docx", "memo.pdf")
    ui.done()


run(solve)
