#!/usr/bin/env bash
# What `npm test` needs before it starts (npm runs this as `pretest`): the S3 test server, pycocotools, the export
# readers and the Python client's test environment (each a venv under .tools), Chromium and the built web app.
# The steps are independent and mostly downloads and unpacking, so they run side by side; each one's output is
# printed when it ends, and any failure fails the whole.
set -euo pipefail
cd "$(dirname "$0")/.."

steps=(install-s3-test-server install-pycocotools install-export-readers install-python-client prepare-web-tests)
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
declare -A pid_of
for step in "${steps[@]}"; do
  bash "scripts/$step.sh" > "$logs/$step.log" 2>&1 &
  pid_of[$step]=$!
done
failed=()
for step in "${steps[@]}"; do
  if wait "${pid_of[$step]}"; then
    cat "$logs/$step.log"
  else
    failed+=("$step")
    echo "pretest: $step failed:" >&2
    cat "$logs/$step.log" >&2
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "pretest: failed: ${failed[*]}" >&2; exit 1; }
