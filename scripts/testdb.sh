#!/usr/bin/env bash
# testdb.sh starts (or reuses) a throwaway PostgreSQL for the storage tests and
# prints the one line that points the tests at it:
#
#   eval "$(scripts/testdb.sh)"    # sets RECLAIM_TEST_POSTGRES_URL
#
# - If RECLAIM_TEST_POSTGRES_URL is already set, it prints nothing: the caller's
#   database wins.
# - If no PostgreSQL server binaries are installed, it prints nothing and exits 0:
#   the Postgres variants of the tests then skip (or fail when CI=true).
# - Otherwise it runs initdb once under $RECLAIM_TEST_PG_DIR (default
#   /tmp/reclaim-test-pg), starts the server on 127.0.0.1:$RECLAIM_TEST_PG_PORT
#   (default 55432) with trust auth, waits until it accepts connections and prints
#   the export line. A second call reuses the running server.
#
# Everything except the export line goes to stderr, so eval sees only that line.
# The server is tuned for tests (fsync off): never point it at data you keep.
# Stop it with: pg_ctl -D /tmp/reclaim-test-pg/data stop (as the postgres user).
set -euo pipefail

if [[ -n "${RECLAIM_TEST_POSTGRES_URL:-}" ]]; then
	exit 0
fi

dir="${RECLAIM_TEST_PG_DIR:-/tmp/reclaim-test-pg}"
port="${RECLAIM_TEST_PG_PORT:-55432}"
url="postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable"

# find_bindir prints the newest installed PostgreSQL server bin directory.
find_bindir() {
	local d best=""
	if [[ -n "${PG_BINDIR:-}" ]]; then
		set -- "$PG_BINDIR"
	else
		# sort -V: a lexical glob would rank 9 above 15.
		set -- $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V)
		if command -v pg_config >/dev/null 2>&1; then
			set -- "$(pg_config --bindir)" "$@"
		fi
	fi
	for d in "$@"; do
		if [[ -x "$d/initdb" && -x "$d/pg_ctl" && -x "$d/pg_isready" ]]; then
			best="$d"
		fi
	done
	echo "$best"
}

bindir="$(find_bindir)"
if [[ -z "$bindir" ]]; then
	echo "testdb.sh: no PostgreSQL server binaries found; Postgres tests will skip" >&2
	exit 0
fi

# PostgreSQL refuses to run as root: run its tools as the postgres user then.
as_pg() {
	if [[ "$(id -u)" -ne 0 ]]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u postgres -- "$@"
	else
		su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
	fi
}

ready() {
	"$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres -U postgres
}

print_url() {
	printf "export RECLAIM_TEST_POSTGRES_URL='%s'\n" "$url"
}

if ready; then
	print_url
	exit 0
fi

# Serialize concurrent callers (parallel make targets): one initdb, one start.
mkdir -p "$dir"
if [[ "$(id -u)" -eq 0 ]]; then
	chown postgres: "$dir"
fi
chmod 0700 "$dir"
exec 9>"${dir}.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi

if ! ready; then
	if [[ ! -s "$dir/data/PG_VERSION" ]]; then
		echo "testdb.sh: initdb in $dir/data" >&2
		as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust \
			--encoding=UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
			cat "$dir/initdb.log" >&2
			exit 1
		}
	fi
	if ! as_pg "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
		echo "testdb.sh: starting PostgreSQL on 127.0.0.1:$port" >&2
		as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -W \
			-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=256MB -c max_connections=200" \
			start >&2
	fi
	deadline=$((SECONDS + 60))
	until ready; do
		if ((SECONDS >= deadline)); then
			echo "testdb.sh: PostgreSQL did not accept connections within 60s; log follows" >&2
			tail -n 50 "$dir/server.log" >&2 || true
			exit 1
		fi
		sleep 0.2
	done
fi

print_url
