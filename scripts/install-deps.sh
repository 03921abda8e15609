#!/usr/bin/env bash
# install-deps.sh — everything uidriver needs on a fresh Debian/Ubuntu machine: the isolated
# desktop (Xvfb, D-Bus, AT-SPI, openbox; for the Wayland one sway, grim, Qt's Wayland plugin and
# XWayland; for the KDE one KWin), sample apps, Chromium, tesseract, the Python MCP SDK for the
# conformance test, and a Rust toolchain when none is installed. Idempotent: packages already
# present are not fetched again. Runs apt as root, or through sudo.
set -euo pipefail

PACKAGES=(xvfb dbus dbus-x11 at-spi2-core openbox x11-utils xdotool imagemagick
  gtk-3-examples zenity mousepad gnome-calculator python3-gi gir1.2-atspi-2.0 gir1.2-gtk-3.0 python3-gi-cairo
  tesseract-ocr tesseract-ocr-eng fonts-dejavu-core chromium python3-pip ca-certificates curl pkg-config
  featherpad gedit xfce4-terminal thunar libatk-adaptor gimp nodejs thunderbird firefox-esr gnome-text-editor nautilus
  qterminal gnumeric
  sway grim foot qtwayland5 xwayland kwin-wayland
  libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 gir1.2-gtk-4.0 gir1.2-adw-1)

log() { echo "install-deps: $*" >&2; }

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's nodejs has no npx (the MCP Inspector test runs it); NodeSource's has it and conflicts
# with Debian's npm, so npm is asked for only when npx is missing.
command -v npx >/dev/null || missing+=(npm)
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
