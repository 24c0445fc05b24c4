#!/usr/bin/env bash
# Installs the readers of the YOLO and Hugging Face exports in a Python venv at .tools/export-readers:
# Hugging Face datasets (Apache-2.0; load_dataset("parquet") with Pillow decoding the Image column)
# and Roboflow's supervision (MIT; DetectionDataset.from_yolo, no torch, OpenCV optional), so
# test/integration/exportReaders.test.ts reads the archives back as their users do. Idempotent.
set -euo pipefail
source "$(dirname "$0")/python-tool.sh"

# Every package pinned (pip freeze of datasets 5.2.0, pillow 13.0.0, supervision 0.31.2).
install_python_tool export-readers "Export readers (datasets 5.2.0, supervision 0.31.2, Pillow 13.0.0)" \
  anyio==4.16.0 \
  av==18.1.0 \
  certifi==2026.10.19.post1 \
  charset-normalizer==3.5.3 \
  click==8.5.1 \
  contourpy==1.3.3 \
  cycler==0.12.1 \
  datasets==5.2.0 \
  defusedxml==0.7.1 \
  dill==0.4.1 \
  filelock==4.3.1 \
  fonttools==4.68.0 \
  fsspec==2026.9.0 \
  h11==0.16.0 \
  hf-xet==1.8.0 \
  httpcore2==2.16.2 \
  httpx2==2.16.2 \
  huggingface_hub==2.4.0 \
  idna==3.20 \
  kiwisolver==1.5.1 \
  matplotlib==3.11.2 \
  multiprocess==0.70.19 \
  numpy==2.4.6 \
  packaging==26.4 \
  pandas==3.1.1 \
  pillow==13.0.0 \
  pyarrow==26.0.1 \
  pyDeprecate==0.13.0 \
  pyparsing==3.3.3 \
  python-dateutil==4.0.0 \
  PyYAML==6.0.4 \
  requests==2.34.2 \
  scipy==1.17.1 \
  supervision==0.31.2 \
  tqdm==4.70.1 \
  truststore==0.10.5 \
  typing_extensions==4.16.0 \
  tzdata==2026.6 \
  urllib3==2.8.0 \
  xxhash==4.1.0
