#!/usr/bin/env bash
# first_command.sh — times the README's first command (`./scripts/demo.sh`) on a fresh machine:
# a podman container from a Debian 12 minbase root (made with mmdebstrap, once), a fresh clone
# of this repository's HEAD copied in, an empty CARGO_HOME, no target directory. Issue 24 item 9
# (at most 4 minutes on a fresh 2-core machine); figures in docs/BENCHMARKS.md.
#
#   bench/first_command.sh [--toolchain DIR]
#
# --toolchain DIR mounts a Rust toolchain read-only and puts it on PATH, for machines where
# rustup cannot reach its server (its download, ~80 MB with the minimal profile, is then not
# timed). Trusted CAs: when SSL_CERT_FILE names a bundle (an egress proxy's CA, say), cargo in
# the container trusts it too. Needs root, podman with runc, mmdebstrap. Run it on a quiet
# machine: the figure is wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain=""
[ "${1:-}" = --toolchain ] && toolchain=$(cd "$2" && pwd)
work=${FIRST_COMMAND_DIR:-/tmp/uidriver-first-command}
base=localhost/uidriver-first-command-base:bookworm
PODMAN=(podman --runtime runc)
mkdir -p "$work"
if ! "${PODMAN[@]}" image exists "$base"; then
  mmdebstrap --variant=minbase --quiet bookworm "$work/root.tar" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  "${PODMAN[@]}" import --quiet "$work/root.tar" "$base" >/dev/null
  rm -f "$work/root.tar"
fi
rm -rf "$work/src" && git clone -q . "$work/src"
echo "first_command: $(git -C "$work/src" log --oneline -1)" >&2
mounts=(-v "$work/src:/src:ro")
path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
if [ -n "$toolchain" ]; then
  mounts+=(-v "$toolchain:/opt/toolchain:ro")
  path=/opt/toolchain/bin:$path
fi
ca_env=()
if [ -n "${SSL_CERT_FILE:-}" ] && [ -f "$SSL_CERT_FILE" ]; then
  mounts+=(-v "$SSL_CERT_FILE:/host-ca.crt:ro")
  ca_env=(-e CARGO_HTTP_CAINFO=/host-ca.crt)
fi
"${PODMAN[@]}" run --rm --ulimit nofile=20000:20000 --ulimit nproc=4096:4096 \
  "${mounts[@]}" "${ca_env[@]}" -e PATH="$path" localhost/uidriver-first-command-base:bookworm \
  bash -c '
    cp -a /src /root/uidriver && cd /root/uidriver
    start=$(date +%s%N)
    rc=0; ./scripts/demo.sh >/tmp/demo.out 2>/tmp/demo.err || rc=$?
    end=$(date +%s%N)
    grep -E "Finished|^error" /tmp/demo.err | tail -3 >&2
    tail -2 /tmp/demo.out >&2
    awk -v ns=$((end - start)) -v rc=$rc "BEGIN { printf \"scripts/demo.sh: rc %d, %.1f s wall\n\", rc, ns / 1e9 }"
    exit $rc
  '
