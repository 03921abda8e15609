#!/usr/bin/env python3
"""Progress and cancellation (issue 15 item 2) with the official MCP Python SDK, in an isolated
desktop with mousepad open (crates/uidriver/tests/mcp_sdk.rs runs it as
`uidriver sandbox --app mousepad -- python3 tests/mcp/progress.py UIDRIVER`).

Checked: a 3 s `wait_for` with a progress callback gets `notifications/progress` at least once
a second, each with a message, the progress growing; a `wait_for` of 20 s cancelled by the
caller (the SDK sends `notifications/cancelled`) is stopped by the server within a second (its
report, a `notifications/message` naming the cancelled request, arrives that soon and says
`cancelled`, nothing delivered); `uidriver call wait_for` interrupted by ^C answers
`cancelled` within a second; an `act_ui` batch typeText "alpha", wait 4 s, typeText
"omega" cancelled during the wait reports the first step delivered and the wait refused as
cancelled, and mousepad's text, read afterwards by a new observation, holds "alpha" and never
"omega". Exit 0 on success; prints what failed otherwise. The caller isolates the daemon
(UIDRIVER_SOCKET, XDG_STATE_HOME); this script stops it.
"""
import asyncio
import json
import os
import signal
import subprocess
import sys
import time

from sdk_checks import Checks

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


