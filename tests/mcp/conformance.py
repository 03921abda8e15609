#!/usr/bin/env python3
"""MCP conformance of `uidriver mcp`, driven by the official MCP Python SDK (`pip install mcp`).

Checks: initialize; tools/list (every tool has a title, a description, annotations saying
whether it only reads, may destroy, or reaches the web, an object input schema that rejects
unknown fields, and an object output schema); a bad call answered with invalid_args (isError,
structured error); the same calls through `uidriver call --json` giving the same structured
result; and real results of every tool but the two whole-desktop ones, on a page in headless
Chromium, validated against their output schemas with `jsonschema`
(tests/mcp/desktop_schemas.py validates those two inside an isolated desktop).

Usage: conformance.py PATH_TO_UIDRIVER   (exit 0 on success; prints what failed otherwise)
The caller isolates the daemon (UIDRIVER_SOCKET, XDG_STATE_HOME); this script stops it.
"""
import asyncio
import json
import os
import tempfile
import subprocess
import sys

from sdk_checks import Checks, Results, cli

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXPECTED_TOOLS = {
    "find_roots", "observe_ui", "search_ui", "expand_ui", "inspect_ui", "act_ui",
    "read_text", "wait_for", "close_root", "launch_browser", "navigate_browser", "evaluate_browser",
    "desktop_screenshot", "desktop_input", "save_pdf", "browser_log", "save_browser_state",
}
READ_ONLY = {"find_roots", "observe_ui", "search_ui", "expand_ui", "inspect_ui", "read_text",
             "wait_for", "desktop_screenshot", "browser_log"}
DESTRUCTIVE = {"act_ui", "close_root", "desktop_input", "navigate_browser", "evaluate_browser"}
OPEN_WORLD = {"launch_browser", "navigate_browser", "evaluate_browser", "browser_log"}
DESKTOP_ONLY = {"desktop_screenshot", "desktop_input"}  # validated by desktop_schemas.py
PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema_page.html")


def check_metadata(check, tools):
    """Titles, annotations and output schemas as issue 15 asks for them."""
    for t in tools:
        a = t.annotations
        check(bool(t.title), f"{t.name}: title")
        check(a is not None, f"{t.name}: annotations")
        if a is None:
            continue
        check(a.read_only_hint is (t.name in READ_ONLY), f"{t.name}: readOnlyHint {a.read_only_hint}")
        if t.name not in READ_ONLY:
            check(a.destructive_hint is (t.name in DESTRUCTIVE), f"{t.name}: destructiveHint {a.destructive_hint}")
        check(a.open_world_hint is (t.name in OPEN_WORLD), f"{t.name}: openWorldHint {a.open_world_hint}")
        o = t.output_schema
        check(isinstance(o, dict) and o.get("type") == "object", f"{t.name}: outputSchema type object")
        check(isinstance((o or {}).get("properties"), dict) and o["properties"], f"{t.name}: outputSchema properties")


async def exercise_tools(res):
    """Calls every tool but the whole-desktop ones on a page in headless Chromium; `res`
    validates each result against its output schema."""
    url = "file://" + PAGE
    r = await res.call("launch_browser", {"url": url, "headless": True})
    if r.is_error:
        return
    root = r.structured_content["roots"][0]["ref"]
    await res.call("find_roots", {"text": "Schema check"})
    r = await res.call("observe_ui", {"root": root, "mode": "semantic"})
    sid = r.structured_content["stateId"]
    r = await res.call("search_ui", {"stateId": sid, "text": "Go", "role": "button"})
    button = r.structured_content["matches"][0]["ref"]
    await res.call("inspect_ui", {"stateId": sid, "ref": button})
    r = await res.call("search_ui", {"stateId": sid, "role": ["list"]})
    await res.call("expand_ui", {"stateId": sid, "ref": r.structured_content["matches"][0]["ref"]})
    r = await res.call("search_ui", {"stateId": sid, "role": "text"})
    await res.call("read_text", {"stateId": sid, "ref": r.structured_content["matches"][0]["ref"],
                                 "offset": 6, "length": 5})
    r = await res.call("act_ui", {"stateId": sid, "actions": [{"action": "press", "ref": button}]})
    res.check(r.structured_content.get("outcome") == "worked", f"press outcome {r.content[0].text[:300]}")
    await res.call("wait_for", {"root": root, "text": "Done", "timeoutMs": 10000})
    await res.call("navigate_browser", {"root": root, "reload": True})
    r = await res.call("evaluate_browser", {"root": root, "expression": "document.title"})
    res.check(r.structured_content.get("result") == "Schema check", "evaluate_browser result")
    with tempfile.TemporaryDirectory() as d:
        pdf = os.path.join(d, "page.pdf")
        r = await res.call("save_pdf", {"root": root, "path": pdf})
        res.check(not r.is_error and os.path.getsize(pdf) == r.structured_content.get("bytes"),
                  f"save_pdf wrote the file {r.content[0].text[:300]}")
    r = await res.call("browser_log", {"root": root, "kind": "network"})
    res.check(isinstance(r.structured_content.get("entries"), list), f"browser_log {r.content[0].text[:300]}")
    with tempfile.TemporaryDirectory() as d:
        state = os.path.join(d, "state.json")
        r = await res.call("save_browser_state", {"root": root, "path": state})
        res.check(not r.is_error and os.path.getsize(state) == r.structured_content.get("bytes"),
                  f"save_browser_state wrote the file {r.content[0].text[:300]}")
    r = await res.call("navigate_browser", {"url": url, "newTab": True})
    tab = r.structured_content["root"]
    res.check(tab != root, "navigate_browser newTab opens a new root")
    r = await res.call("close_root", {"root": tab})
    res.check(r.structured_content.get("closed") is True, f"close_root {r.content[0].text[:300]}")


