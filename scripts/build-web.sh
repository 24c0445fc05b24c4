#!/usr/bin/env bash
# Builds the web app into web/dist when it was never built or its sources changed since (the API
# serves it at /): `npm start` runs this first, and so does `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."

built=web/dist/index.html
if [ ! -f "$built" ] || [ -n "$(find web/src web/index.html web/package.json web/package-lock.json web/vite.config.ts docs/openapi.json -newer "$built" -print -quit)" ]; then
  npm run web:build
fi
