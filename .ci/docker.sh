#!/usr/bin/env bash
# Docker for the e2e suite and the deployment on a machine that can reach Debian's
# apt mirrors and the Go module proxy but no container registry. Idempotent: every
# step checks before it acts, so a warm machine only starts dockerd.
#
#   1. installs docker.io, docker-compose, debootstrap, nodejs and npm from apt when
#      missing;
#   2. starts dockerd in the background when `docker info` fails, and waits for it;
#   3. builds the base images that no registry gives us here, when they do not exist:
#      - $E2E_BASE_IMAGE: a debootstrap bookworm root with Debian's nodejs (the
#        validator's base);
#      - $RECLAIM_DEBIAN_IMAGE: a bare debootstrap bookworm root (the base of the
#        deployment's HAProxy, Postgres and Redis images, deploy/);
#      - $RECLAIM_GO_IMAGE: that root with this machine's Go toolchain and trust
#        store (the build stage of the reclaim image, Dockerfile); rebuilt when the
#        host's Go version changes.
#
# Run it (`bash .ci/docker.sh`) or source it (`. .ci/docker.sh`); sourcing exports
# the three image names for what runs next. Nothing here talks to a registry.
#
# Environment:
#   E2E_BASE_IMAGE        default reclaim/debian-bookworm-node:local; must match the
#                         harness's default (e2e/harness).
#   RECLAIM_DEBIAN_IMAGE  default reclaim/debian-bookworm:local
#   RECLAIM_GO_IMAGE      default reclaim/golang:local
#   DEBIAN_MIRROR         mirror debootstrap reads (default http://deb.debian.org/debian).
#   DOCKERD_LOG           where dockerd logs (default /tmp/dockerd.log).

ci_docker_main() {
	local base="${E2E_BASE_IMAGE:-reclaim/debian-bookworm-node:local}"
	local debian="${RECLAIM_DEBIAN_IMAGE:-reclaim/debian-bookworm:local}"
	local golang="${RECLAIM_GO_IMAGE:-reclaim/golang:local}"
	local log="${DOCKERD_LOG:-/tmp/dockerd.log}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"

	local missing=()
	command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
	command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
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

	ci_debootstrap_image "$base" nodejs,ca-certificates || return 1
	ci_debootstrap_image "$debian" ca-certificates || return 1
	ci_go_image "$golang" "$debian" || return 1
	export E2E_BASE_IMAGE="$base" RECLAIM_DEBIAN_IMAGE="$debian" RECLAIM_GO_IMAGE="$golang"
}

# ci_debootstrap_image IMAGE PACKAGES builds IMAGE, unless it exists, from a
# debootstrap bookworm minbase root with PACKAGES (comma-separated).
ci_debootstrap_image() {
	local image="$1" packages="$2" root start=$SECONDS
	local mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	if docker image inspect "$image" >/dev/null 2>&1; then
		echo "docker.sh: base image $image exists"
		return 0
	fi
	root="$(mktemp -d /tmp/reclaim-rootfs.XXXXXX)"
	echo "docker.sh: building base image $image with debootstrap (bookworm, $packages)"
	if ! $sudo debootstrap --variant=minbase --include="$packages" \
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
		--change 'CMD ["/bin/bash"]' - "$image" >/dev/null || { $sudo rm -rf "$root"; return 1; }
	$sudo rm -rf "$root"
	echo "docker.sh: base image $image built in $((SECONDS - start))s"
}

# ci_go_image IMAGE BASE builds IMAGE from BASE with the host's Go toolchain
# (GOROOT, without its tests) and the host's trust store, so that the build
# reaches the Go module proxy as the host does. The image is labelled with the Go
# version and rebuilt when the host's changes.
ci_go_image() {
	local image="$1" from="$2" start=$SECONDS goroot version
	goroot="$(go env GOROOT)" && version="$(go env GOVERSION)" || return 1
	if [ "$(docker image inspect -f '{{index .Config.Labels "org.reclaim.go-version"}}' "$image" 2>/dev/null)" = "$version" ]; then
		echo "docker.sh: Go image $image ($version) exists"
		return 0
	fi
	echo "docker.sh: building Go image $image ($version from $goroot)"
	local dir
	dir="$(dirname "${BASH_SOURCE[0]}")/../deploy/golang"
	# The build context, as a tar on stdin: the Dockerfile, go/ and the host's CA bundle.
	tar -c --exclude=go/test --exclude=go/doc \
		-C "$dir" Dockerfile \
		-C "$(dirname "$goroot")" "$(basename "$goroot")" \
		-C /etc/ssl/certs --transform='s,^ca-certificates.crt$,host-ca-certificates.crt,' ca-certificates.crt |
		docker build -q -t "$image" --build-arg BASE_IMAGE="$from" --build-arg GO_VERSION="$version" \
			--build-arg GOROOT_DIR="$(basename "$goroot")" - >/dev/null || return 1
	echo "docker.sh: Go image $image built in $((SECONDS - start))s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	ci_docker_main
else
	ci_docker_main
fi
