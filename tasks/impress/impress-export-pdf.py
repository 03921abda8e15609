"""File > Export As > Export as PDF…, Export, name the file."""
import asyncio

from uitask import run


async def solve(ui):
    await ui.menu({"app": "soffice", "kind": "window", "text": "pitch.pptx"}, "File", "Export As", "Export as PDF")
    options = await ui.dialog("PDF Options", timeout=15)
    await ui.press_named(options, "Export")
    await ui.save_dialog("pitch.pdf", title="Export")
    await asyncio.sleep(2)  # LibreOffice writes the PDF after the dialog closes
    ui.done()


run(solve)
