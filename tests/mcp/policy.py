#!/usr/bin/env python3
"""`uidriver mcp --policy FILE` with the official MCP Python SDK, in an isolated desktop with
mousepad and a zenity dialog open (crates/uidriver/tests/mcp_sdk.rs runs it as
`uidriver sandbox --app mousepad --app 'zenity …' -- python3 tests/mcp/policy.py UIDRIVER`).

The policy denies a tool (desktop_input) and an app (mousepad) and names a secret shown in the
zenity dialog. Checked: `uidriver policy check` accepts it and rejects a typo; tools/list leaves
the denied tool out, and calling it anyway answers policy_denied naming the rule and the file; mousepad is not listed and observing it,
by app name or by a ref another client got, answers policy_denied; the same daemon still
serves a client without the policy (the policy travels with each call); the secret never
appears in a result. Exit 0 on success; prints what failed otherwise. The caller isolates the
daemon (UIDRIVER_SOCKET, XDG_STATE_HOME); this script stops it.
"""
import asyncio
import json
import os
import subprocess
import sys
import tempfile

from sdk_checks import Checks, cli

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SECRET = "s3cr3t-policy-value"
POLICY = f"""
[tools]
deny = ["desktop_input"]
[apps]
deny = ["mousepad"]
[secrets]
values = ["{SECRET}"]
"""


def error_of(r):
    return (r.structured_content or {}).get("error") or {}


def policy_check(exe, path, check):
    p = subprocess.run([exe, "policy", "check", path], capture_output=True, text=True, timeout=30)
    check(p.returncode == 0, f"policy check accepts the file: {p.returncode} {p.stderr}")
    check("tools denied: desktop_input" in p.stdout, f"check names the denied tool: {p.stdout}")
    check('except "mousepad"' in p.stdout, f"check names the denied app: {p.stdout}")
    check(SECRET not in p.stdout, "check never prints a secret")
    typo = path + ".typo.toml"
    with open(typo, "w") as f:
        f.write('[apps]\ndenny = ["mousepad"]\n')
    p = subprocess.run([exe, "policy", "check", typo], capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and "denny" in p.stderr, f"a typo is refused, naming the key: {p.returncode} {p.stderr}")


async def exercise(session, exe, path, check):
    # A denied tool: policy_denied naming the rule and the file. The call is valid (a frame
    # of this screen, a clipboard text), so only the policy stops it.
    r = await session.call_tool("desktop_screenshot", {})
    frame = (r.structured_content or {}).get("frameId")
    check(not r.is_error and frame, f"desktop_screenshot is allowed: {r.content[0].text[:200]}")
    r = await session.call_tool("desktop_input", {
        "frameId": frame, "actions": [{"action": "moveMouse", "x": 5, "y": 5}],
        "clipboardWrite": "written-under-policy", "screenshot": False,
    })
    e = error_of(r)
    check(r.is_error and e.get("code") == "policy_denied", f"desktop_input is denied: {r.content[0].text[:300]}")
    check('[tools] deny contains "desktop_input"' in e.get("message", ""), f"the rule is named: {e}")
    check(path in e.get("message", ""), f"the file is named: {e}")
    check(e.get("delivery") == "not_delivered", f"nothing was sent: {e}")
    # Seen by a client without the policy: the clipboard does not hold what was refused.
    code, out = cli(exe, "desktop_input", {"clipboardRead": True, "screenshot": False})
    check(code == 0 and out.get("clipboard") != "written-under-policy",
          f"the denied call wrote nothing: {code} {str(out)[:300]}")

    # A denied app: not listed; observing it by name answers policy_denied.
    r = await session.call_tool("find_roots", {})
    roots = (r.structured_content or {}).get("roots") or []
    apps = [x["app"].lower() for x in roots]
    check(not r.is_error and "mousepad" not in apps, f"mousepad is not listed: {apps}")
    check("policy denies" in r.content[0].text, f"find_roots says roots are hidden: {r.content[0].text[:300]}")
    zenity = [x for x in roots if "zenity" in x["app"].lower() or "information" in x["title"].lower()]
    check(bool(zenity), f"the allowed zenity dialog is listed: {roots}")
    r = await session.call_tool("observe_ui", {"app": "mousepad"})
    e = error_of(r)
    check(r.is_error and e.get("code") == "policy_denied", f"observe_ui app=mousepad is denied: {r.content[0].text[:300]}")
    check('[apps] deny contains "mousepad"' in e.get("message", ""), f"the app rule is named: {e}")

    # Another client of the same daemon, without the policy, sees mousepad and gets its ref;
    # this session still may not use it.
    code, out = cli(exe, "find_roots", {"app": "mousepad"})
    mine = [x["ref"] for x in out.get("roots", [])]
    check(code == 0 and bool(mine), f"a client without the policy lists mousepad: {out}")
    if mine:
        r = await session.call_tool("observe_ui", {"root": mine[0], "mode": "semantic"})
        check(error_of(r).get("code") == "policy_denied", f"observe_ui by ref is denied: {r.content[0].text[:300]}")
        code, out = cli(exe, "observe_ui", {"root": mine[0], "mode": "semantic"})
        check(code == 0 and out.get("stateId"), f"the client without the policy observes it: {str(out)[:300]}")
        state = out.get("stateId")
        if state:
            r = await session.call_tool("search_ui", {"stateId": state, "text": "File"})
            check(error_of(r).get("code") == "policy_denied", f"a state of mousepad is denied: {r.content[0].text[:300]}")
        p = subprocess.run([exe, "call", "--policy", path, "observe_ui", json.dumps({"root": mine[0]}), "--json"],
                           capture_output=True, text=True, timeout=60)
        out = json.loads(p.stdout or "{}")
        check(p.returncode == 1 and out.get("error", {}).get("code") == "policy_denied",
              f"uidriver call --policy denies it too: {p.returncode} {p.stdout[:300]}")

    # The secret in the dialog's text never reaches the model.
    if zenity:
        r = await session.call_tool("observe_ui", {"root": zenity[0]["ref"], "mode": "semantic"})
        text = r.content[0].text if r.content else ""
        check(not r.is_error, f"the zenity dialog is observed: {text[:300]}")
        check(SECRET not in text and SECRET not in json.dumps(r.structured_content), "the secret is redacted")
        check("token ••••" in text, f"the redaction marker stands in its place: {text[:600]}")


async def main(exe):
    check = Checks()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "policy.toml")
        with open(path, "w") as f:
            f.write(POLICY)
        policy_check(exe, path, check)
        params = StdioServerParameters(command=exe, args=["mcp", "--policy", path], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await asyncio.wait_for(session.initialize(), 30)
                names = {t.name for t in (await session.list_tools()).tools}
                check("desktop_input" not in names and "act_ui" in names,
                      f"tools/list leaves out the denied tool only: {sorted(names)}")
                try:
                    await asyncio.wait_for(exercise(session, exe, path, check), 120)
                except Exception as e:  # noqa: BLE001 - reported as a failure; the daemon is still stopped
                    check(False, f"the policy checks stopped: {type(e).__name__}: {e}")
    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("policy", "policy denials (tool, app, ref, state), per-client policy and secrets ok")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
