#!/usr/bin/env python3
"""EfficientNet-Lite0 fp32 ONNX -> static int8 with mixed precision (onnxruntime's quantization tools).

QDQ format, per-channel int8 weights, uint8 activations, reduce_range (7-bit weights: no overflow in
the u8s8 kernels of CPUs without VNNI). The stem, the first two blocks, the head convolution, the
pooling and the classifier stay fp32: the embedding is read after the head, and 8-bit steps cost the
most in the first layers. Activation ranges come from a calibration cache (JSON written by
onnxruntime's `quantize_static(calibration_cache_path=...)` when `npm run bench:model-variants`
calibrated on real photos), so a build needs no photos and gives the same bytes every time.

Usage:
  quantize_efficientnet_lite0.py FP32.onnx CALIBRATION.json OUT.onnx
Needs numpy, onnx and onnxruntime (pinned by the caller). See docs/models.md.
"""
import hashlib
import os
import sys
import tempfile

import onnx
from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process

FP32_PREFIXES = ("_conv_stem", "_blocks_0_", "_blocks_1_", "_conv_head", "avg_pooling", "flatten", "fc")


def quantize(source, calibration_cache, out, calibration_reader=None):
    """Writes the mixed int8 model to `out`. With a reader, calibrates and writes `calibration_cache`; without, reads it."""
    with tempfile.TemporaryDirectory(prefix="effnet-int8-") as work:
        prepared = os.path.join(work, "prepared.onnx")
        quant_pre_process(source, prepared, skip_symbolic_shape=True)
        exclude = [n.name for n in onnx.load(prepared).graph.node if n.name.startswith(FP32_PREFIXES)]
        quantize_static(
            prepared, out + ".tmp", calibration_reader,
            quant_format=QuantFormat.QDQ, per_channel=True, reduce_range=True,
            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=exclude,
            calibration_cache_path=calibration_cache,
        )
    os.replace(out + ".tmp", out)
    return {"fp32_nodes": exclude, "bytes": os.path.getsize(out), "sha256": hashlib.sha256(open(out, "rb").read()).hexdigest()}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, calibration_cache, out = sys.argv[1:]
    if not os.path.isfile(calibration_cache):
        sys.exit(f"no calibration cache at {calibration_cache}")
    info = quantize(source, calibration_cache, out)
    print(f"[effnet-int8] wrote {out} ({info['bytes']} bytes, sha256 {info['sha256']})", file=sys.stderr)


if __name__ == "__main__":
    main()
