#!/usr/bin/env bash
# Fetch a real labelled image set for the label-quality tests and bench: Fashion-MNIST (MIT; 28×28
# greyscale photos of clothing in 10 classes) from Debian's package dataset-fashion-mnist, pinned by
# version and sha256. The first COUNT images of its test set become PNG files in
# .tools/labelled-images/ (gitignored) with labels.csv: file_name,label,split (split "test" for every
# fifth image, else "train"); readers take its first rows. Idempotent: a set of at least COUNT is
# kept as it is, images present are not written again, the .deb is cached.
#
# Usage: scripts/fetch-labelled-images.sh [COUNT]   (default 2000, at most 10000)
# Env:   LABELLED_IMAGES_DIR (default .tools/labelled-images)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${LABELLED_IMAGES_DIR:-$ROOT/.tools/labelled-images}"
COUNT="${1:-2000}"
CACHE="$OUT/.cache"
PACKAGE=dataset-fashion-mnist
VERSION='0.0~git20200523.55506a9-1'
DEB="dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb"
SHA256=39e172fe32dd318ebb3e512220c3beea2fa47d7e20bab348fb4e0922d6beefc0

[[ "$COUNT" =~ ^[0-9]+$ ]] && [ "$COUNT" -ge 1 ] && [ "$COUNT" -le 10000 ] || { echo "COUNT must be 1-10000" >&2; exit 2; }
[ -d "$ROOT/node_modules/sharp" ] || { echo "sharp missing: run npm ci in $ROOT" >&2; exit 1; }
if [ -s "$OUT/labels.csv" ] && [ "$(($(wc -l <"$OUT/labels.csv") - 1))" -ge "$COUNT" ]; then
  echo "labelled images: at least $COUNT present in $OUT"
  exit 0
fi
mkdir -p "$OUT" "$CACHE"

sha_ok() { [ -s "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$SHA256" ]; }
if ! sha_ok "$CACHE/$DEB"; then
  if ! apt-cache show "$PACKAGE=$VERSION" >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then apt-get update -qq; fi
  tmp="$(mktemp -d "$CACHE/dl.XXXXXX")"
  chmod 777 "$tmp"
  (cd "$tmp" && apt-get download -q "$PACKAGE=$VERSION" >&2 2>/dev/null)
  sha_ok "$tmp/$DEB" || { echo "sha256 mismatch or missing $DEB" >&2; rm -rf "$tmp"; exit 1; }
  mv "$tmp/$DEB" "$CACHE/$DEB"
  rm -rf "$tmp"
fi

STAGE="$(mktemp -d "$CACHE/stage.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
dpkg-deb --fsys-tarfile "$CACHE/$DEB" | tar -x -C "$STAGE" -f - \
  ./usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ./usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz

(cd "$ROOT" && node -e '
  const fs = require("fs"), path = require("path"), zlib = require("zlib"), sharp = require("sharp");
  const [dir, out, count] = [process.argv[1], process.argv[2], Number(process.argv[3])];
  const CLASSES = ["t-shirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "ankle-boot"];
  const images = zlib.gunzipSync(fs.readFileSync(path.join(dir, "t10k-images-idx3-ubyte.gz")));
  const labels = zlib.gunzipSync(fs.readFileSync(path.join(dir, "t10k-labels-idx1-ubyte.gz")));
  if (images.readUInt32BE(0) !== 2051 || labels.readUInt32BE(0) !== 2049) throw new Error("not IDX image/label files");
  const [rows, cols] = [images.readUInt32BE(8), images.readUInt32BE(12)];
  (async () => {
    const lines = ["file_name,label,split"];
    for (let i = 0; i < count; i++) {
      const file = `fmnist-${String(i).padStart(5, "0")}.png`;
      const target = path.join(out, file);
      if (!fs.existsSync(target)) {
        const pixels = images.subarray(16 + i * rows * cols, 16 + (i + 1) * rows * cols);
        await sharp(pixels, { raw: { width: cols, height: rows, channels: 1 } }).png().toFile(target + ".tmp");
        fs.renameSync(target + ".tmp", target);
      }
      lines.push(`${file},${CLASSES[labels[8 + i]]},${i % 5 === 0 ? "test" : "train"}`);
    }
    fs.writeFileSync(path.join(out, "labels.csv"), lines.join("\n") + "\n");
    console.log(`labelled images: ${count} ready in ${out}`);
  })().catch((e) => { console.error(e); process.exit(1); });
' "$STAGE/usr/share/datasets/fashion-mnist" "$OUT" "$COUNT")
