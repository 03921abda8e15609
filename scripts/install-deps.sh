#!/usr/bin/env bash
# install-deps.sh — everything uidriver needs on a fresh Debian/Ubuntu machine: the isolated
# desktop (Xvfb, D-Bus, AT-SPI, openbox; for the Wayland one sway, grim, Qt's Wayland plugin and
# XWayland; for the KDE one KWin), sample apps, Chromium, tesseract, the Python MCP SDK for the
# conformance test, and a Rust toolchain when none is installed. Idempotent: packages already
# present are not fetched again. Runs apt as root, or through sudo.
#
#   scripts/install-deps.sh           all of it (scripts/test.sh: the whole test suite)
#   scripts/install-deps.sh --demo    only what scripts/demo.sh needs to build uidriver and run
#                                     `uidriver demo` (and `demo --mcp`); see DEMO_PACKAGES
#   scripts/install-deps.sh --build   only what the build needs (BUILD_PACKAGES and Rust):
#                                     demo.sh builds while --demo installs the rest
set -euo pipefail

DEMO=0
BUILD=0
case ${1:-} in
  --demo) DEMO=1 ;;
  --build) DEMO=1; BUILD=1 ;;
  "") ;;
  *) echo "usage: $0 [--demo|--build]" >&2; exit 2 ;;
esac

# The first command (scripts/demo.sh) must be done in minutes on a fresh machine (issue 24), so
# it installs only what the demo uses; the full list below is several times that (LibreOffice,
# GIMP, Thunderbird, Firefox, Chromium, KWin, ... : docs/BENCHMARKS.md). The demo's private
# desktop is Xvfb + a session dbus-daemon + at-spi-bus-launcher + openbox (crates/sandbox); it
# talks X11 through x11rb and types through XTEST, so it needs no x11-utils, xdotool,
# imagemagick or tesseract. Its apps are gtk3-widget-factory (gtk-3-examples) and mousepad;
# fonts-dejavu-core gives them legible text. gcc and libc6-dev are the linker rustc calls and
# the C compiler for ring (rustls, under the OSWorld fetcher's reqwest); ca-certificates and
# curl let cargo reach crates.io and rustup download a toolchain. No crate in the build runs
# pkg-config (wayland-sys probes it only with its client/server features, which are off).
BUILD_PACKAGES=(gcc libc6-dev ca-certificates curl)
DEMO_PACKAGES=(xvfb dbus at-spi2-core openbox fonts-dejavu-core gtk-3-examples mousepad
  "${BUILD_PACKAGES[@]}")
PACKAGES=("${DEMO_PACKAGES[@]}" dbus-x11 x11-utils xdotool imagemagick
  zenity gnome-calculator python3-gi gir1.2-atspi-2.0 gir1.2-gtk-3.0 python3-gi-cairo
  tesseract-ocr tesseract-ocr-eng chromium python3-pip pkg-config
  featherpad gedit xfce4-terminal thunar libatk-adaptor gimp nodejs thunderbird firefox-esr gnome-text-editor nautilus
  qterminal gnumeric
  python3-venv python3-tk socat wmctrl jq sysstat gnome-shell-common gnome-settings-daemon-common
  sway grim foot qtwayland5 xwayland kwin-wayland
  libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 gir1.2-gtk-4.0 gir1.2-adw-1)
# Where podman and mmdebstrap are installed, test.sh also tests the OCI image
# (scripts/image.sh test): podman here needs runc and uidmap, and `kube play` catatonit, which
# an install without recommends leaves out.
if command -v podman >/dev/null && command -v mmdebstrap >/dev/null; then
  PACKAGES+=(runc uidmap catatonit)
fi
[ "$DEMO" = 1 ] && PACKAGES=("${DEMO_PACKAGES[@]}")
[ "$BUILD" = 1 ] && PACKAGES=("${BUILD_PACKAGES[@]}")

log() { echo "install-deps: $*" >&2; }

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's nodejs has no npx (the MCP Inspector test runs it); NodeSource's has it and conflicts
# with Debian's npm, so npm is asked for only when npx is missing.
[ "$DEMO" = 1 ] || command -v npx >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { log "need root or sudo to install: ${missing[*]}"; exit 1; }
    SUDO="sudo"
  fi
  log "installing ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  [ -x "$HOME/.cargo/bin/cargo" ] || {
    log "installing Rust with rustup"
    curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal >/dev/null
  }
fi
# The rest serves the test suite only; the demo is done here.
if [ "$DEMO" = 1 ]; then
  [ "$BUILD" = 1 ] && log "ok (build set)" || log "ok (demo set)"
  exit 0
fi

# Two Chromium tests read the Rust standard library's HTML docs (a big real page set).
RUSTUP="$(command -v rustup || echo "$HOME/.cargo/bin/rustup")"
if [ -x "$RUSTUP" ] && ! ls -d "$HOME"/.rustup/toolchains/*/share/doc/rust/html >/dev/null 2>&1; then
  log "installing the rust-docs component"
  "$RUSTUP" component add rust-docs >/dev/null
fi

# The official MCP Python SDK drives `uidriver mcp` in the conformance test and the task
# suite's scripted agents; `jsonschema` checks real results against the tools' output schemas;
# openpyxl, python-docx, python-pptx and odfpy read the documents the task checkers judge
# (tasks/lib/read_doc.py); pypdf (pure Python) reads the text of save_pdf's files in its tests;
# kubernetes-validate checks deploy/kubernetes against the API schemas offline.
PY=${UIDRIVER_PYTHON:-python3}
if ! "$PY" -c "import mcp, jsonschema, openpyxl, docx, pptx, odf, pypdf, kubernetes_validate" 2>/dev/null; then
  log "installing the MCP Python SDK, jsonschema, the document readers and kubernetes-validate"
  PIP_PKGS=(mcp jsonschema openpyxl python-docx python-pptx odfpy pypdf kubernetes-validate)
  "$PY" -m pip install -q "${PIP_PKGS[@]}" 2>/dev/null || "$PY" -m pip install -q --break-system-packages "${PIP_PKGS[@]}"
fi
# Fuzzing (docs/FUZZING.md) is opt-in: UIDRIVER_FUZZ=1 adds the nightly toolchain and cargo-fuzz.
if [ "${UIDRIVER_FUZZ:-0}" = 1 ]; then
  rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
  command -v cargo-fuzz >/dev/null || { log "installing cargo-fuzz"; cargo install -q cargo-fuzz; }
fi
log "ok"
