#!/usr/bin/env bash
# lint-openapi.sh runs the three OpenAPI linters integrators use on the
# document (gen/openapi/reclaim.openapi.json, or the files given): any error
# fails. Then it runs them on a broken document
# (gen/openapi/lint/testdata/broken.openapi.json), each of which must fail:
# a linter that passes anything would pass ours too.
#
#   openapi-spec-validator  0.9.0, pip-installed on the CI image (not in
#                           Debian, and PyPI is not reachable from CI): used
#                           when present; with CI=true its absence fails.
#   @redocly/cli            2.77.0, redocly.yaml      } gen/openapi/lint,
#   @stoplight/spectral-cli 6.16.3, .spectral.yaml    } npm ci (make does it)
#
#   make lint-openapi               # the document, then the broken one
set -euo pipefail
cd "$(dirname "$0")/.."
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
bin=gen/openapi/lint/node_modules/.bin
broken=gen/openapi/lint/testdata/broken.openapi.json
docs=("$@")
[ "${#docs[@]}" -gt 0 ] || docs=(gen/openapi/reclaim.openapi.json)

validator=""
if command -v openapi-spec-validator >/dev/null 2>&1; then
	validator=openapi-spec-validator
elif [ "${CI:-}" = true ]; then
	echo "openapi-spec-validator is not installed: CI images carry it (pip install openapi-spec-validator==0.9.0; Debian has no package)" >&2
	exit 1
else
	echo "openapi-spec-validator is not installed: skipped here (pip install openapi-spec-validator==0.9.0); CI fails without it" >&2
fi

# lint DOC runs each linter on DOC; with "refuse", each must fail.
lint() {
	local doc="$1" want="$2" failed=0 name
	for name in ${validator:+spec-validator} redocly spectral; do
		local out rc=0
		out="$(mktemp)"
		case "$name" in
		spec-validator) "$validator" "$doc" >"$out" 2>&1 || rc=$? ;;
		redocly) "$bin/redocly" lint --config redocly.yaml "$doc" >"$out" 2>&1 || rc=$? ;;
		spectral) "$bin/spectral" lint --ruleset .spectral.yaml --fail-severity error "$doc" >"$out" 2>&1 || rc=$? ;;
		esac
		if [ "$want" = accept ] && [ "$rc" -ne 0 ]; then
			echo "--- $name: $doc has errors" >&2
			cat "$out" >&2
			failed=1
		elif [ "$want" = refuse ] && [ "$rc" -eq 0 ]; then
			echo "--- $name passed $doc, which is broken: the linter is not checking" >&2
			cat "$out" >&2
			failed=1
		else
			echo "$name: $doc $([ "$want" = accept ] && echo passes || echo refused, as it must)"
		fi
		rm -f "$out"
	done
	return "$failed"
}

status=0
for doc in "${docs[@]}"; do
	lint "$doc" accept || status=1
done
lint "$broken" refuse || status=1
exit "$status"
