#!/usr/bin/env bash
# image.sh — the uidriver OCI image (docs/DEPLOY.md): build it from this checkout, run a command
# in it, test it.
#
#   scripts/image.sh build            base layer (cached by the hash of its package lists) + top layer
#   scripts/image.sh run [FLAGS…] -- CMD…
#                                     CMD in a fresh --rm container; FLAGS go to `podman run`
#                                     (--publish 127.0.0.1:8765:8765, --env, --read-only, …)
#   scripts/image.sh test [suite|http|kube]
#                                     builds (UIDRIVER_TEST_BUILD=0: only when missing), then the quick
#                                     task suite in a container, the HTTP endpoint from the host and
#                                     the Kubernetes manifests; PASS/FAIL lines, non-zero on a failure
#   scripts/image.sh prune            removes stale base images (other package-list hashes) and
#                                     uidriver images other than :latest
#
# The base layer is a Debian root made here with mmdebstrap (deploy/image/packages.txt) plus a
# Python venv (deploy/image/requirements.txt), imported as localhost/uidriver-base:<hash> and
# reused while the lists and this recipe stay the same. The top layer (deploy/image/Containerfile)
# adds target/release/uidriver, tasks/ and the user; it takes seconds.
#
# Environment: UIDRIVER_IMAGE (default localhost/uidriver:latest) is what `run` and `test` use;
# UIDRIVER_BUILD=0 makes `build` skip `cargo build --release` and take target/release/uidriver
# as it is; UIDRIVER_BIN puts another binary in the image (implies UIDRIVER_BUILD=0);
# UIDRIVER_NEW_BASE=1 makes the base again under the same tag (Debian's updates since);
# PODMAN_RUNTIME (default runc) is podman's OCI runtime.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMG_DIR=$ROOT/deploy/image
SUITE=bookworm
MIRRORS=(
  "deb http://deb.debian.org/debian $SUITE main"
  "deb http://deb.debian.org/debian $SUITE-updates main"
  "deb http://deb.debian.org/debian-security $SUITE-security main"
)
# crun refuses hybrid cgroup hosts; runc works. Without CAP_SYS_RESOURCE podman cannot raise
# the default limits, so every container states them.
PODMAN=(podman --runtime "${PODMAN_RUNTIME:-runc}")
RUN_FLAGS=(--ulimit nofile=20000:20000 --ulimit nproc=4096:4096)
IMAGE=${UIDRIVER_IMAGE:-localhost/uidriver:latest}

