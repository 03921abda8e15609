#!/usr/bin/env bash
# demo.sh — build uidriver and run its demo: a private desktop with sample apps, driven through
# find → observe → search → inspect → act. `scripts/demo.sh --mcp` serves MCP on stdio instead.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked -p uidriver >&2
exec ./target/release/uidriver demo "$@"
