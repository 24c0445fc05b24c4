#!/usr/bin/env python3
"""Exits 0 when a model manifest records the sha256 of its ONNX file and FIELD = VALUE (the hash of what
built it): the setup scripts' test for "already built, nothing to do".

Usage: manifest_current.py MANIFEST.json MODEL.onnx FIELD VALUE
"""
import hashlib
import json
import sys

manifest_path, onnx_path, field, value = sys.argv[1:]
info = json.load(open(manifest_path))
digest = hashlib.sha256(open(onnx_path, "rb").read()).hexdigest()
sys.exit(0 if info.get("sha256") == digest and info.get(field) == value else 1)
