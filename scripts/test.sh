#!/usr/bin/env bash
# test.sh — the whole test suite: unit and contract tests, the MCP SDK conformance test, and
# live tests against real applications and Chromium in isolated desktops that the tests start
# and stop themselves. Needs no display and no running services. The live tests are
# `#[ignore = "live: …"]`, so a bare `cargo test` skips them; `--include-ignored` runs them here.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
# Live tests share two cores with the apps they drive: two test threads keep timings honest.
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-2}
# One build from clean: incremental caches would only add gigabytes of disk.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
cargo build --workspace --all-targets --locked
# The lean binary scripts/demo.sh builds (no `tasks` feature) must still compile.
cargo check -p uidriver --no-default-features --locked
# OSWorld's own evaluators (crates/uidriver/tests/osworld.rs): the Python packages they import,
# and OSWorld's code itself, unpacked from its PyPI release (run, never vendored).
./target/debug/uidriver tasks osworld-deps >/dev/null
export UIDRIVER_OSWORLD_CODE=${UIDRIVER_OSWORLD_CODE:-$PWD/target/osworld-code}
./scripts/osworld-code.sh "$UIDRIVER_OSWORLD_CODE"
cargo test --workspace --locked -- --include-ignored
# The Kubernetes manifests against the API schemas (offline).
./scripts/check-manifests.sh
# The OCI image (docs/DEPLOY.md): built, the quick suite in a container, MCP over HTTP from the
# host, the Deployment under `podman kube play`. Only where podman, mmdebstrap and catatonit
# (the pause container's init) are installed (they are not part of install-deps.sh: the image is
# a deployment tool); said when skipped.
if command -v podman >/dev/null && command -v mmdebstrap >/dev/null &&
  { command -v catatonit >/dev/null || [ -x /usr/libexec/podman/catatonit ]; }; then
  ./scripts/image.sh test
else
  echo "test.sh: image tests skipped: podman, mmdebstrap or catatonit is not installed (apt-get install podman runc mmdebstrap uidmap catatonit; then scripts/image.sh test)"
fi
