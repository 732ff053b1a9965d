#!/bin/sh
# Starts a throwaway Redis for the tests and prints the line that points them
# at it:
#
#   eval "$(scripts/testredis.sh)"
#
# Prints nothing (and leaves the environment alone) when RECLAIM_TEST_REDIS_URL
# is already set or redis-server is not installed. Idempotent: a Redis already
# answering on the port is reused. The server keeps nothing on disk; stop it
# with: kill "$(cat /tmp/reclaim-test-redis-56379.pid)"
# Everything but the export line goes to stderr, so eval sees only that.
set -eu

port=56379
pidfile=/tmp/reclaim-test-redis-$port.pid
logfile=/tmp/reclaim-test-redis-$port.log
deadline_seconds=10

if [ -n "${RECLAIM_TEST_REDIS_URL:-}" ]; then
	exit 0
fi
if ! command -v redis-server >/dev/null 2>&1; then
	exit 0
fi
if ! command -v redis-cli >/dev/null 2>&1; then
	echo "testredis: redis-server found but redis-cli missing; not starting Redis" >&2
	exit 0
fi

ping() {
	[ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]
}

if ! ping; then
	redis-server --bind 127.0.0.1 --port "$port" --daemonize yes \
		--pidfile "$pidfile" --logfile "$logfile" --dir /tmp \
		--save '' --appendonly no >&2
	deadline=$(($(date +%s) + deadline_seconds))
	until ping; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			echo "testredis: no PONG from 127.0.0.1:$port after ${deadline_seconds}s; see $logfile" >&2
			exit 1
		fi
		sleep 0.1
	done
fi

echo "export RECLAIM_TEST_REDIS_URL=redis://127.0.0.1:$port/0"
