"""libreoffice_impress 2cd43775: auto-save every 3 minutes. Tools > Options > Load/Save >
General: check "Save AutoRecovery information every:", its minutes spin button to 3, OK.
LibreOffice writes the option to registrymodifications.xcu when the dialog closes."""
TASK_ID = "2cd43775-7085-45d8-89fa-9e35c0a915cf"

import asyncio

import office_ui
from uitask import NotFound


async def solve(ui):
    main = await office_ui.impress(ui)
    item = await ui.find_named(main, "Options...", role="menu-item", includeHidden=True)
    await ui.act(main, [{"action": "press", "ref": item["ref"]}])
    dlg = await ui.dialog("Options", timeout=20)
    load_save = await ui.find_named(dlg, "Load/Save", role="cell")
    if "expanded" not in (load_save.get("states") or []):
        await ui.act(dlg, [{"action": "expand", "ref": load_save["ref"]}])
        dlg = await ui.observe(dlg["root"])
    # Two pages are called General (LibreOffice's and Load/Save's): the one under Load/Save
    # comes later in the tree; the dialog's title says which page shows.
    generals = [m for m in await ui.search(dlg, text="General", role="cell", limit=20)
                if (m.get("name") or "") == "General"]
    for cell in reversed(generals):
        await ui.act(dlg, [{"action": "click", "ref": cell["ref"]}])
        await asyncio.sleep(0.5)
        if (await ui.call("find_roots", {"kind": "dialog", "text": "Load/Save - General"})).get("roots"):
            break
    else:
        raise NotFound("the Load/Save > General page did not open")
    dlg = await ui.dialog("Load/Save - General")
    box = await ui.find_named(dlg, "Save AutoRecovery information every:", role="check-box")
    minutes = await ui.find(dlg, role="spin-button", text="automatic recovery")
    dlg = await ui.act(dlg, [{"action": "check", "ref": box["ref"]},
                             {"action": "setValue", "ref": minutes["ref"], "value": 3}])
    dlg = await ui.dialog("Load/Save - General")
    await ui.press_named(dlg, "OK")
    await asyncio.sleep(1)
    ui.done()
