#!/usr/bin/env bash
# Collects ~70 distinct real photos from registry packages (PyPI wheels, Debian packages) into $1.
# Licenses: scikit-image data CC0/public domain, scikit-learn samples CC BY 2.0, matplotlib
# grace_hopper public domain, Debian wallpapers GPL/LGPL/CC (see each package's copyright file).
set -euo pipefail
out=$(realpath -m "${1:?usage: fetch-photos.sh OUT_DIR}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cd "$work"
chmod 755 "$work"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
python3 -m pip download --no-deps -q -d . scikit-image scikit-learn matplotlib
for wheel in *.whl; do
  python3 - "$wheel" <<'PY'
import sys, zipfile
keep = ('skimage/data/', 'sklearn/datasets/images/', 'matplotlib/mpl-data/sample_data/grace_hopper.jpg')
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(keep) and name.lower().endswith(('.jpg', '.png')):
            z.extract(name, 'x')
PY
done
if command -v apt-get >/dev/null 2>&1; then
  [ -n "$(ls /var/lib/apt/lists/ 2>/dev/null | grep -v lock)" ] || apt-get update -qq || true
  if apt-get download mate-backgrounds lomiri-wallpapers-16.04 lomiri-wallpapers-20.04 plasma-workspace-wallpapers palapeli-data >/dev/null 2>&1; then
    for deb in *.deb; do dpkg-deb -x "$deb" x; done
  fi
fi
find x -type f \( -iname '*.jpg' -o -iname '*.png' \) -size +20k | while read -r file; do
  case "$file" in
    */wallpapers/*/contents/images/*) [[ "$file" == */1920x1080.jpg ]] || continue ;;
  esac
  name=$(echo "${file#x/}" | tr '/' '_')
  cp "$file" "$out/$name"
done
ls "$out" | wc -l