async def main(exe):
    check = Checks()

    # evaluate_browser is off unless the daemon allows it (the CLI calls below start it).
    os.environ["UIDRIVER_ALLOW_EVALUATE"] = "1"
    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ))
    # The files the tools name (the page, the PDF, the state file) lie under these roots.
    async def roots(context):
        dirs = [os.path.dirname(PAGE), tempfile.gettempdir()]
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{d}") for d in dirs])

    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=roots) as session:
            init = await asyncio.wait_for(session.initialize(), 30)
            check(init.server_info.name == "uidriver", f"server name {init.server_info.name!r}")
            check(init.capabilities.tools is not None, "tools capability advertised")

            tools = (await session.list_tools()).tools
            names = {t.name for t in tools}
            check(EXPECTED_TOOLS <= names, f"missing tools: {EXPECTED_TOOLS - names}")
            for t in tools:
                check(bool(t.description) and len(t.description) > 20, f"{t.name}: description")
                s = t.input_schema
                check(s.get("type") == "object", f"{t.name}: schema type object")
                check(s.get("additionalProperties") is False, f"{t.name}: unknown fields rejected by schema")
                check(isinstance(s.get("properties"), dict), f"{t.name}: schema properties")
            check_metadata(check, tools)

            # A bad call: an empty action list.
            bad = {"stateId": "s1", "actions": []}
            r = await session.call_tool("act_ui", bad)
            check(r.is_error is True, "bad call sets isError")
            code = (r.structured_content or {}).get("error", {}).get("code")
            check(code == "invalid_args", f"bad call code {code!r}")
            check("actions" in r.content[0].text, "error text names the field")
            rc, cli_bad = cli(exe, "act_ui", bad)
            check(rc == 2, f"uidriver call exit code for invalid_args: {rc}")
            check(cli_bad == r.structured_content, "CLI and MCP give the same structured error")

            # Unknown field and wrong type, each naming the field.
            r = await session.call_tool("find_roots", {"bogus": 1})
            check(r.structured_content["error"]["code"] == "invalid_args", "unknown field rejected")
            check("bogus" in r.structured_content["error"]["message"], "unknown field named")
            r = await session.call_tool("find_roots", {"pid": "x"})
            check(r.structured_content["error"]["message"].startswith("pid"), "wrong type names the field")

            # A good call gives the same structure over MCP and the CLI (same daemon).
            r = await session.call_tool("find_roots", {})
            check(r.is_error is False, f"find_roots ok: {r.content[0].text[:200]}")
            rc, cli_ok = cli(exe, "find_roots", {})
            check(rc == 0, f"uidriver call find_roots exit {rc}")
            strip = lambda v: {k: v[k] for k in v if k != "issues"}
            check(strip(cli_ok) == strip(r.structured_content), "CLI and MCP give the same find_roots result")

            res = Results(session, tools, check)
            try:
                await asyncio.wait_for(exercise_tools(res), 120)
            except Exception as e:  # noqa: BLE001 - reported as a failure; the daemon is still stopped
                check(False, f"exercising the tools stopped: {type(e).__name__}: {e}")
            missing = EXPECTED_TOOLS - DESKTOP_ONLY - res.validated
            check(not missing, f"tools without a result validated against their outputSchema: {missing}")

    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("conformance", f"MCP conformance ok: {len(names)} tools, "
                           f"{len(res.validated)} with real results matching their outputSchema")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
