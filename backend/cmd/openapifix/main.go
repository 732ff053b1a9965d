// Command openapifix rewrites the OpenAPI document that protoc-gen-connect-openapi
// writes (from proto/ and base.yaml, see buf.gen.yaml) so that it describes what
// the REST API really sends, as the JSON codec of backend/server writes it:
//
//   - 64-bit integers are JSON numbers: `type: [integer, string]` becomes
//     `integer`; unsigned fields get `minimum: 0`;
//   - `nullable` (an OpenAPI 3.0 keyword that 3.1 validators ignore) is
//     dropped; a field marked (reclaim.v1.json_null) gets "null" in its type;
//   - response fields without presence are `required` (the codec always
//     writes them, zero included);
//   - every operation answers 429 with Retry-After and any error with the
//     Error body (base.yaml), and says which credentials it takes, from the
//     server's own requirement table;
//   - schemas no operation reaches (request messages, map entries) and the
//     proto field names the plugin writes as property titles are dropped.
//
// Usage: go run ./backend/cmd/openapifix gen/openapi/reclaim.openapi.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: openapifix FILE.json")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "openapifix:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return err
	}
	if err := fix(doc); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
