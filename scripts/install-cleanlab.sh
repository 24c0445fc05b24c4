#!/usr/bin/env bash
# Installs cleanlab (AGPL-3.0, run as a separate program, never linked) in a Python venv at
# .tools/cleanlab: bench:label-quality compares our mislabel detection with its find_label_issues on
# the same data in the same run. Idempotent.
set -euo pipefail
source "$(dirname "$0")/python-tool.sh"

# Pinned, so each machine compares with the same cleanlab; scikit-learn gives its cross-validated model.
install_python_tool cleanlab "cleanlab 2.9.0" \
  cleanlab==2.9.0 \
  scikit-learn==1.9.1 \
  numpy==2.4.6
