#!/usr/bin/env python3
"""Gives an image model that takes float32 NCHW input normalised as (x - mean) / std a uint8 NHWC input
instead: Cast, Transpose, Sub and Mul in front of the graph do in onnxruntime what the loader would
otherwise do in JavaScript for every pixel (lib/ml/imageEncoder.ts, inputFormat "uint8-nhwc"). The
outputs are bit-identical when std is a power of two (EfficientNet-Lite0: mean 127, std 128).

Usage:
  uint8_input.py MODEL.onnx INPUT_NAME MEAN STD    (rewrites MODEL.onnx in place)
Needs onnx and numpy. See docs/models.md.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def with_uint8_input(path, name, mean, std):
    model = onnx.load(path)
    graph = model.graph
    original = next(i for i in graph.input if i.name == name)
    if original.type.tensor_type.elem_type == TensorProto.UINT8:
        return
    batch, _, height, width = (d.dim_param or d.dim_value for d in original.type.tensor_type.shape.dim)
    normalised = f"{name}_normalised"
    for node in graph.node:
        node.input[:] = [normalised if x == name else x for x in node.input]
    graph.input.remove(original)
    graph.input.insert(0, helper.make_tensor_value_info(name, TensorProto.UINT8, [batch, height, width, 3]))
    graph.initializer.extend([
        numpy_helper.from_array(np.full((1, 3, 1, 1), mean, np.float32), f"{name}_mean"),
        numpy_helper.from_array(np.full((1, 3, 1, 1), 1 / std, np.float32), f"{name}_scale"),
    ])
    prefix = [
        helper.make_node("Cast", [name], [f"{name}_float"], to=TensorProto.FLOAT),
        helper.make_node("Transpose", [f"{name}_float"], [f"{name}_nchw"], perm=[0, 3, 1, 2]),
        helper.make_node("Sub", [f"{name}_nchw", f"{name}_mean"], [f"{name}_centred"]),
        helper.make_node("Mul", [f"{name}_centred", f"{name}_scale"], [normalised]),
    ]
    nodes = prefix + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, path + ".tmp")
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, name, mean, std = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    with_uint8_input(path, name, mean, std)


if __name__ == "__main__":
    main()