class Reports:
    """The server's log messages about cancelled calls, as they arrive."""

    def __init__(self):
        self.items = []
        self.arrived = asyncio.Event()

    async def __call__(self, params):
        data = params.data if isinstance(params.data, dict) else {}
        if "cancelled" in data:
            self.items.append((time.monotonic(), data))
            self.arrived.set()

    async def next_for(self, tool, timeout):
        """The first report about a cancelled call of `tool`, with when it came (None: none)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for when, data in self.items:
                if data["cancelled"].get("tool") == tool:
                    self.items.remove((when, data))
                    return when, data
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), max(0.01, end - time.monotonic()))
            except asyncio.TimeoutError:
                pass
        return None


async def editor(session):
    """mousepad's root and its text view's ref in a fresh state."""
    r = await session.call_tool("observe_ui", {"app": "mousepad", "mode": "semantic"})
    st = r.structured_content or {}
    state, root = st.get("stateId"), st.get("root")
    r = await session.call_tool("search_ui", {"stateId": state, "role": "text", "capability": "type-text"})
    matches = (r.structured_content or {}).get("matches") or []
    return root, state, matches[0] if matches else None


async def cancel_after(session, tool, args, delay):
    """Starts a call, cancels it (as a host does) after `delay` s; the time of the cancel."""
    task = asyncio.create_task(session.call_tool(tool, args))
    await asyncio.sleep(delay)
    cancelled_at = time.monotonic()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    return cancelled_at


async def cli_interrupt(exe, root, check):
    """`uidriver call wait_for` interrupted by ^C (SIGINT): the daemon stops the wait, and the
    CLI prints its answer (cancelled) and exits 1 within a second."""
    args = json.dumps({"root": root, "text": "never shown here", "timeoutMs": 20000})
    p = subprocess.Popen([exe, "call", "wait_for", args, "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    await asyncio.sleep(1.5)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = await asyncio.to_thread(p.communicate, timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    took = time.monotonic() - t0
    code = (json.loads(out or "{}").get("error") or {}).get("code")
    check(p.returncode == 1 and code == "cancelled", f"^C cancels uidriver call: {p.returncode} {out[:300]} {err[:300]}")
    check(took < 1.0, f"the CLI answered within a second of ^C: {took:.2f} s")


async def exercise(session, exe, reports, check):
    root, state, view = await editor(session)
    check(root and state and view, f"mousepad is observed and its text view found: {root} {state} {view}")
    if not (root and state and view):
        return

    # Progress during a 3 s wait that never holds.
    seen = []

    async def on_progress(progress, total, message):
        seen.append((time.monotonic(), progress, message))

    t0 = time.monotonic()
    r = await session.call_tool("wait_for", {"root": root, "text": "never shown here", "timeoutMs": 3000},
                                progress_callback=on_progress)
    t1 = time.monotonic()
    code = ((r.structured_content or {}).get("error") or {}).get("code")
    check(r.is_error and code == "timeout", f"the wait times out: {r.content[0].text[:200]}")
    check(len(seen) >= 3, f"3 s of waiting bring at least 3 progress notifications: {seen}")
    marks = [t0] + [t for t, _, _ in seen] + [t1]
    gaps = [b - a for a, b in zip(marks, marks[1:])]
    check(max(gaps) < 1.2, f"no silence of a second or more: gaps {[round(g, 2) for g in gaps]}")
    check(all(b[1] > a[1] for a, b in zip(seen, seen[1:])), f"progress grows: {[p for _, p, _ in seen]}")
    check(all(m and m.startswith("wait_for") for _, _, m in seen), f"each says what it does: {seen}")

    # A cancelled wait: stopped by the server within a second of the cancel.
    cancelled_at = await cancel_after(session, "wait_for",
                                      {"root": root, "text": "never shown here", "timeoutMs": 20000}, 0.6)
    got = await reports.next_for("wait_for", 5)
    check(got is not None, "the server reports the cancelled wait_for")
    if got:
        when, data = got
        check(when - cancelled_at < 1.0, f"the wait stopped within a second: {when - cancelled_at:.2f} s")
        err = (data.get("structuredContent") or {}).get("error") or {}
        check(err.get("code") == "cancelled" and err.get("delivery") == "not_delivered",
              f"the report says cancelled, nothing delivered: {data}")
    r = await session.call_tool("find_roots", {"app": "mousepad"})
    check(not r.is_error, "the session goes on after a cancel")
    await cli_interrupt(exe, root, check)

    # A cancelled batch: the step before the safe point was delivered, the rest never sent.
    ref = view["ref"]
    actions = [
        {"action": "typeText", "ref": ref, "text": "alpha"},
        {"action": "wait", "ms": 4000},
        {"action": "typeText", "ref": ref, "text": "omega"},
    ]
    cancelled_at = await cancel_after(session, "act_ui", {"stateId": state, "actions": actions}, 1.5)
    got = await reports.next_for("act_ui", 15)
    check(got is not None, "the server reports the cancelled act_ui")
    if got:
        when, data = got
        st = data.get("structuredContent") or {}
        steps = st.get("steps") or []
        check(len(steps) == 2, f"two steps reported (the third never ran): {steps}")
        if len(steps) == 2:
            check(steps[0]["delivery"]["delivered"] == "delivered" and steps[0]["outcome"] == "worked",
                  f"typeText alpha was delivered: {steps[0]}")
            e = steps[1].get("error") or {}
            check(e.get("code") == "cancelled" and steps[1]["delivery"]["delivered"] == "not_delivered",
                  f"the wait was cut short by the cancel: {steps[1]}")
        check("cancelled" in data.get("text", ""), f"the text says so: {data.get('text', '')[:400]}")
        check(when - cancelled_at < 3.0, f"the batch stopped soon after the cancel: {when - cancelled_at:.2f} s")
    # Past the time the third step would have run, mousepad holds alpha and no omega.
    await asyncio.sleep(max(0.0, cancelled_at + 4.0 - time.monotonic()))
    _, _, after = await editor(session)
    value = (after or {}).get("value") or ""
    check("alpha" in value and "omega" not in value, f"mousepad's text has alpha, never omega: {value!r}")


async def main(exe):
    check = Checks()
    reports = Reports()
    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=reports) as session:
            await asyncio.wait_for(session.initialize(), 30)
            try:
                await asyncio.wait_for(exercise(session, exe, reports, check), 150)
            except Exception as e:  # noqa: BLE001 - reported as a failure; the daemon is still stopped
                check(False, f"the progress checks stopped: {type(e).__name__}: {e}")
    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("progress", "progress during a wait, a cancelled wait and a cancelled batch ok")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
