# The reclaim image: one static binary on an empty base, run as an unprivileged
# user. CGO_ENABLED=0 is enough: SQLite is modernc.org/sqlite (pure Go), which bun's
# sqliteshim picks on linux/amd64 and arm64 whatever cgo says.
#
#   docker build -t reclaim .                                            # where a registry is reachable
#   docker build -t reclaim --build-arg GO_IMAGE=reclaim/golang:local .  # here (.ci/docker.sh builds it)
#
# The stages keep rebuilds short without BuildKit's cache mounts (Debian's docker
# has no buildx): modules are downloaded in a layer keyed by go.sum, and the
# third-party packages the binary imports are compiled in a layer keyed by their
# list, so a change to our code compiles our packages alone.
#
# The image listens on 0.0.0.0:8080 and keeps SQLite and generated secrets in /data
# (mount a volume there to keep them: no VOLUME line, so that instances on Postgres
# leave no anonymous volumes behind); set DATABASE_URL for Postgres, and
# RECLAIM_SIGNING_KEY and RECLAIM_API_KEY_PEPPER when several instances share it
# (deploy/compose.yaml).
ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=scratch

FROM ${GO_IMAGE} AS modules
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
COPY go.mod go.sum ./
RUN go mod download

FROM modules AS sources
COPY gen ./gen
COPY admin ./admin
COPY backend ./backend
RUN go list -deps -f '{{with .Module}}{{if not .Main}}{{$.ImportPath}}{{end}}{{end}}' ./backend/cmd/reclaim >/deps.txt

FROM modules AS dependencies
COPY --from=sources /deps.txt /deps.txt
RUN xargs go build </deps.txt

FROM dependencies AS build
COPY --from=sources /src ./
RUN go build -ldflags="-s -w" -o /out/reclaim ./backend/cmd/reclaim && \
	mkdir -p /out/root/data /out/root/tmp && chmod 1777 /out/root/tmp && \
	cp /etc/ssl/certs/ca-certificates.crt /out/ca-certificates.crt

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build --chown=65532:65532 /out/root/ /
COPY --from=build /out/reclaim /usr/local/bin/reclaim
USER 65532:65532
ENV RECLAIM_ADDR=0.0.0.0:8080 RECLAIM_DATA_DIR=/data HOME=/data
EXPOSE 8080 9090
ENTRYPOINT ["/usr/local/bin/reclaim"]
CMD ["serve"]
