# Sourced by the install scripts of the Python tools the tests use: `install_python_tool NAME LABEL
# PACKAGE...` makes a venv at .tools/NAME holding exactly PACKAGE... (pinned), once; a venv from other
# pins, or a half-finished one, is made again rather than patched.
install_python_tool() {
  local name="$1" label="$2"
  shift 2
  local root dest marker stamp
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  dest="$root/.tools/$name"
  marker="$dest/.installed"
  stamp="$*"
  if [ -x "$dest/bin/python" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$stamp" ]; then
    return 0
  fi
  rm -rf "$dest"
  python3 -m venv "$dest"
  "$dest/bin/pip" install --quiet --disable-pip-version-check "$@"
  printf '%s' "$stamp" > "$marker"
  echo "$label installed in $dest"
}
