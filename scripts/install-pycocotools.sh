#!/usr/bin/env bash
# Installs pycocotools (BSD-2-Clause), COCO's own reader, in a Python venv at .tools/pycocotools:
# the export tests read the COCO annotations an export writes back with it. Idempotent.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.tools/pycocotools"
marker="$dest/.installed"

# Pinned, so each machine reads exports with the same reader; pycocotools needs only numpy.
requirements=(
  pycocotools==2.0.11
  numpy==2.4.6
)
stamp="${requirements[*]}"

if [ -x "$dest/bin/python" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ]; then
  exit 0
fi

rm -rf "$dest"
python3 -m venv "$dest"
"$dest/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}"
printf '%s' "$stamp" > "$marker"
echo "pycocotools 2.0.11 installed in $dest"
