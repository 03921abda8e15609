#!/usr/bin/env bash
# idle_memory.sh — resident memory of an idle uidriver daemon, inside a private desktop (Linux
# backend connected) and after 100 observations (states held in the store). Prints kB.
# Usage: bench/idle_memory.sh [path/to/uidriver]   (default target/release/uidriver)
set -euo pipefail
U=${1:-target/release/uidriver}
U=$(readlink -f "$U")
exec "$U" sandbox --app gtk3-widget-factory -- bash -c '
  U='"$U"'
  $U call find_roots >/dev/null                      # starts the daemon
  PID=$($U daemon status | sed -n "s/.*\"pid\":\([0-9]*\).*/\1/p")
  sleep 2
  idle=$(awk "/VmRSS/{print \$2}" /proc/$PID/status)
  R=$($U call find_roots "{\"app\":\"gtk3\"}" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"roots\"][0][\"ref\"])")
  for i in $(seq 100); do $U call observe_ui "{\"root\":\"$R\",\"mode\":\"semantic\"}" >/dev/null; done
  sleep 1
  busy=$(awk "/VmRSS/{print \$2}" /proc/$PID/status)
  echo "idle daemon RSS: ${idle} kB; after 100 observations of gtk3-widget-factory (260 nodes): ${busy} kB"
  $U daemon stop
'
