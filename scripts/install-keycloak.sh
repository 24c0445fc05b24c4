#!/usr/bin/env bash
# Installs Keycloak's server distribution (org.keycloak:keycloak-quarkus-dist, zip, from Maven Central)
# into .tools/keycloak/<version>, once, checking its sha256. Run by the launcher when RUN_MODE=ONPREM
# with DISABLE_AUTH=false and no OIDC_ISSUER, and by the tests that need an identity provider
# (lib/embedded/keycloak.ts). Needs curl, unzip or python3, and Java 17+ to run it. Prints the home.
set -euo pipefail
version="26.4.7"
zip_sha256="dd9834c023460be856f731423d86228c23b5d002194a2064642bec0cc6573eaa"
root="$(cd "$(dirname "$0")/.." && pwd)"
home="$root/.tools/keycloak/$version"
url="https://repo1.maven.org/maven2/org/keycloak/keycloak-quarkus-dist/$version/keycloak-quarkus-dist-$version.zip"

if [ -x "$home/bin/kc.sh" ]; then
  echo "$home"
  exit 0
fi
mkdir -p "$root/.tools/keycloak"
# A scratch folder beside the destination, so the final move is a rename and a half install never shows.
work=$(mktemp -d "$root/.tools/keycloak/.install-XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "[keycloak] downloading $url" >&2
curl -sfSL --retry 3 -o "$work/keycloak.zip" "$url"
echo "$zip_sha256  $work/keycloak.zip" | sha256sum -c --quiet - >&2
if command -v unzip >/dev/null 2>&1; then
  unzip -q "$work/keycloak.zip" -d "$work/unpacked"
else
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$work/keycloak.zip" "$work/unpacked"
fi
chmod +x "$work/unpacked/keycloak-$version/bin/"*.sh
# Another install that finished first wins; ours is dropped with the scratch folder.
mv -T "$work/unpacked/keycloak-$version" "$home" 2>/dev/null || true
echo "[keycloak] Keycloak $version installed in $home" >&2
echo "$home"