log() { echo "image.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# The words of a package list: comments and blank lines dropped, one per line, sorted.
list_words() { sed 's/#.*//' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort -u; }

# The base image's recipe: mmdebstrap into a tarball, then `podman import`.
# Its text is part of the hash (base_tag), so changing it makes a new base.
make_base() {
  local tag=$1 scratch
  command -v mmdebstrap >/dev/null || die "needs mmdebstrap (apt-get install mmdebstrap uidmap)"
  scratch=$(mktemp -d /tmp/uidriver-base.XXXXXX)
  # shellcheck disable=SC2064
  trap "rm -rf '$scratch'; trap - RETURN" RETURN
  list_words "$IMG_DIR/requirements.txt" >"$scratch/requirements.txt"
  # pip inside the root trusts what this machine trusts (an egress proxy's CA, say) for the
  # build only; the file is removed again and the image keeps Debian's ca-certificates.
  local ca=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
  local pkgs
  pkgs=$(list_words "$IMG_DIR/packages.txt" | paste -sd, -)
  log "mmdebstrap $SUITE with $(echo "$pkgs" | tr ',' '\n' | wc -l) packages (a few minutes)"
  # Documentation, manual pages and translations are not installed: nobody reads them in a pod
  # and they are ~15% of the root. Copyright files stay.
  mmdebstrap --variant=minbase --quiet \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --include="$pkgs" \
    --customize-hook="upload $scratch/requirements.txt /tmp/requirements.txt" \
    --customize-hook="upload $ca /tmp/build-ca.crt" \
    --customize-hook='chroot "$1" python3 -m venv --system-site-packages /opt/uidriver/venv' \
    --customize-hook='chroot "$1" env -i PATH=/usr/bin:/bin HOME=/root /opt/uidriver/venv/bin/pip install --quiet --no-cache-dir --disable-pip-version-check --cert /tmp/build-ca.crt -r /tmp/requirements.txt' \
    --customize-hook='rm -f "$1/tmp/requirements.txt" "$1/tmp/build-ca.crt"; find "$1/opt/uidriver/venv" -name __pycache__ -prune -exec rm -rf {} +' \
    "$SUITE" "$scratch/root.tar" "${MIRRORS[@]}"
  log "importing $(du -h "$scratch/root.tar" | cut -f1) root as $tag"
  "${PODMAN[@]}" import --quiet --message "uidriver base: $SUITE + deploy/image/packages.txt + requirements.txt" \
    "$scratch/root.tar" "$tag" >/dev/null
}

# localhost/uidriver-base:<first 16 hex of sha256 over the package lists and make_base's text>.
base_tag() {
  local h
  h=$({ list_words "$IMG_DIR/packages.txt"; echo --; list_words "$IMG_DIR/requirements.txt"
        echo --; printf '%s\n' "${MIRRORS[@]}"; declare -f make_base; } | sha256sum | cut -c1-16)
  echo "localhost/uidriver-base:$h"
}

workspace_version() {
  sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1
}

cmd_build() {
  local t0 base version commit dirty="" ctx
  t0=$(date +%s)
  command -v podman >/dev/null || die "needs podman"
  base=$(base_tag)
  if [ "${UIDRIVER_NEW_BASE:-0}" = 0 ] && "${PODMAN[@]}" image exists "$base"; then
    log "base $base is present"
  else
    make_base "$base"
  fi
  local tb
  tb=$(date +%s)

  if [ "${UIDRIVER_BUILD:-1}" != 0 ] && [ -z "${UIDRIVER_BIN:-}" ]; then
    log "cargo build --release -p uidriver"
    (cd "$ROOT" && cargo build --release -q -p uidriver)
  fi
  local bin=${UIDRIVER_BIN:-$ROOT/target/release/uidriver}
  [ -x "$bin" ] || die "no $bin (cargo build --release -p uidriver)"

  version=$(workspace_version)
  commit=$(git -C "$ROOT" rev-parse --short=8 HEAD 2>/dev/null || echo unknown)
  git -C "$ROOT" diff --quiet HEAD 2>/dev/null || dirty=-dirty
  local tag=localhost/uidriver:$version-$commit$dirty

  # A small build context: the binary, the task suite and uidriver-pod, not the checkout.
  ctx=$(mktemp -d /tmp/uidriver-image-ctx.XXXXXX)
  # shellcheck disable=SC2064
  trap "rm -rf '$ctx'; trap - RETURN" RETURN
  cp "$bin" "$ctx/uidriver"
  cp "$IMG_DIR/uidriver-pod" "$ctx/uidriver-pod"
  cp -r "$ROOT/tasks" "$ctx/tasks"
  find "$ctx/tasks" -name __pycache__ -prune -exec rm -rf {} +
  log "top layer $tag from $base"
  "${PODMAN[@]}" build --quiet --file "$IMG_DIR/Containerfile" \
    --build-arg "BASE=$base" --build-arg "VERSION=$version" --build-arg "REVISION=$commit$dirty" \
    --tag "$tag" --tag localhost/uidriver:latest "$ctx" >/dev/null
  local t1 size
  t1=$(date +%s)
  size=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$tag")
  echo "built $tag (= localhost/uidriver:latest)"
  echo "  size $(numfmt --to=iec --suffix=B "$size") ($size bytes); base $base"
  echo "  build time $((t1 - t0)) s (base $((tb - t0)) s, binary + top layer $((t1 - tb)) s)"
}

# Removes base images other than the current one, and uidriver images other than :latest.
cmd_prune() {
  local keep ref
  keep=$(base_tag)
  for ref in $("${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}}' localhost/uidriver-base); do
    [ "$ref" = "$keep" ] || { "${PODMAN[@]}" rmi "$ref" >/dev/null 2>&1 && log "removed $ref" || log "kept $ref (in use)"; }
  done
  # Top layers of earlier builds: every localhost/uidriver tag that is not :latest's image.
  local latest id
  latest=$("${PODMAN[@]}" image inspect --format '{{.Id}}' localhost/uidriver:latest 2>/dev/null || true)
  "${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}} {{.Id}}' localhost/uidriver |
    while read -r ref id; do
      case $latest in "$id"*) continue ;; esac
      "${PODMAN[@]}" rmi "$ref" >/dev/null 2>&1 && log "removed $ref" || log "kept $ref (in use)"
    done
}

# `run [FLAGS…] -- CMD…`: FLAGS go to podman run, CMD replaces the image's default command.
cmd_run() {
  local flags=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  "${PODMAN[@]}" image exists "$IMAGE" || die "no image $IMAGE (scripts/image.sh build)"
  exec "${PODMAN[@]}" run --rm "${RUN_FLAGS[@]}" "${flags[@]}" "$IMAGE" "$@"
}

# ---- test ----------------------------------------------------------------------------------

STARTED=()          # containers this script started; stopped by cleanup
# The tests run the image as deploy/kubernetes runs it: a read-only root with an empty /tmp
# (docs/DEPLOY.md, "Writable paths"). UIDRIVER_TEST_READONLY=0 gives a writable root instead.
TEST_FLAGS=()
if [ "${UIDRIVER_TEST_READONLY:-1}" != 0 ]; then
  TEST_FLAGS=(--read-only --read-only-tmpfs=false --tmpfs /tmp:rw,mode=1777,size=1g)
fi
FAILED=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; FAILED=1; }
cleanup() {
  local c
  for c in "${STARTED[@]}"; do "${PODMAN[@]}" rm --force --time 5 "$c" >/dev/null 2>&1 || true; done
  if [ -n "${KUBE_FILE:-}" ]; then
    CONTAINERS_CONF=$KUBE_CONF "${PODMAN[@]}" kube down "$KUBE_FILE" >/dev/null 2>&1 || true
  fi
  [ -n "${TEST_TMP:-}" ] && rm -rf "$TEST_TMP"
  return 0
}

