#!/usr/bin/env bash
# demo.sh — build uidriver and run its demo: a private desktop with sample apps, driven through
# find → observe → search → inspect → act. `scripts/demo.sh --mcp` serves MCP on stdio instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only the demo's packages: the whole test suite's would take far longer (issue 24). What the
# build needs comes first (--build: a C toolchain, certificates, Rust); the desktop and its two
# apps (--demo) are fetched and unpacked while cargo builds, which is most of a fresh machine's
# wait. dpkg takes one install at a time, and --build is done before --demo starts.
./scripts/install-deps.sh --build
log=$(mktemp -t uidriver-demo-deps.XXXXXX)
./scripts/install-deps.sh --demo >"$log" 2>&1 &
deps=$!
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
# Without the default `tasks` feature: the demo and MCP need no task suite, and its OSWorld
# fetcher (reqwest, rustls, ring) is a share of a fresh machine's build (issue 24 item 9).
if ! cargo build --release --locked -p uidriver --no-default-features >&2; then
  wait "$deps" || true
  exit 1
fi
if ! wait "$deps"; then
  cat "$log" >&2
  exit 1
fi
rm -f "$log"
exec ./target/release/uidriver demo "$@"
