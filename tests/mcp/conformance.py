#!/usr/bin/env python3
"""MCP conformance of `uidriver mcp`, driven by the official MCP Python SDK (`pip install mcp`).

Checks: initialize; tools/list (every tool has a description and an object input schema that
rejects unknown fields); a bad call answered with invalid_args (isError, structured error);
and the same calls through `uidriver call --json` giving the same structured result.

Usage: conformance.py PATH_TO_UIDRIVER   (exit 0 on success; prints what failed otherwise)
The caller isolates the daemon (UIDRIVER_SOCKET, XDG_STATE_HOME); this script stops it.
"""
import asyncio
import json
import os
import subprocess
import sys

from sdk_checks import Checks, cli

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

EXPECTED_TOOLS = {
    "find_roots", "observe_ui", "search_ui", "expand_ui", "inspect_ui", "act_ui",
    "read_text", "wait_for", "launch_browser", "navigate_browser", "evaluate_browser",
}


async def main(exe):
    check = Checks()

    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
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

    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("conformance", f"MCP conformance ok: {len(names)} tools")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
