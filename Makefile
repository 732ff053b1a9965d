# Reclaim: see README.md. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# testcontainers-go on this kind of machine: the reaper image cannot be pulled,
# and without the override it would dial the default gateway (off this machine).
export TESTCONTAINERS_RYUK_DISABLED := true
export TESTCONTAINERS_HOST_OVERRIDE := 127.0.0.1

GO_TEST_FLAGS ?= -count=1 -timeout 45m

# The local validator (LiteSVM under Node): `make validator`, `make run` (through
# reclaim dev), the images and the e2e suite all run this folder's server.js.
LOCAL_VALIDATOR := backend/localvalidator

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

.PHONY: build
build: ## build bin/reclaim
	go build -o bin/reclaim ./backend/cmd/reclaim

.PHONY: run
run: build ## the whole local stack: the local validator, the demo (data/demo.json) and the service on 127.0.0.1:8080 (README: the ports and what moves them); with SOLANA_RPC_URL set, the service alone
	./bin/reclaim dev

# npm ci in a package directory once its lockfile changes.
%/node_modules/.package-lock.json: %/package-lock.json
	cd $* && npm ci --no-audit --no-fund

.PHONY: generate
generate: gen/ts/node_modules/.package-lock.json e2e/openapits/node_modules/.package-lock.json ## regenerate gen/ (Go, Connect, OpenAPI, /llms.txt, the TypeScript client), the console's templ views and the e2e suite's clients generated from the OpenAPI document
	go tool buf generate
	go run ./backend/cmd/openapifix gen/openapi/reclaim.openapi.json
	go run ./backend/cmd/llmstxt gen/llms/llms.txt
	go tool buf generate --template buf.gen.ts.yaml
	go tool templ generate -path admin
	cd e2e/oapiclient && go tool oapi-codegen -config config.yaml ../../gen/openapi/reclaim.openapi.json
	cd e2e/openapits && npm run --silent generate

# What make generate writes.
GENERATED := gen admin e2e/oapiclient e2e/openapits/schema.d.ts

