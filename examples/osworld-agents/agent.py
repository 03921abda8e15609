#!/usr/bin/env python3
"""An OSWorld agent made of scripted solutions: one module per task under solutions/, found by
the task's uuid ($UIDRIVER_TASK_ID; its first 8 characters start the module's file name,
`solutions/<8 chars>_<short_name>.py`), whose TASK_ID must be the whole id (OSWorld's
collaborative/030eeff7-collaborative shares its first 8 characters with chrome/030eeff7-… but
starts from another desktop). A task without a solution is left alone (exit 0, no verdict), so
OSWorld's evaluator fails it as it would fail an agent that did nothing.

Each module defines `async def solve(ui)` and acts only through uidriver's MCP tools (the `ui`
helper of tasks/lib/uitask.py, which talks to `uidriver mcp` over stdio as any agent would).
"""
import glob
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# uitask lives in the repo's tasks/lib (the runner also puts it on PYTHONPATH).
sys.path.insert(0, os.path.join(HERE, "..", "..", "tasks", "lib"))
sys.path.insert(0, HERE)


def main():
    task_id = os.environ.get("UIDRIVER_TASK_ID", "")
    prefix = task_id[:8]
    found = sorted(glob.glob(os.path.join(HERE, "solutions", f"{prefix}_*.py"))) if len(prefix) == 8 else []
    if not found:
        print(f"osworld-agents: no solution for task {task_id!r}", file=sys.stderr)
        return 0
    spec = importlib.util.spec_from_file_location("solution", found[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if getattr(module, "TASK_ID", None) != task_id:
        print(f"osworld-agents: no solution for task {task_id!r} "
              f"({os.path.basename(found[0])} is for {getattr(module, 'TASK_ID', '?')})", file=sys.stderr)
        return 0
    print(f"osworld-agents: task {task_id} -> {os.path.relpath(found[0], HERE)}", file=sys.stderr)
    from uitask import run
    run(module.solve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
