"""The agent of tests/osworld.rs's fixture tasks, picked by task id. For the text task it reads
the words to replace from the instruction ("replace every 'X' with 'Y' …") and does it the way
a person would, through Mousepad's Find and Replace dialog over MCP, then saves; it knows
nothing of the evaluator. The infeasible task it declares infeasible; the rest it leaves
alone (their evaluators judge only what OSWorld's setup did, or expect work it does not do)."""
import os
import re
import sys

TEXT_TASK = "5d0c1f52-7a1e-4f0b-9c43-2a6f1b1e0a01"
INFEASIBLE_TASK = "c9e8d7f6-1a2b-4c3d-8e4f-5a6b7c8d9e0f"


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


task = os.environ.get("UIDRIVER_TASK_ID", "")
if task == INFEASIBLE_TASK:
    with open(os.environ["UIDRIVER_TASK_RESULT"], "w") as f:
        f.write("infeasible\n")
    sys.exit(0)
if task != TEXT_TASK:
    sys.exit(0)

from uitask import run  # noqa: E402

run(solve)
