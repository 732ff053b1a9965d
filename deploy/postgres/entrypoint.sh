#!/bin/sh
# Creates the cluster in $PGDATA on the first start (POSTGRES_USER, a superuser
# with POSTGRES_PASSWORD, and POSTGRES_DB), then runs postgres in the foreground
# with "$@" as extra arguments. Clients authenticate with scram-sha-256.
set -eu
: "${POSTGRES_USER:=reclaim}" "${POSTGRES_DB:=reclaim}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
	if [ -z "${POSTGRES_PASSWORD:-}" ]; then
		echo "postgres-entrypoint: set POSTGRES_PASSWORD" >&2
		exit 1
	fi
	pwfile="$(mktemp)"
	printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
	initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
		--encoding=UTF8 --locale=C.UTF-8 >/dev/null
	rm -f "$pwfile"
	echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
	pg_ctl -w -o "-c listen_addresses=''" start >/dev/null
	if [ "$POSTGRES_DB" != postgres ]; then
		createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
	fi
	pg_ctl -w -m fast stop >/dev/null
	echo "postgres-entrypoint: created the cluster, user $POSTGRES_USER and database $POSTGRES_DB"
fi
exec postgres -c listen_addresses='*' "$@"
