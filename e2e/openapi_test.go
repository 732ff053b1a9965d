package e2e

import (
	"net/http"

	"github.com/reclaim-sol/reclaim/gen/openapi/openapitest"
)

// restClient is the suite's REST client: every answer it reads must be one
// gen/openapi/reclaim.openapi.json describes, or the request fails.
var restClient = &http.Client{Transport: openapitest.Transport(nil)}
