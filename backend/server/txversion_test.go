package server_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// TestBuildTransactionVersion builds, over REST against a fake cluster, a
// select-all of 60 empty accounts as v0 and as v1: the v1 answer says
// transactionVersion 1 on each transaction, whose bytes are a v1
// transaction (txv1 decodes it, at most 4,096 bytes, signature slots
// zeroed), in fewer transactions than v0; the summary asked for either
// version counts the transactions that build takes. A version Reclaim does
// not build, on the build or the summary, is a 400 that says which to give.
func TestBuildTransactionVersion(t *testing.T) {
	f := newFakeCluster(t)
	f.addEmpty(60)
	e := newEnv(t, withRPC(f.url))
	wallet := f.owner.String()
	count := map[int]int{}
	for _, version := range []int{0, 1} {
		r := e.rest("POST", "/v1/wallet/"+wallet+"/transactions", apiKey(e.apiKey),
			map[string]any{"selectAll": true, "transactionVersion": version}).status(200)
		var got struct {
			Transactions []struct {
				TransactionBase64  string
				TransactionVersion *int
			}
		}
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		count[version] = len(got.Transactions)
		for i, tx := range got.Transactions {
			if tx.TransactionVersion == nil || *tx.TransactionVersion != version {
				t.Fatalf("v%d build: transaction %d says version %v", version, i, tx.TransactionVersion)
			}
			raw, err := base64.StdEncoding.DecodeString(tx.TransactionBase64)
			if err != nil {
				t.Fatal(err)
			}
			if version == 0 {
				if raw[0] != 1 || raw[65] != 0x80 {
					t.Fatalf("v0 transaction %d is not one signature slot and a v0 message", i)
				}
				continue
			}
			var v txv1.Transaction
			if err := v.UnmarshalBinary(raw); err != nil {
				t.Fatalf("v1 transaction %d: %v", i, err)
			}
			if len(raw) > txv1.MaxTransactionSize || len(v.Signatures) != 1 || v.Signatures[0] != ([64]byte{}) {
				t.Fatalf("v1 transaction %d: %d bytes, signatures %v", i, len(raw), v.Signatures)
			}
		}
		sum := e.rest("GET", "/v1/wallet/"+wallet+"/summary?transactionVersion="+string(rune('0'+version)), apiKey(e.apiKey), nil).status(200).json()
		if n := sum["transactionCount"]; n != float64(count[version]) {
			t.Fatalf("v%d summary counts %v transactions, the build took %d", version, n, count[version])
		}
	}
	if count[1] >= count[0] || count[1] != 2 {
		t.Fatalf("v1 took %d transactions and v0 %d for 60 closes", count[1], count[0])
	}
	for _, r := range []*response{
		e.rest("POST", "/v1/wallet/"+wallet+"/transactions", apiKey(e.apiKey), map[string]any{"selectAll": true, "transactionVersion": 2}),
		e.rest("GET", "/v1/wallet/"+wallet+"/summary?transactionVersion=2", apiKey(e.apiKey), nil),
	} {
		msg := r.restErr(400, "invalid_argument")
		if !strings.Contains(msg, "transaction version 2") || !strings.Contains(msg, "give 0") || !strings.Contains(msg, "supportedTransactionVersions") {
			t.Errorf("transactionVersion 2: %q does not say what to give", msg)
		}
	}
}
