"""File > Export as PDF…, Export, then name the file in the save dialog."""
import asyncio

from uitask import run


async def solve(ui):
    await ui.menu({"app": "soffice", "kind": "window", "text": "memo.docx"}, "File", "Export As", "Export as PDF")
    options = await ui.dialog("PDF Options", timeout=15)
    await ui.press_named(options, "Export")
    await ui.save_dialog("memo.pdf", title="Export")
    await asyncio.sleep(2)  # LibreOffice writes the PDF after the dialog closes
    ui.done()


run(solve)
