#!/usr/bin/env python3
"""Real results of the whole-desktop tools (desktop_screenshot, desktop_input), and of
find_roots and observe_ui on a desktop window, validated against the output schemas that
`uidriver mcp` lists, with `jsonschema`. conformance.py does the same for the other tools on a
browser page; these two need a screen, so this script runs inside an isolated desktop:

  uidriver sandbox --app mousepad -- python3 tests/mcp/desktop_schemas.py PATH_TO_UIDRIVER

(crates/uidriver/tests/mcp_sdk.rs does that). Exit 0 on success; prints what failed otherwise.
The caller isolates the daemon (UIDRIVER_SOCKET, XDG_STATE_HOME); this script stops it.
"""
import asyncio
import os
import subprocess
import sys

from sdk_checks import Checks, Results

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

NEEDED = {"desktop_screenshot", "desktop_input", "find_roots", "observe_ui"}


async def exercise(res):
    r = await res.call("find_roots", {"app": "mousepad"})
    roots = (r.structured_content or {}).get("roots") or []
    res.check(bool(roots), f"a mousepad window is listed: {r.content[0].text[:300]}")
    if roots:
        await res.call("observe_ui", {"root": roots[0]["ref"], "mode": "visual"})
    r = await res.call("desktop_screenshot", {"ocr": True})
    frame = r.structured_content["frameId"]
    img = r.structured_content["image"]
    await res.call("desktop_input", {
        "frameId": frame,
        "actions": [{"action": "moveMouse", "x": img["width"] // 2, "y": img["height"] // 2}],
        "clipboardWrite": "schema check", "clipboardRead": True,
    })


async def main(exe):
    check = Checks()
    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 30)
            tools = (await session.list_tools()).tools
            res = Results(session, tools, check)
            try:
                await asyncio.wait_for(exercise(res), 120)
            except Exception as e:  # noqa: BLE001 - reported as a failure; the daemon is still stopped
                check(False, f"exercising the desktop tools stopped: {type(e).__name__}: {e}")
            missing = NEEDED - res.validated
            check(not missing, f"tools without a result validated against their outputSchema: {missing}")
    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("desktop schemas", f"desktop output schemas ok: {sorted(res.validated)}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
