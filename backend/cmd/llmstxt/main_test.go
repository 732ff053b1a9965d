package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/gen/llms"
	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// An agent reading /llms.txt learns the submit body's fields and the
// signing hand-off (signUrl), under the names the contract uses, and the
// committed file is what the generator writes.
func TestLLMsTxtSaysHowToSubmitAndHandOff(t *testing.T) {
	t.Parallel()
	text, err := render(openapi.Document)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(text), llms.Text) {
		t.Error("gen/llms/llms.txt is stale: run make generate")
	}
	for _, field := range []string{"signed", "transactionBase64", "submissionTicket", "signUrl", "signUrlExpiresAt"} {
		if !strings.Contains(text, field) {
			t.Errorf("llms.txt does not name %s", field)
		}
	}
	// The submit body's names are the OpenAPI document's (signUrl is MCP's
	// alone).
	for _, field := range []string{"signed", "transactionBase64", "submissionTicket"} {
		if !bytes.Contains(openapi.Document, []byte(`"`+field+`"`)) {
			t.Errorf("the OpenAPI document has no field %s: llms.txt names one the API does not take", field)
		}
	}
	if !strings.Contains(text, `{"signed": [{"transactionBase64": "SIGNED_TX", "submissionTicket": "TICKET"}]}`) {
		t.Error("llms.txt does not show the submit body")
	}
}