.PHONY: check-generated
check-generated: generate ## fail if generated code is not current
	@git diff --exit-code -- $(GENERATED) || { echo "generated code is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- $(GENERATED))" || { echo "generated files are not committed: run make generate and commit"; git status --porcelain -- $(GENERATED); exit 1; }

# golangci-lint lives in its own module (tools/golangci-lint/go.mod) so that its
# dependencies never move the service's; the first run builds it (minutes).
GOLANGCI_LINT := go tool -modfile=tools/golangci-lint/go.mod golangci-lint

.PHONY: lint
lint: breaking lint-openapi ## buf lint and breaking, the OpenAPI linters, gofmt, go vet, golangci-lint (with the import rules of .golangci.yml)
	go tool buf lint
	@test -z "$$(gofmt -l backend e2e admin 2>/dev/null)" || { echo "gofmt needed:"; gofmt -l backend e2e admin; exit 1; }
	go vet ./...
	$(GOLANGCI_LINT) run ./...

# The OpenAPI document through openapi-spec-validator (the CI image's), Redocly
# (redocly.yaml) and Spectral (.spectral.yaml), pinned in gen/openapi/lint;
# then a broken document each must refuse. Any error fails.
.PHONY: lint-openapi
lint-openapi: gen/openapi/lint/node_modules/.package-lock.json ## the OpenAPI linters: openapi-spec-validator, redocly lint, spectral (oas)
	scripts/lint-openapi.sh

# proto/ against the main branch: the local one, or origin/main in a clone of
# another branch. On main it compares main with itself (a no-op that still
# runs); on a branch it lists what the branch would break for clients.
.PHONY: breaking
breaking: ## buf breaking: proto/ against the main branch
	@ref=main; git rev-parse -q --verify refs/heads/main >/dev/null || ref=origin/main; \
		echo "go tool buf breaking --against '.git#ref=$$ref'"; \
		go tool buf breaking --against ".git#ref=$$ref"

.PHONY: test
test: gen/ts/node_modules/.package-lock.json $(LOCAL_VALIDATOR)/node_modules/.package-lock.json chart ## run every test: the Helm chart, unit, storage (SQLite + Postgres), Redis, the TypeScript client, the local validator's own, e2e (Docker), browsers
	cd gen/ts && npm test
	cd $(LOCAL_VALIDATOR) && npm test
	eval "$$(scripts/testdb.sh)" && eval "$$(scripts/testredis.sh)" && \
		go test $(GO_TEST_FLAGS) ./...

# The Helm chart, checked without a cluster. Helm and the strict decoder live in
# a module of their own (deploy/helm/check/go.mod: client-go stays out of the
# service's); the first run builds them (minutes), later ones take seconds.
HELM := go tool -modfile=deploy/helm/check/go.mod helm
CHART_KUBE := --kube-version 1.30.0

.PHONY: chart
chart: ## the Helm chart: helm lint --strict and helm template of every values file, each object decoded strictly, bad values refused
	@for f in "" deploy/helm/reclaim/values-*.yaml deploy/helm/reclaim/ci/*-values.yaml; do \
		[ -z "$$f" ] || [ -f "$$f" ] || continue; \
		echo "helm lint --strict / template $${f:-(defaults)}"; \
		$(HELM) lint --strict --quiet $(CHART_KUBE) $${f:+-f $$f} deploy/helm/reclaim && \
		$(HELM) template reclaim deploy/helm/reclaim $(CHART_KUBE) $${f:+-f $$f} | go run -C deploy/helm/check . || exit 1; \
	done
	cd deploy/helm/check && go test -count=1 ./...

.PHONY: fuzz
fuzz: ## run every Go fuzz target for FUZZTIME (10s unless set) each (go test runs their seeds on every run)
	scripts/fuzz.sh

.PHONY: e2e
e2e: ## run the end-to-end suite against the local validator (Docker)
	go test $(GO_TEST_FLAGS) ./e2e/...

.PHONY: validator
validator: ## run the local validator on 127.0.0.1:VALIDATOR_PORT (8899 unless set), PubSub on VALIDATOR_PUBSUB_PORT (the next port unless set)
	cd $(LOCAL_VALIDATOR) && npm ci --no-audit --no-fund && node server.js --host 127.0.0.1 --port $${VALIDATOR_PORT:-8899} $${VALIDATOR_PUBSUB_PORT:+--ws-port $$VALIDATOR_PUBSUB_PORT}

.PHONY: demo
demo: build ## on the local validator (make validator): a wallet with reclaimable items, a project, an API key; writes data/demo.json
	./bin/reclaim demo

.PHONY: example
example: ## the sample integration (examples/) on http://127.0.0.1:SAMPLE_APP_PORT (5173 unless set), with make run's (or make demo's) key and wallet
	cd examples/web && npm ci --no-audit --no-fund && npm run build
	go run ./examples/integrator/cmd/integrator --demo data/demo.json

# The deployment (deploy/compose.yaml). No registry is reachable here: .ci/docker.sh
# builds the base images (debootstrap, and the host's Go toolchain), the rest is
# built from them; nothing is pulled.
COMPOSE := docker-compose -f deploy/compose.yaml

.PHONY: images
images: ## build the deployment's images locally: reclaim (Dockerfile), HAProxy, Postgres, Redis, the validator
	. .ci/docker.sh && deploy/env.sh && \
		{ test -d $(LOCAL_VALIDATOR)/node_modules || (cd $(LOCAL_VALIDATOR) && npm ci --no-audit --no-fund); } && \
		$(COMPOSE) build

.PHONY: compose-up
compose-up: images ## start deploy/compose.yaml: Postgres, Redis, the validator and two instances behind HAProxy on 127.0.0.1:8080
	$(COMPOSE) up -d --no-build
	@echo "reclaim on http://127.0.0.1:$${RECLAIM_PORT:-8080} (HAProxy stats: http://127.0.0.1:$${RECLAIM_LB_STATS_PORT:-8404}/stats)"

.PHONY: compose-down
compose-down: ## stop deploy/compose.yaml and delete its volumes
	$(COMPOSE) down -v --remove-orphans

.PHONY: deployment
deployment: ## only the deployment's proof: deploy/compose.yaml driven through the balancer (Docker)
	go test $(GO_TEST_FLAGS) -v -run '^TestDeployment$$' ./e2e/

.PHONY: load
load: ## load test of deploy/compose.yaml through the balancer, one and two instances (docs/performance.md)
	go test -count=1 -timeout 30m -run '^$$' -bench '^BenchmarkDeploymentLoad$$' -benchtime 1x -v ./e2e/

.PHONY: stack
stack: ## GET /v1/stats with a session: reclaim against the bare Connect+vanguard stack, side by side (docs/performance.md); BASELINE=dir adds another checkout
	E2E_STACK_BASELINE=$(BASELINE) E2E_STACK_PROFILE=$(PROFILE) go test -count=1 -run '^$$' -bench '^BenchmarkStackSideBySide$$' -benchtime 1x -v ./e2e/

.PHONY: bench
bench: ## Go benchmarks of the API and the ledger queries (Postgres)
	eval "$$(scripts/testdb.sh)" && eval "$$(scripts/testredis.sh)" && \
		go test -run '^$$' -bench . -benchmem ./backend/...
