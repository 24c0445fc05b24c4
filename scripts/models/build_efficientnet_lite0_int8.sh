#!/usr/bin/env bash
# The default image encoder: EfficientNet-Lite0 (OUT_DIR/efficientnet_lite0.onnx, made first by
# fetch_efficientnet_lite0.sh) quantized to static int8 with mixed precision by onnxruntime's tools
# (scripts/models/quantize_efficientnet_lite0.py) from the committed calibration cache
# (efficientnet_lite0_int8_calibration.json, made by `npm run bench:model-variants` from real photos), so
# no photos are needed and the output is the same bytes every time; then given a uint8 NHWC input
# (scripts/models/uint8_input.py: onnxruntime normalises the pixels, not JavaScript). Writes
# OUT_DIR/efficientnet_lite0_int8.onnx and the loader's manifest OUT_DIR/efficientnet-lite0-int8.json
# (IMAGE_MODEL=efficientnet-lite0-int8, the default).
#   build_efficientnet_lite0_int8.sh OUT_DIR
# Idempotent: exits early when the manifest records the ONNX file's sha256 and the inputs' hashes.
# FORCE=1 rebuilds. See docs/models.md ("Cheaper variants").
set -euo pipefail
out_dir=${1:?usage: build_efficientnet_lite0_int8.sh OUT_DIR}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
quantizer="$here/quantize_efficientnet_lite0.py"
uint8_input="$here/uint8_input.py"
calibration="$here/efficientnet_lite0_int8_calibration.json"
source_onnx="$out_dir/efficientnet_lite0.onnx"
onnx_out="$out_dir/efficientnet_lite0_int8.onnx"
manifest="$out_dir/efficientnet-lite0-int8.json"
log() { echo "[effnet-int8] $*" >&2; }

[ -s "$source_onnx" ] || { log "missing $source_onnx: run fetch_efficientnet_lite0.sh first"; exit 1; }
inputs_sha=$(cat "$quantizer" "$uint8_input" "$calibration" "$source_onnx" | sha256sum | cut -d' ' -f1)
if [ "${FORCE:-0}" != 1 ] && [ -s "$onnx_out" ] && [ -s "$manifest" ]; then
  if python3 "$here/manifest_current.py" "$manifest" "$onnx_out" inputsSha256 "$inputs_sha"; then exit 0; fi
fi

# numpy + onnx + onnxruntime (its quantization tools), pinned, in a private venv.
source "$here/../python-tool.sh"
install_python_tool model-quantize "Model quantizer (onnxruntime, onnx, numpy)" onnxruntime==1.30.0 onnx==1.23.2 numpy==2.4.6
python="$(cd "$here/../.." && pwd)/.tools/model-quantize/bin/python"

# quantize_static would rewrite a cache it finds stale: it reads a copy.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$calibration" "$work/calibration.json"
"$python" "$quantizer" "$source_onnx" "$work/calibration.json" "$onnx_out"
"$python" "$uint8_input" "$onnx_out" pixel_values 127 128
sha=$(sha256sum "$onnx_out" | cut -d' ' -f1)
python3 - "$out_dir/efficientnet-lite0.json" "$manifest" "$sha" "$inputs_sha" <<'PY'
import json, os, sys
base_path, manifest_path, sha, inputs_sha = sys.argv[1:]
manifest = dict(json.load(open(base_path)), id="efficientnet-lite0-imagenet-int8@1", file="efficientnet_lite0_int8.onnx",
                inputFormat="uint8-nhwc", sha256=sha, inputsSha256=inputs_sha)
del manifest["mean"], manifest["std"]
with open(manifest_path + ".tmp", "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
os.replace(manifest_path + ".tmp", manifest_path)
PY
log "wrote $onnx_out (sha256 $sha)"
