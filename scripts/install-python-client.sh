#!/usr/bin/env bash
# Installs the Python client's test environment in a venv at .tools/python-client: what
# clients/python needs to run (httpx, pydantic, tqdm), its [test] extra (pytest, pandas) and the
# build backend (hatchling), so test/integration/pythonClient.test.ts builds the client's wheel and
# installs it without going to PyPI. Idempotent.
set -euo pipefail
source "$(dirname "$0")/python-tool.sh"

# Every package pinned, so each machine tests the client against the same libraries.
install_python_tool python-client "Python client test environment (httpx 0.28.1, pydantic 2.14.4, pytest 9.2.0)" \
  httpx==0.28.1 \
  httpcore==1.0.9 \
  h11==0.16.0 \
  anyio==4.16.0 \
  idna==3.20 \
  certifi==2026.10.19.post1 \
  pydantic==2.14.4 \
  pydantic_core==2.50.5 \
  annotated-types==0.8.0 \
  typing-inspection==0.4.5 \
  typing_extensions==4.16.0 \
  tqdm==4.70.1 \
  pytest==9.2.0 \
  iniconfig==2.3.1 \
  pluggy==1.7.0 \
  Pygments==2.21.0 \
  packaging==26.4 \
  pandas==3.1.1 \
  numpy==2.4.6 \
  python-dateutil==4.0.0 \
  tzdata==2026.6 \
  hatchling==1.33.0 \
  pathspec==1.1.1 \
  trove-classifiers==2026.9.21.13 \
  tomlkit==0.15.2
