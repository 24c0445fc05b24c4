#!/usr/bin/env bash
# Installs the S3 + STS server the integration tests start (test/support/s3Server.ts): moto's
# standalone server (Apache-2.0) in a Python venv at .tools/s3server. Idempotent.
set -euo pipefail
source "$(dirname "$0")/python-tool.sh"

# Every package pinned, so each machine gets the same server. moto's [server] extra would add
# cfn-lint, docker and more; S3 and STS need only these plus flask for the HTTP server.
install_python_tool s3server "S3 test server (moto 5.2.5)" \
  moto==5.2.5 \
  flask==3.1.3 \
  flask-cors==6.0.5 \
  py-partiql-parser==0.6.3 \
  PyYAML==6.0.4 \
  blinker==1.9.0 \
  boto3==1.44.8 \
  botocore==1.44.8 \
  certifi==2026.10.19.post1 \
  cffi==2.1.1 \
  charset-normalizer==3.5.3 \
  click==8.5.1 \
  cryptography==50.0.2 \
  idna==3.20 \
  itsdangerous==2.2.0 \
  Jinja2==3.1.6 \
  jmespath==1.1.0 \
  MarkupSafe==3.0.4 \
  pycparser==3.12 \
  python-dateutil==2.9.0.post0 \
  requests==2.34.2 \
  responses==0.26.3 \
  s3transfer==0.19.3 \
  six==1.17.0 \
  urllib3==2.8.0 \
  Werkzeug==3.1.9 \
  xmltodict==1.0.4
