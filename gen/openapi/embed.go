// Package openapi holds the OpenAPI 3.1 document of Reclaim's REST API,
// generated from proto/ by `make generate` (protoc-gen-connect-openapi with
// backend/cmd/openapifix/base.yaml, then backend/cmd/openapifix). The server
// serves it at GET /v1/openapi.json; tests validate every REST response
// against it (openapitest). This file is the only one written by hand.
package openapi

import _ "embed"

// Document is reclaim.openapi.json.
//
//go:embed reclaim.openapi.json
var Document []byte
