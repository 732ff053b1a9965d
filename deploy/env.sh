#!/usr/bin/env bash
# Writes what deploy/compose.yaml needs into deploy/.env (docker-compose reads it
# from the compose file's directory), keeping any value already there:
#   - the secrets, generated once: POSTGRES_PASSWORD, RECLAIM_SIGNING_KEY (a
#     32-byte Ed25519 seed) and RECLAIM_API_KEY_PEPPER (32 bytes), base64;
#   - the local base images that .ci/docker.sh builds, as no registry is
#     reachable here (remove those lines where one is).
# deploy/.env is readable by its owner only, and never committed (.gitignore).
set -euo pipefail
file="$(dirname "$0")/.env"
umask 077
touch "$file"
add() {
	grep -q "^$1=" "$file" || printf '%s=%s\n' "$1" "$2" >>"$file"
}
secret() {
	head -c "$1" /dev/urandom | base64 -w0
}
add POSTGRES_PASSWORD "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
add RECLAIM_SIGNING_KEY "$(secret 32)"
add RECLAIM_API_KEY_PEPPER "$(secret 32)"
add RECLAIM_GO_IMAGE "${RECLAIM_GO_IMAGE:-reclaim/golang:local}"
add RECLAIM_DEBIAN_IMAGE "${RECLAIM_DEBIAN_IMAGE:-reclaim/debian-bookworm:local}"
add E2E_BASE_IMAGE "${E2E_BASE_IMAGE:-reclaim/debian-bookworm-node:local}"
echo "deploy/env.sh: $file is ready"
