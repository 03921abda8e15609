#!/usr/bin/env python3
"""One MCP session over stdio (official Python SDK), never restarted, through refused oversized
requests and SIGKILLed daemons (issue 14).

Checks, in order, on the same session:
- a 5.2 MB typeText is answered invalid_args naming the limit (nothing delivered); a 3.9 MB one
  passes the transports and is refused by the step validator; the next calls are answered;
- the daemon SIGKILLed while idle: the next call works at once (no failed call), on a new daemon.
With APP (an application open in the desktop the environment points at), also:
- an act_ui in flight when the daemon is SIGKILLed answers backend_unavailable with delivery
  `maybe`; a wait_for in flight answers it with `not_delivered`; each is the only failed call;
- a state of the killed daemon answers stale_state (reason earlier_daemon); observing works again.

Usage: reliability.py PATH_TO_UIDRIVER [APP]   (exit 0 on success; prints what failed otherwise)
The caller isolates the daemon (UIDRIVER_SOCKET, XDG_STATE_HOME, XDG_RUNTIME_DIR); this script
stops the last one.
"""
import asyncio
import os
import re
import signal
import subprocess
import sys
import time

from sdk_checks import Checks

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def daemon_pid(exe):
    """The pid of the daemon on this socket, from `uidriver daemon status` (None if none)."""
    p = subprocess.run([exe, "daemon", "status"], capture_output=True, text=True, timeout=30)
    m = re.search(r'"pid":\s*(\d+)', p.stdout)
    return int(m.group(1)) if m else None


def sigkill(pid):
    """SIGKILLs the daemon and waits until it is dead (gone, or a zombie not yet reaped)."""
    os.kill(pid, signal.SIGKILL)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.02)
    return False


def error_of(r):
    return (r.structured_content or {}).get("error") or {}


class Session:
    """Calls on one session, counting the failed ones."""

    def __init__(self, session, check):
        self.s, self.check, self.failed = session, check, []

    async def call(self, tool, args, timeout=60):
        r = await asyncio.wait_for(self.s.call_tool(tool, args), timeout)
        if r.is_error:
            self.failed.append((tool, error_of(r), r.content[0].text[:300]))
        return r

    async def ok(self, tool, args, what):
        r = await self.call(tool, args)
        self.check(not r.is_error, f"{what}: {tool} answered: {r.content[0].text[:300]}")
        return r


async def oversized(s, check):
    big = {"stateId": "s1", "actions": [{"action": "typeText", "ref": "@e1", "text": "x" * 5_200_000}]}
    r = await s.call("act_ui", big)
    e = error_of(r)
    check(r.is_error and e.get("code") == "invalid_args", f"5.2 MB request: invalid_args: {e}")
    msg = e.get("message", "")
    check("request is 5.2 MB" in msg and "the limit is 4 MB" in msg, f"the limit is named: {msg!r}")
    check(e.get("delivery") == "not_delivered", f"nothing delivered: {e.get('delivery')}")
    await s.ok("find_roots", {}, "after the 5.2 MB request")

    near = {"stateId": "s1", "actions": [{"action": "typeText", "ref": "@e1", "text": "y" * 3_900_000}]}
    r = await s.call("act_ui", near)
    e = error_of(r)
    check(e.get("code") == "invalid_args" and "100000" in e.get("message", ""),
          f"3.9 MB request reaches the step validator: {e}")
    await s.ok("find_roots", {}, "after the 3.9 MB request")
    tools = await asyncio.wait_for(s.s.list_tools(), 30)
    check(len(tools.tools) > 5, "tools/list still answered")
    s.failed.clear()


async def killed_while_idle(exe, s, check):
    pid = daemon_pid(exe)
    check(pid is not None, "the daemon's pid is known")
    if pid is None:
        return
    check(sigkill(pid), f"daemon {pid} died on SIGKILL")
    await s.ok("find_roots", {}, "first call after an idle kill")
    check(not s.failed, f"no failed call after an idle kill: {s.failed}")
    new = daemon_pid(exe)
    check(new is not None and new != pid, f"a new daemon answers: {pid} -> {new}")


async def killed_in_flight(exe, s, check, tool, args, delivery):
    """Kills the daemon while `tool` runs: that call alone fails, with `delivery`."""
    pid = daemon_pid(exe)
    s.failed.clear()
    task = asyncio.create_task(s.call(tool, args))
    await asyncio.sleep(1.5)
    check(not task.done(), f"{tool} still in flight when the daemon is killed")
    check(pid is not None and sigkill(pid), f"daemon {pid} died on SIGKILL")
    r = await task
    e = error_of(r)
    check(e.get("code") == "backend_unavailable", f"in-flight {tool}: backend_unavailable: {e}")
    check(e.get("delivery") == delivery, f"in-flight {tool}: delivery {e.get('delivery')!r}, want {delivery!r}")
    await s.ok("find_roots", {}, f"first call after killing an in-flight {tool}")
    check(len(s.failed) == 1, f"one failed call around the kill: {s.failed}")


async def with_app(exe, s, check, app):
    obs = await s.ok("observe_ui", {"app": app, "mode": "semantic"}, "observe before the kill")
    if obs.is_error:
        return
    old, root = obs.structured_content["stateId"], obs.structured_content["root"]
    wait = {"stateId": old, "actions": [{"action": "wait", "ms": 6000}]}
    await killed_in_flight(exe, s, check, "act_ui", wait, "maybe")

    r = await s.call("search_ui", {"stateId": old, "text": "x"})
    e = error_of(r)
    check(e.get("code") == "stale_state" and (e.get("details") or {}).get("reason") == "earlier_daemon",
          f"a state of the killed daemon is stale (earlier daemon): {e}")
    obs = await s.ok("observe_ui", {"app": app, "mode": "semantic"}, "observe after the kill")
    if obs.is_error:
        return
    # Root refs are never reused across daemons either: the new daemon names the window anew.
    r = await s.call("observe_ui", {"root": root, "mode": "semantic"})
    check(error_of(r).get("code") == "root_not_found", f"a root ref of the killed daemon: {error_of(r)}")
    root, new = obs.structured_content["root"], obs.structured_content["stateId"]
    await s.ok("search_ui", {"stateId": new, "text": "x"}, "search the new state")

    never = {"root": root, "text": "text that never appears 7f3a", "timeoutMs": 9000}
    await killed_in_flight(exe, s, check, "wait_for", never, "not_delivered")
    await s.ok("observe_ui", {"app": app, "mode": "semantic"}, "observe after the second kill")


async def main(exe, app):
    check = Checks()
    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 30)
            s = Session(session, check)
            await oversized(s, check)
            await killed_while_idle(exe, s, check)
            if app:
                await with_app(exe, s, check, app)
    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("reliability", "one MCP session survived oversized requests and killed daemons")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)))
