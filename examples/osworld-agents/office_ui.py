"""What the LibreOffice solutions share: the Impress window, once the "Select a Template"
dialog Impress opens at start is closed (its Close button, as a person dismisses it)."""
import asyncio


async def impress(ui):
    main = await ui.observe(app="soffice", kind="window", text="Impress", timeout=60)
    await asyncio.sleep(1)  # the template dialog shows a moment after the window
    for r in (await ui.call("find_roots", {"kind": "dialog", "text": "Select a Template"})).get("roots", []):
        dlg = await ui.observe(r["ref"])
        await ui.press_named(dlg, "Close")
    return await ui.observe(main["root"])
