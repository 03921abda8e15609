"""Delete one file in Thunar (it goes to the trash)."""
from uitask import run, NotFound


async def solve(ui):
    state, item = await ui.thunar_file("old-backup.tmp")
    state = await ui.act(state, [{"action": "click", "ref": item["ref"]}])
    await ui.keys(state, "Delete")
    try:
        # Thunar asks only when the file cannot go to the trash.
        dlg = await ui.dialog(timeout=2)
        await ui.press_named(dlg, "Delete")
    except NotFound:
        pass
    await ui.wait_for(root=await ui.root(app="thunar", kind="window"), text="old-backup.tmp", gone=True, timeout_ms=5000)
    ui.done()


run(solve)
