#!/usr/bin/env python3
"""Soak benchmark (issue 14): concurrent MCP clients making mixed calls on real apps.

Starts its own private desktop (`uidriver sandbox` with gtk3-widget-factory and mousepad), an
isolated daemon, and CLIENTS `uidriver mcp` stdio servers attached to it, each driven by the
official MCP Python SDK. Every client makes CALLS calls, a weighted mix of find_roots,
observe_ui, search_ui, inspect_ui, wait_for, act_ui on a fresh state, and act_ui on a state
made stale on purpose (observed before the client's own last write to that app).

Prints calls/s, p50/p99 latency per tool, errors by code, stale writes accepted (must be 0),
hung calls (no answer within HANG s; must be 0), and the daemon's RSS before and after; writes
the figures as JSON (--json, default target/bench_soak.json).

    python3 bench/soak/soak.py --exe target/release/uidriver --clients 8 --calls 1000
"""
import argparse
import asyncio
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HANG = 60.0
APPS = ["gtk3-widget-factory", "mousepad"]
# A condition that always holds in each app, for wait_for (the widget factory's window node
# has no name, so its title is not text of the tree).
HOLDS = {"gtk3-widget-factory": {"role": "check-box"}, "mousepad": {"text": "Mousepad"}}
# (operation, weight): reads dominate, as with an agent; a tenth of the calls are stale writes.
MIX = [("find_roots", 1), ("observe_ui", 2), ("search_ui", 2), ("inspect_ui", 2),
       ("wait_for", 1), ("act_fresh", 1), ("act_stale", 1)]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def daemon_pid(exe):
    out = subprocess.run([exe, "daemon", "status"], capture_output=True, text=True, timeout=30).stdout
    m = re.search(r'"pid":\s*(\d+)', out)
    return int(m.group(1)) if m else None


class Stats:
    def __init__(self):
        self.lat = {}
        self.errors = {}
        self.stale_accepted = 0
        self.stale_refused = 0
        self.hung = 0
        self.calls = 0
        self.samples = {}
        self.per_client = {}


async def call(session, stats, tool, args, label=None):
    from mcp.types import CallToolResult  # noqa: F401 (the SDK is imported lazily in --inside)
    label = label or tool
    t = time.perf_counter()
    try:
        r = await asyncio.wait_for(session.call_tool(tool, args), HANG)
    except asyncio.TimeoutError:
        stats.hung += 1
        return None
    stats.lat.setdefault(label, []).append((time.perf_counter() - t) * 1000)
    stats.calls += 1
    sc = r.structured_content or {}
    if r.is_error:
        err = sc.get("error", {})
        key = f"{label}:{err.get('code', '?')}"
        stats.errors[key] = stats.errors.get(key, 0) + 1
        stats.samples.setdefault(key, err.get("message", "")[:160])
        return None
    return sc


async def client(exe, k, calls, stats, rnd):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    app = APPS[k % len(APPS)]
    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await asyncio.wait_for(s.initialize(), 60)
            stats.per_client[k] = 0

            async def c(tool, args, label=None):
                stats.per_client[k] += 1
                return await call(s, stats, tool, args, label)

            roots = await c("find_roots", {"app": app})
            root = next(r["ref"] for r in roots["roots"] if r["kind"] == "window")
            state = await c("observe_ui", {"root": root, "mode": "semantic"})
            sid, stale, matches = state["stateId"], None, []
            ops = [op for op, w in MIX for _ in range(w)]
            while stats.per_client[k] < calls:
                op = rnd.choice(ops)
                if op == "find_roots":
                    await c("find_roots", {"app": app})
                elif op == "observe_ui":
                    st = await c("observe_ui", {"root": root, "mode": "semantic"})
                    sid = st["stateId"] if st else sid
                elif op == "search_ui":
                    role = "check-box" if app == APPS[0] else "text"
                    r = await c("search_ui", {"stateId": sid, "role": role, "limit": 5})
                    matches = (r or {}).get("matches") or matches
                elif op == "inspect_ui" and matches:
                    await c("inspect_ui", {"stateId": sid, "ref": rnd.choice(matches)["ref"]})
                elif op == "wait_for":
                    await c("wait_for", {"root": root, **HOLDS[app], "timeoutMs": 5000})
                elif op == "act_fresh":
                    st = await c("observe_ui", {"root": root, "mode": "semantic"})
                    if not st:
                        continue
                    role = "check-box" if app == APPS[0] else "text"
                    r = await c("search_ui", {"stateId": st["stateId"], "role": role, "limit": 1})
                    if not r or not r.get("matches"):
                        continue
                    ref = r["matches"][0]["ref"]
                    step = ({"action": "press", "ref": ref} if app == APPS[0]
                            else {"action": "typeText", "ref": ref, "text": "s"})
                    out = await c("act_ui", {"stateId": st["stateId"], "actions": [step],
                                                          "headless": True}, "act_ui(fresh)")
                    if out is not None:
                        stale = (st["stateId"], step)
                        sid = out.get("stateId", sid)
                elif op == "act_stale" and stale:
                    # Observed before this client's own write to the app: must be refused.
                    stats.per_client[k] += 1
                    t = time.perf_counter()
                    try:
                        r = await asyncio.wait_for(s.call_tool(
                            "act_ui", {"stateId": stale[0], "actions": [stale[1]], "headless": True}), HANG)
                    except asyncio.TimeoutError:
                        stats.hung += 1
                        continue
                    stats.lat.setdefault("act_ui(stale)", []).append((time.perf_counter() - t) * 1000)
                    stats.calls += 1
                    stale = None  # one stale write per fresh one
                    code = ((r.structured_content or {}).get("error") or {}).get("code")
                    if not r.is_error:
                        stats.stale_accepted += 1
                    elif code == "stale_state":
                        stats.stale_refused += 1
                    else:
                        key = f"act_ui(stale):{code}"
                        stats.errors[key] = stats.errors.get(key, 0) + 1


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] if v else float("nan")


