#!/usr/bin/env python3
"""Builds the cheaper image-model variants that `npm run bench:model-variants` measures (issue 15).

Usage: model_variants.py MODELS_DIR OUT_DIR CALIBRATION_DIR CENTERNET_JSON
  MODELS_DIR       the installed models (efficientnet_lite0.onnx + its manifest efficientnet-lite0.json)
  OUT_DIR          where the variant ONNX files and their loader manifests are written
  CALIBRATION_DIR  <photo>.<S>.rgb files: S x S x 3 RGB bytes each (S = 224 and 160), the model input
                   of real photos from imagePixels, so the quantizer sees exactly what the service feeds
  CENTERNET_JSON   models/centernet.json of npm @vladmandic/human (with centernet.bin beside it)
Prints one JSON line: {"manifests": [names...], "variants": {name: {bytes, sha256, ...}}}.

Variants:
  efficientnet-lite0-<S>      the same fp32 weights at S x S input (spatial dims made symbolic)
  efficientnet-lite0-int8     static int8, QDQ, per-channel weights, reduce_range, calibrated on the
                              photos; stem, the first two blocks, the head conv, pooling and the
                              classifier stay fp32 (scripts/models/quantize_efficientnet_lite0.py);
                              the calibration cache it writes is what setup builds the option from
  efficientnet-lite0-int8-<S> the same int8 graph at S x S
  mobilenetv3-centernet-<S>   the MobileNetV3 backbone of the COCO CenterNet (through the project's
                              converter at S x S), global average pooled (480-d), minus the mean
                              pooled vector of the calibration photos: the pooled hard-swish
                              activations are all positive, so unrelated images start out at cosine
                              ~0.9; centred, cosine measures what sets an image apart

Needs numpy, onnx and onnxruntime (its quantization tools): the bench installs them, pinned, in
.tools/model-quantize.
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import convert_centernet  # noqa: E402  (the project's TFJS -> ONNX converter, reused for the backbone)
import quantize_efficientnet_lite0  # noqa: E402  (the int8 build setup uses, here calibrated afresh)

SIZES = (160, 192)
INT8_SIZES = (160,)
CALIBRATION_SIZE = 224
BACKBONE_END = "tower_0/extern1/hard_swish/mul_1"
HEAD_START = "tower_0/CenternetHead/c5_upsample/branch_x_upsample_resize/separable_conv2d/depthwise"


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def with_symbolic_size(model):
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[2].ClearField("dim_value")
    dims[2].dim_param = "height"
    dims[3].ClearField("dim_value")
    dims[3].dim_param = "width"
    return model


def calibration_files(folder, size):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(f".{size}.rgb"))


class PhotoReader(CalibrationDataReader):
    def __init__(self, folder, input_name, mean, std):
        self.files = calibration_files(folder, CALIBRATION_SIZE)
        self.input_name, self.mean, self.std = input_name, np.float32(mean), np.float32(std)
        self.next = 0

    def get_next(self):
        if self.next >= len(self.files):
            return None
        rgb = np.fromfile(self.files[self.next], dtype=np.uint8).reshape(CALIBRATION_SIZE, CALIBRATION_SIZE, 3)
        self.next += 1
        pixels = (rgb.astype(np.float32).transpose(2, 0, 1)[None] - self.mean) / self.std
        return {self.input_name: pixels.astype(np.float32)}


def effnet_manifest(base, variant_id, file, size):
    manifest = dict(base, id=variant_id, file=file, size=size)
    return manifest


def build_effnet(models_dir, out_dir, calibration_dir, manifests, info):
    base = json.load(open(os.path.join(models_dir, "efficientnet-lite0.json")))
    source = os.path.join(models_dir, base["file"])
    anysize = os.path.join(out_dir, "efficientnet_lite0_anysize.onnx")
    onnx.save(with_symbolic_size(onnx.load(source)), anysize)
    for size in SIZES:
        manifests[f"efficientnet-lite0-{size}"] = effnet_manifest(base, f"efficientnet-lite0-imagenet-{size}@1", os.path.basename(anysize), size)

    int8 = os.path.join(out_dir, "efficientnet_lite0_int8.onnx")
    calibration_cache = os.path.join(out_dir, "efficientnet_lite0_int8_calibration.json")
    mean = np.array(base["mean"], dtype=np.float32).reshape(1, 3, 1, 1)
    std = np.array(base["std"], dtype=np.float32).reshape(1, 3, 1, 1)
    built = quantize_efficientnet_lite0.quantize(source, calibration_cache, int8, PhotoReader(calibration_dir, base["input"], mean, std))
    manifests["efficientnet-lite0-int8"] = effnet_manifest(base, "efficientnet-lite0-imagenet-int8@1", os.path.basename(int8), CALIBRATION_SIZE)
    info["efficientnet-lite0-int8"] = dict(built, calibration_images=len(calibration_files(calibration_dir, CALIBRATION_SIZE)),
                                           calibration_cache=calibration_cache)
    int8_any = os.path.join(out_dir, "efficientnet_lite0_int8_anysize.onnx")
    onnx.save(with_symbolic_size(onnx.load(int8)), int8_any)
    for size in INT8_SIZES:
        manifests[f"efficientnet-lite0-int8-{size}"] = effnet_manifest(base, f"efficientnet-lite0-imagenet-int8-{size}@1", os.path.basename(int8_any), size)


def build_backbone(centernet_json, out_dir, calibration_dir, size, manifests, info):
    nodes, weights = convert_centernet.read_tfjs(centernet_json)
    placeholder = next(n for n in nodes if n["op"] == "Placeholder")
    conv = convert_centernet.Converter(nodes, weights)
    as_float = conv.node("Cast", ["images"], "images_f", to=TensorProto.FLOAT)
    conv.values[placeholder["name"]] = (conv.node("Transpose", [as_float], "images_nchw", perm=[0, 3, 1, 2]), (size, size))
    conv.convert_body(stop={HEAD_START})
    features, _ = conv.values[BACKBONE_END]
    pooled = conv.node("GlobalAveragePool", [features], "pooled")
    conv.onnx_nodes.append(helper.make_node("Flatten", [pooled], ["features"], name="features", axis=1))
    channels = int(weights[BACKBONE_END.replace("/hard_swish/mul_1", "/Conv2D_weights")].shape[-1])
    graph = helper.make_graph(
        conv.onnx_nodes, "mobilenetv3_centernet_backbone",
        [helper.make_tensor_value_info("images", TensorProto.UINT8, ["batch", size, size, 3])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", channels])],
        initializer=list(conv.initializers.values()),
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", convert_centernet.OPSET)], producer_name="model_variants.py")
    model.ir_version = 8
    # The head's first convolutions read backbone blocks in the middle; drop what the features do not need.
    path = os.path.join(out_dir, f"mobilenetv3_centernet_{size}.onnx")
    onnx.save(model, path)
    onnx.utils.extract_model(path, path, ["images"], ["features"])
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    photos = np.stack([np.fromfile(f, dtype=np.uint8).reshape(size, size, 3) for f in calibration_files(calibration_dir, size)])
    mean = session.run(["features"], {"images": photos})[0].mean(axis=0).astype(np.float32)
    model = onnx.load(path)
    model.graph.output[0].name = "features"
    pooled_out = next(n for n in model.graph.node if n.output == ["features"])
    pooled_out.output[0] = "features_uncentred"
    model.graph.initializer.append(numpy_helper.from_array(mean.reshape(1, -1), "calibration_mean"))
    model.graph.node.append(helper.make_node("Sub", ["features_uncentred", "calibration_mean"], ["features"], name="centre"))
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    name = f"mobilenetv3-centernet-{size}"
    manifests[name] = {
        "id": f"{name}@1", "file": os.path.basename(path), "input": "images", "inputFormat": "uint8-nhwc",
        "size": size, "resize": "fill", "output": "features", "dim": channels,
    }
    info[name] = {"bytes": os.path.getsize(path), "sha256": digest(path)}


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    models_dir, out_dir, calibration_dir, centernet_json = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    manifests, info = {}, {}
    build_effnet(models_dir, out_dir, calibration_dir, manifests, info)
    for size in (224, 160):
        build_backbone(centernet_json, out_dir, calibration_dir, size, manifests, info)
    for name, manifest in manifests.items():
        with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
            json.dump(manifest, f, indent=2)
    print(json.dumps({"manifests": sorted(manifests), "variants": info}))


if __name__ == "__main__":
    main()
