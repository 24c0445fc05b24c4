#!/usr/bin/env bash
# `npm test` drives the built web app in Debian's Chromium (no browser is downloaded): install
# Chromium with apt-get when it is missing (CHROMIUM_PATH names another one), and build the app
# when it was never built or its sources changed since.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends chromium
fi

bash scripts/build-web.sh