# (a) the quick task suite in a container. The agents' logs come out through a scratch volume
# and are kept when a task fails.
test_quick_suite() {
  local name=uidriver-test-suite-$$ logs=$TEST_TMP/logs
  mkdir -p "$logs" && chmod 0777 "$logs"
  STARTED+=("$name")
  log "quick task suite in $name"
  if "${PODMAN[@]}" run --rm --name "$name" "${RUN_FLAGS[@]}" "${TEST_FLAGS[@]}" --volume "$logs:/logs" "$IMAGE" \
       uidriver tasks run --quick --dir /usr/share/uidriver/tasks --log-dir /logs \
       >"$TEST_TMP/suite.log" 2>&1; then
    pass "quick task suite in a container: $(grep -E '^total:' "$TEST_TMP/suite.log" | tail -1)"
  else
    local keep
    keep=$(mktemp -d /tmp/uidriver-image-test-logs.XXXXXX)
    cp -r "$logs/." "$TEST_TMP/suite.log" "$keep/" 2>/dev/null || true
    grep -E '^(FAIL|total:)' "$TEST_TMP/suite.log" | sort -u >&2 || tail -20 "$TEST_TMP/suite.log" >&2
    fail "quick task suite in a container (output and agent logs in $keep)"
  fi
}

# An HTTP status code, or 000 when nothing answered.
http_code() { curl -s -o "$TEST_TMP/body" -w '%{http_code}' --max-time 10 "$@" || true; }

