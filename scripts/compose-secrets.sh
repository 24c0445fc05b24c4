#!/bin/sh
# Writes the secrets docker-compose.yml requires, fresh random ones, into a new `.env` beside it (or the file
# given as the first argument). Refuses to overwrite: the databases and Keycloak keep the values of their first
# start, so a new `.env` would lock the services out of their own data.
set -eu

env_file=${1:-$(cd "$(dirname "$0")/.." && pwd)/.env}

if [ -e "$env_file" ]; then
  echo "compose-secrets: $env_file exists; not overwriting it (remove it only with the volumes it was used for)" >&2
  exit 1
fi

# `random_hex N`: N random bytes as 2N hex characters (safe in a URL, a .env line and compose interpolation).
random_hex() {
  if command -v openssl >/dev/null 2>&1; then
    openssl rand -hex "$1"
  else
    od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'
    echo
  fi
}

# `secret NAME BYTES`: one .env line; stops the script if no random bytes came.
secret() {
  value=$(random_hex "$2")
  if [ "${#value}" -ne $(($2 * 2)) ]; then
    echo "compose-secrets: could not read random bytes (openssl or /dev/urandom)" >&2
    exit 1
  fi
  echo "$1=$value"
}

content="# Secrets for docker-compose.yml, written by scripts/compose-secrets.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ). Keep this file."
for pair in SECRET_KEY:32 OIDC_CLIENT_SECRET:24 ADMIN_PASSWORD:24 KEYCLOAK_ADMIN_PASSWORD:24 POSTGRES_PASSWORD:24 TEMPORAL_DB_PASSWORD:24 \
  QDRANT_API_KEY:24 PIPELINE_TOKEN:24; do
  line=$(secret "${pair%%:*}" "${pair#*:}")
  content="$content
$line"
done

# Owner-only from creation; noclobber makes the shell create the file exclusively, so one made meanwhile survives.
umask 077
set -C
if ! printf '%s\n' "$content" >"$env_file"; then
  echo "compose-secrets: could not create $env_file" >&2
  exit 1
fi
chmod 600 "$env_file"
echo "compose-secrets: wrote $env_file (mode 0600). Keep it: the services keep these secrets from their first start."
