#!/usr/bin/env bash
# inspector.sh [UIDRIVER] — checks `uidriver mcp` with the official MCP Inspector's CLI
# (npx @modelcontextprotocol/inspector --cli): tools/list lists every tool with a title and an
# input schema, and tools/call of find_roots answers a structured result that is not an error.
# The daemon it starts lives in a temp dir (socket, state, traces) and is stopped at the end,
# unless UIDRIVER_SOCKET is already set. Needs npx; the first run downloads the inspector.
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-}
if [ -z "$exe" ]; then
  if [ -x target/debug/uidriver ]; then exe=$PWD/target/debug/uidriver; else exe=$(command -v uidriver); fi
fi
command -v npx >/dev/null || { echo "inspector.sh: npx (Node.js) is missing" >&2; exit 3; }
if [ -z "${UIDRIVER_SOCKET:-}" ]; then
  tmp=$(mktemp -d -t uidriver-inspector-XXXXXX)
  export UIDRIVER_SOCKET=$tmp/daemon.sock XDG_STATE_HOME=$tmp/state XDG_RUNTIME_DIR=$tmp
  trap '"$exe" daemon stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
fi
inspector=(npx -y @modelcontextprotocol/inspector@0.15.0 --cli "$exe" mcp)
out=$(mktemp -t uidriver-inspector-out-XXXXXX)
"${inspector[@]}" --method tools/list >"$out"
python3 - "$out" <<'PY'
import json, sys
tools = json.load(open(sys.argv[1]))["tools"]
names = [t["name"] for t in tools]
bad = [t["name"] for t in tools if not t.get("title") or t.get("inputSchema", {}).get("type") != "object"]
assert len(tools) >= 13 and "act_ui" in names and not bad, f"tools/list: {names}, without title or schema: {bad}"
print(f"inspector tools/list: {len(tools)} tools, each with a title and an input schema")
PY
"${inspector[@]}" --method tools/call --tool-name find_roots --tool-arg kind=window >"$out"
python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r.get("isError") is False, f"find_roots failed: {r}"
assert isinstance(r["structuredContent"]["roots"], list), f"no roots field: {r}"
assert r["content"][0]["type"] == "text", f"no text content: {r}"
print(f"inspector tools/call find_roots: {r['structuredContent']['total']} roots, structured and text")
PY
rm -f "$out"
