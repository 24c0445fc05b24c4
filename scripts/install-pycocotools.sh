#!/usr/bin/env bash
# Installs pycocotools (BSD-2-Clause), COCO's own reader, in a Python venv at .tools/pycocotools:
# the export tests read the COCO annotations an export writes back with it. Idempotent.
set -euo pipefail
source "$(dirname "$0")/python-tool.sh"

# Pinned, so each machine reads exports with the same reader; pycocotools needs only numpy.
install_python_tool pycocotools "pycocotools 2.0.11" \
  pycocotools==2.0.11 \
  numpy==2.4.6