async def inside(a):
    pid = None
    # The first client starts the daemon; measure it after one call.
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    params = StdioServerParameters(command=a.exe, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await s.call_tool("find_roots", {})
    pid = daemon_pid(a.exe)
    rss0 = rss_kb(pid)
    stats = Stats()
    t0 = time.perf_counter()
    await asyncio.gather(*(client(a.exe, k, a.calls, stats, random.Random(k)) for k in range(a.clients)))
    wall = time.perf_counter() - t0
    rss1 = rss_kb(pid)
    subprocess.run([a.exe, "daemon", "stop"], timeout=30)
    print(f"soak: {a.clients} clients x {a.calls} calls on {', '.join(APPS)}: "
          f"{stats.calls} answered in {wall:.1f} s = {stats.calls / wall:.1f} calls/s")
    print(f"{'tool':<18}{'calls':>7}{'p50 ms':>9}{'p99 ms':>9}")
    for tool, v in sorted(stats.lat.items()):
        print(f"{tool:<18}{len(v):>7}{pct(v, 0.5):>9.1f}{pct(v, 0.99):>9.1f}")
    print(f"errors by code: {json.dumps(stats.errors, sort_keys=True) if stats.errors else 'none'}")
    for key, msg in sorted(stats.samples.items()):
        print(f"  e.g. {key}: {msg}")
    print(f"stale writes refused (stale_state): {stats.stale_refused}; accepted: {stats.stale_accepted} (must be 0)")
    print(f"hung calls (> {HANG:.0f} s): {stats.hung} (must be 0)")
    print(f"daemon RSS: {rss0 / 1024:.1f} MB before, {rss1 / 1024:.1f} MB after")
    out = {"clients": a.clients, "callsPerClient": a.calls, "answered": stats.calls, "wallS": wall,
           "callsPerS": stats.calls / wall, "errors": stats.errors, "staleAccepted": stats.stale_accepted,
           "staleRefused": stats.stale_refused, "hung": stats.hung, "rssKbBefore": rss0, "rssKbAfter": rss1,
           "latencyMs": {t: {"n": len(v), "p50": pct(v, 0.5), "p99": pct(v, 0.99)} for t, v in stats.lat.items()}}
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
    return 0 if stats.stale_accepted == 0 and stats.hung == 0 else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--exe", default="target/release/uidriver")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--calls", type=int, default=1000)
    p.add_argument("--json", default="target/bench_soak.json")
    p.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    a.exe = os.path.abspath(a.exe)
    if a.inside:
        return asyncio.run(inside(a))
    # A private desktop and a private daemon: nothing of the user's is touched.
    with tempfile.TemporaryDirectory(prefix="uidriver-soak-") as tmp:
        env = dict(os.environ, UIDRIVER_SOCKET=os.path.join(tmp, "run", "daemon.sock"),
                   XDG_STATE_HOME=os.path.join(tmp, "state"))
        cmd = [a.exe, "sandbox"] + [x for app in APPS for x in ("--app", app)] + [
            "--", sys.executable, os.path.abspath(__file__), "--inside", "--exe", a.exe,
            "--clients", str(a.clients), "--calls", str(a.calls), "--json", os.path.abspath(a.json)]
        return subprocess.run(cmd, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
