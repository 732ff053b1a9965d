package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
)

// FuzzKeyArgument: whatever a keyed tool's arguments, keyArgument never
// panics; a key it takes is one the idempotency layer takes, and the
// arguments it leaves are the same object without it; a key it refuses is
// refused naming idempotencyKey.
func FuzzKeyArgument(f *testing.F) {
	f.Add([]byte(`{"address":"x","idempotencyKey":"3f1c"}`))
	f.Add([]byte(`{"idempotencyKey":""}`))
	f.Add([]byte(`{"idempotencyKey":"a b"}`))
	f.Add([]byte(`{"idempotencyKey":"\"quoted\""}`))
	f.Add([]byte(`{"idempotencyKey":7}`))
	f.Add([]byte(`{"idempotencyKey":"k","idempotencyKey":"k2"}`))
	f.Add([]byte(`["idempotencyKey"]`))
	f.Add([]byte(`null`))
	keyed := mcpTool{keyed: true}
	f.Fuzz(func(t *testing.T, args []byte) {
		rest, header, err := keyArgument(keyed, args)
		if err != nil {
			if gateway.ParamOf(gateway.AsConnectError(gateway.ToConnect(t.Context(), nil, err))) != idempotencyKeyArg {
				t.Fatalf("%s: refused %v, not naming %s", args, err, idempotencyKeyArg)
			}
			return
		}
		if header == nil {
			if !bytes.Equal(rest, args) {
				t.Fatalf("%s: no key, yet the arguments changed to %s", args, rest)
			}
			return
		}
		key, err := idempotency.ParseKey(header.Values(idempotency.Header))
		if err != nil || key == "" {
			t.Fatalf("%s: took key %q that the idempotency layer refuses: %v", args, header.Get(idempotency.Header), err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(rest, &fields); err != nil {
			t.Fatalf("%s: left %s, not an object: %v", args, rest, err)
		}
		if _, still := fields[idempotencyKeyArg]; still {
			t.Fatalf("%s: left the key in %s", args, rest)
		}
	})
}
