#!/usr/bin/env bash
# Docker for the e2e suite on a machine that can reach Debian's apt mirrors but no
# container registry. Idempotent: every step checks before it acts.
#
#   1. installs docker.io, debootstrap, nodejs and npm from apt when missing;
#   2. starts dockerd in the background when `docker info` fails, and waits for it;
#   3. builds the validator's base image (a debootstrap bookworm root with Debian's
#      nodejs, `docker import`ed as $E2E_BASE_IMAGE) when it does not exist yet.
#
# Run it (`bash .ci/docker.sh`) or source it (`. .ci/docker.sh`); sourcing exports
# E2E_BASE_IMAGE for what runs next. Nothing here talks to a registry.
#
# Environment:
#   E2E_BASE_IMAGE   name of the base image (default reclaim/debian-bookworm-node:local);
#                    must match the harness's default (e2e/harness).
#   DEBIAN_MIRROR    mirror debootstrap reads (default http://deb.debian.org/debian).
#   DOCKERD_LOG      where dockerd logs (default /tmp/dockerd.log).

ci_docker_main() {
	local base="${E2E_BASE_IMAGE:-reclaim/debian-bookworm-node:local}"
	local mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
	local log="${DOCKERD_LOG:-/tmp/dockerd.log}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"

	local missing=()
	command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
	command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
	# node and npm on the host: `npm ci` for the image's node_modules, the web3.js e2e
	# script, and `make validator`.
	command -v node >/dev/null 2>&1 || missing+=(nodejs)
	command -v npm >/dev/null 2>&1 || missing+=(npm)
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "docker.sh: installing ${missing[*]} from apt"
		$sudo apt-get update -qq || return 1
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
			"${missing[@]}" ca-certificates >/dev/null || return 1
	fi

	if ! docker info >/dev/null 2>&1; then
		echo "docker.sh: starting dockerd (log: $log)"
		# setsid: dockerd outlives this shell and is not killed with the job's group.
		$sudo setsid dockerd >"$log" 2>&1 </dev/null &
		local deadline=$((SECONDS + 60))
		until docker info >/dev/null 2>&1; do
			if [ "$SECONDS" -ge "$deadline" ]; then
				echo "docker.sh: dockerd did not come up within 60s; last log lines:" >&2
				tail -n 30 "$log" >&2
				return 1
			fi
			sleep 0.5
		done
	fi
	echo "docker.sh: docker $(docker version --format '{{.Server.Version}}' 2>/dev/null) is up"

	if docker image inspect "$base" >/dev/null 2>&1; then
		echo "docker.sh: base image $base exists"
	else
		local start=$SECONDS root
		root="$(mktemp -d /tmp/reclaim-rootfs.XXXXXX)"
		echo "docker.sh: building base image $base with debootstrap (bookworm, nodejs)"
		if ! $sudo debootstrap --variant=minbase --include=nodejs,ca-certificates \
			bookworm "$root" "$mirror" >/tmp/debootstrap.log 2>&1; then
			echo "docker.sh: debootstrap failed; last log lines:" >&2
			tail -n 30 /tmp/debootstrap.log >&2
			$sudo rm -rf "$root"
			return 1
		fi
		# Trim what a runtime image never needs: apt lists and caches, docs, locales.
		$sudo rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
			"$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
		$sudo tar -C "$root" -c . | docker import \
			--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
			--change 'CMD ["/bin/bash"]' - "$base" >/dev/null || { $sudo rm -rf "$root"; return 1; }
		$sudo rm -rf "$root"
		echo "docker.sh: base image $base built in $((SECONDS - start))s"
	fi
	export E2E_BASE_IMAGE="$base"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	ci_docker_main
else
	ci_docker_main
fi
