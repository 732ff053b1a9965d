package relay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// FuzzDecode feeds decode kit's v1 transactions (txv1's goldens) and what
// the fuzzer makes of them: it never panics, and a v1 transaction it reads
// is the message it returns followed by its signatures, one per signer,
// the first being its id.
func FuzzDecode(f *testing.F) {
	raw, err := os.ReadFile("../../chain/txv1/testdata/kit.golden.json")
	if err != nil {
		f.Fatal(err)
	}
	var g struct {
		Cases []struct{ Transaction string } `json:"cases"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		f.Fatal(err)
	}
	for _, c := range g.Cases {
		b, err := base64.StdEncoding.DecodeString(c.Transaction)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		tx, err := decode(raw)
		if err != nil || len(raw) == 0 || raw[0] != txv1.VersionByte {
			return
		}
		var m txv1.Message
		if err := m.UnmarshalBinary(tx.message); err != nil {
			t.Fatalf("the message decode returned does not read: %v", err)
		}
		if len(tx.signatures) != int(m.Header.NumRequiredSignatures) || len(tx.keys) != len(m.AccountKeys) {
			t.Fatalf("%d signatures and %d keys for a message of %d signers and %d addresses", len(tx.signatures), len(tx.keys), m.Header.NumRequiredSignatures, len(m.AccountKeys))
		}
		rebuilt := append([]byte{}, tx.message...)
		for _, s := range tx.signatures {
			rebuilt = append(rebuilt, s[:]...)
		}
		if !bytes.Equal(rebuilt, raw) {
			t.Fatal("message and signatures are not the transaction's bytes")
		}
	})
}
