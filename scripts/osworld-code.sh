#!/usr/bin/env bash
# osworld-code.sh DIR — unpacks OSWorld's own code (the `desktop_env` package of its PyPI
# release, desktop-env) into DIR/desktop_env, for `uidriver tasks --osworld` with task files
# that do not come with a checkout, and for the OSWorld tests (scripts/test.sh). The code is
# run as published, never changed or vendored. Does nothing when DIR already holds it.
# OSWORLD_VERSION picks the release (default 1.0.2); pip comes from the environment that
# `uidriver tasks osworld-deps` made (or $UIDRIVER_OSWORLD_PYTHON).
set -euo pipefail
dir=${1:?usage: scripts/osworld-code.sh DIR}
version=${OSWORLD_VERSION:-1.0.2}
[ -d "$dir/desktop_env/evaluators" ] && exit 0
py=${UIDRIVER_OSWORLD_PYTHON:-${UIDRIVER_OSWORLD_VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/uidriver/osworld-venv}/bin/python}
[ -x "$py" ] || { echo "osworld-code.sh: no $py: run uidriver tasks osworld-deps first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" -m pip download -q --no-deps --disable-pip-version-check -d "$tmp" "desktop-env==$version"
"$py" -m zipfile -e "$tmp"/desktop_env-*.whl "$tmp/unpacked"
mkdir -p "$dir"
mv "$tmp/unpacked/desktop_env" "$dir/desktop_env"
echo "osworld-code.sh: OSWorld desktop-env $version in $dir/desktop_env" >&2
