"""A tiny agent for the OSWorld fixture of tests/tasks.rs: it reads the words to replace from
the instruction ("replace every 'X' with 'Y' …") and does it the way a person would, through
Mousepad's Find and Replace dialog over MCP, then saves. It knows nothing of the evaluator."""
import os
import re

from uitask import run


async def solve(ui):
    m = re.search(r"replace every '([^']+)' with '([^']+)'", os.environ["UIDRIVER_TASK_INSTRUCTION"])
    old, new = m.group(1), m.group(2)
    main = await ui.observe(app="mousepad", kind="window")
    await ui.keys(main, "ctrl+r")
    dlg = await ui.observe(await ui.root(text="Find and Replace", kind="dialog"))
    search = await ui.field_after(dlg, "Search for")
    replace = await ui.field_after(dlg, "Replace with")
    all_in = await ui.find_named(dlg, "Replace all in:", role="check-box")
    dlg = await ui.act(dlg, [
        {"action": "typeText", "ref": search, "text": old},
        {"action": "typeText", "ref": replace, "text": new},
        {"action": "check", "ref": all_in["ref"]},
    ])
    button = await ui.find_named(dlg, "Replace All", role="button")
    dlg = await ui.act(dlg, [{"action": "press", "ref": button["ref"]}],
                       expect={"text": "0 occurrences", "timeoutMs": 5000})
    close = await ui.find_named(dlg, "Close", role="button")
    await ui.act(dlg, [{"action": "press", "ref": close["ref"]}])
    main = await ui.observe(app="mousepad", kind="window")
    await ui.keys(main, "ctrl+s")
    ui.done()


run(solve)
