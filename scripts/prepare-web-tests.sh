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

built=web/dist/index.html
if [ ! -f "$built" ] || [ -n "$(find web/src web/index.html web/package.json web/package-lock.json web/vite.config.ts docs/openapi.json -newer "$built" -print -quit)" ]; then
  npm run web:build
fi