# Checks an MCP endpoint from the host: probes without a token, 401 without or with a wrong
# token, initialize + tools/list + one tool call with it. $3 (e.g. "pod: ") prefixes each line;
# $4 names a container whose log is shown when the endpoint never becomes ready.
check_endpoint() {
  local url=$1 token=$2 what=$3 logs_of=${4:-}
  local i code=000
  for i in $(seq 90); do
    code=$(http_code "$url/readyz")
    [ "$code" = 200 ] && break
    sleep 1
  done
  if [ "$code" = 200 ]; then pass "${what}GET /readyz without token: 200 (after ${i} s)"; else
    [ -n "$logs_of" ] && "${PODMAN[@]}" logs "$logs_of" 2>&1 | tail -20 >&2
    fail "${what}GET /readyz without token: $code"; return
  fi
  code=$(http_code "$url/healthz")
  [ "$code" = 200 ] && pass "${what}GET /healthz without token: 200" || fail "${what}GET /healthz without token: $code"

  local init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"image.sh","version":"1"}}}'
  local hdr=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
  code=$(http_code -X POST "${hdr[@]}" --data "$init" "$url/mcp")
  [ "$code" = 401 ] && pass "${what}POST /mcp without token: 401" || fail "${what}POST /mcp without token: $code"
  code=$(http_code -X POST "${hdr[@]}" -H "Authorization: Bearer wrong$token" --data "$init" "$url/mcp")
  [ "$code" = 401 ] && pass "${what}POST /mcp with a wrong token: 401" || fail "${what}POST /mcp with a wrong token: $code"

  code=$(curl -s -D "$TEST_TMP/headers" -o "$TEST_TMP/body" -w '%{http_code}' --max-time 20 \
    -X POST "${hdr[@]}" -H "Authorization: Bearer $token" --data "$init" "$url/mcp" || true)
  if [ "$code" = 200 ] && grep -q '"serverInfo"' "$TEST_TMP/body"; then
    pass "${what}POST /mcp initialize with token: 200, serverInfo"
  else
    fail "${what}POST /mcp initialize with token: $code $(head -c 300 "$TEST_TMP/body")"
    return
  fi
  local session
  session=$(tr -d '\r' <"$TEST_TMP/headers" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p' | head -1)
  local auth=(-H "Authorization: Bearer $token" -H 'MCP-Protocol-Version: 2025-06-18')
  [ -n "$session" ] && auth+=(-H "Mcp-Session-Id: $session")
  http_code -X POST "${hdr[@]}" "${auth[@]}" \
    --data '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$url/mcp" >/dev/null
  code=$(http_code -X POST "${hdr[@]}" "${auth[@]}" \
    --data '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "$url/mcp")
  if [ "$code" = 200 ] && grep -q '"observe_ui"' "$TEST_TMP/body"; then
    pass "${what}POST /mcp tools/list with token: 200, $(grep -o '"inputSchema"' "$TEST_TMP/body" | wc -l) tools"
  else
    fail "${what}POST /mcp tools/list with token: $code $(head -c 300 "$TEST_TMP/body")"
  fi
  # One call that reaches the desktop.
  code=$(http_code -X POST "${hdr[@]}" "${auth[@]}" \
    --data '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find_roots","arguments":{}}}' "$url/mcp")
  if [ "$code" = 200 ] && grep -q '"result"' "$TEST_TMP/body" && ! grep -q '"isError": *true' "$TEST_TMP/body"; then
    pass "${what}POST /mcp tools/call find_roots with token: 200, a result"
  else
    fail "${what}POST /mcp tools/call find_roots with token: $code $(head -c 300 "$TEST_TMP/body")"
  fi
}

new_token() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# (b) the default command: MCP over Streamable HTTP, published on a loopback port.
test_http() {
  local name=uidriver-test-http-$$ port token url
  port=${UIDRIVER_TEST_PORT:-18765}
  token=$(new_token)
  url=http://127.0.0.1:$port
  mkdir -p "$TEST_TMP/secret"
  printf '%s\n' "$token" >"$TEST_TMP/secret/token"
  chmod 0644 "$TEST_TMP/secret/token"
  STARTED+=("$name")
  log "default command in $name on $url"
  # The token arrives as a file, as a Kubernetes Secret volume would bring it.
  "${PODMAN[@]}" run -d --rm --name "$name" "${RUN_FLAGS[@]}" "${TEST_FLAGS[@]}" \
    --publish "127.0.0.1:$port:8765" \
    --volume "$TEST_TMP/secret:/run/secrets/uidriver:ro" "$IMAGE" >/dev/null \
    || { fail "default command: podman run failed"; return; }
  check_endpoint "$url" "$token" "" "$name"
}

# (c) deploy/kubernetes/sandbox.yaml played by podman: the Deployment's pod (one replica) with
# its security context, read-only root, emptyDir volumes and probes, reached from the host.
# podman 4.3 needs three changes, made on a copy: its `kube play` crashes on a Secret volume
# in a Deployment (nil secrets manager), so the token directory comes from a hostPath; the
# port is published on 127.0.0.1:$UIDRIVER_TEST_KUBE_PORT rather than on every address; the
# Service is dropped (podman has none). The runtime and the limits come from a containers.conf,
# as `kube play` has no flags for them. Jobs (tasks-job.yaml) are not played: podman has no Job.
test_kube() {
  local src=$ROOT/deploy/kubernetes/sandbox.yaml
  local py=${UIDRIVER_PYTHON:-python3}
  if [ ! -f "$src" ]; then fail "podman kube play: no deploy/kubernetes/sandbox.yaml"; return; fi
  # PyYAML comes with kubernetes-validate (scripts/install-deps.sh).
  if ! "$py" -c 'import yaml' 2>/dev/null; then fail "podman kube play: needs $py with PyYAML (scripts/install-deps.sh)"; return; fi
  local port=${UIDRIVER_TEST_KUBE_PORT:-18766} token
  token=$(new_token)
  mkdir -p "$TEST_TMP/kube-secret"
  printf '%s\n' "$token" >"$TEST_TMP/kube-secret/token"
  chmod 0644 "$TEST_TMP/kube-secret/token"
  KUBE_CONF=$TEST_TMP/containers.conf
  printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n[engine]\nruntime = "%s"\n' \
    "${PODMAN_RUNTIME:-runc}" >"$KUBE_CONF"
  KUBE_FILE=$TEST_TMP/kube.yaml
  "$py" - "$src" "$KUBE_FILE" "$TEST_TMP/kube-secret" "$port" "$IMAGE" <<'PY' || { fail "podman kube play: cannot adapt $src"; return; }
import sys, yaml
src, out, secret_dir, port, image = sys.argv[1:]
docs = [d for d in yaml.safe_load_all(open(src)) if d and d.get("kind") == "Deployment"]
assert docs, "no Deployment"
for d in docs:
    d["spec"]["replicas"] = 1
    pod = d["spec"]["template"]["spec"]
    for v in pod.get("volumes", []):
        if "secret" in v:
            del v["secret"]
            v["hostPath"] = {"path": secret_dir, "type": "Directory"}
    for c in pod["containers"]:
        c["image"] = image
        for p in c.get("ports", []):
            if p.get("containerPort") == 8765:
                p["hostPort"], p["hostIP"] = int(port), "127.0.0.1"
yaml.safe_dump_all(docs, open(out, "w"))
PY
  log "podman kube play deploy/kubernetes/sandbox.yaml on 127.0.0.1:$port"
  if CONTAINERS_CONF=$KUBE_CONF "${PODMAN[@]}" kube play "$KUBE_FILE" >"$TEST_TMP/kube.log" 2>&1; then
    pass "podman kube play deploy/kubernetes/sandbox.yaml"
  else
    cat "$TEST_TMP/kube.log" >&2
    fail "podman kube play deploy/kubernetes/sandbox.yaml"
    return
  fi
  local ctr
  ctr=$("${PODMAN[@]}" ps --filter "pod=$(sed -n '/^Pod:/{n;p;q}' "$TEST_TMP/kube.log")" --format '{{.Names}}' | grep -v -- -infra | head -1 || true)
  check_endpoint "http://127.0.0.1:$port" "$token" "pod: " "$ctr"
  if [ -n "$ctr" ]; then
    local ro user
    ro=$("${PODMAN[@]}" inspect "$ctr" --format '{{.HostConfig.ReadonlyRootfs}}')
    user=$("${PODMAN[@]}" exec "$ctr" id -u)
    [ "$ro" = true ] && [ "$user" = 1000 ] && pass "pod: read-only root, uid 1000" \
      || fail "pod: read-only root $ro, uid $user"
  fi
  CONTAINERS_CONF=$KUBE_CONF "${PODMAN[@]}" kube down "$KUBE_FILE" >/dev/null 2>&1 || true
  KUBE_FILE=
}

cmd_test() {
  command -v curl >/dev/null || die "needs curl"
  # `podman kube play` starts each pod with a pause container whose init is catatonit (a
  # Recommends of Debian's podman, so an install without recommends lacks it).
  command -v catatonit >/dev/null || [ -x /usr/libexec/podman/catatonit ] ||
    die "needs catatonit for podman kube play (apt-get install catatonit)"
  if [ "${UIDRIVER_TEST_BUILD:-1}" != 0 ] || ! "${PODMAN[@]}" image exists "$IMAGE"; then
    cmd_build
  fi
  TEST_TMP=$(mktemp -d /tmp/uidriver-image-test.XXXXXX)
  trap cleanup EXIT
  trap 'echo "FAIL interrupted"; exit 130' INT TERM
  local only=${1:-all}
  case $only in all|suite) test_quick_suite ;; esac
  case $only in all|http) test_http ;; esac
  case $only in all|kube) test_kube ;; esac
  if [ "$FAILED" = 0 ]; then echo "PASS image tests"; else echo "FAIL image tests"; exit 1; fi
}

case ${1:-} in
  build) shift; cmd_build "$@" ;;
  run) shift; cmd_run "$@" ;;
  test) shift; cmd_test "$@" ;;
  prune) shift; cmd_prune "$@" ;;
  base) b=$(base_tag); "${PODMAN[@]}" image exists "$b" || make_base "$b"; echo "$b" ;;
  base-tag) base_tag ;;
  *) sed -n '2,/^set -e/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2; exit 2 ;;
esac
