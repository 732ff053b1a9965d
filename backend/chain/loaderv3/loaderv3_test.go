package loaderv3_test

import (
	"encoding/hex"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/ixtest"
	"github.com/reclaim-sol/reclaim/backend/chain/loaderv3"
)

var key = ixtest.Key

func hx(k solana.PublicKey) string { return hex.EncodeToString(k[:]) }

// TestInstructionLayouts pins the encoders to solana-loader-v3-interface's
// (instruction.rs): bincode of UpgradeableLoaderInstruction, a u32 tag
// first; close is close_any(buffer, recipient, Some(authority), None), the
// authority a read-only signer. The same bytes the local validator's own
// fixtures send (backend/localvalidator/test/fixtures.js) and its loader executes.
func TestInstructionLayouts(t *testing.T) {
	t.Parallel()
	buffer, recipient, authority := key("buffer"), key("recipient"), key("authority")
	w := ixtest.Writable
	s := ixtest.Signer
	ro := ixtest.ReadOnly
	loader := solana.MustPublicKeyFromBase58("BPFLoaderUpgradeab1e11111111111111111111111")
	ixtest.Run(t, []ixtest.Case{
		{
			Name: "Close", Ix: loaderv3.Close(buffer, recipient, authority),
			Program: loader, Data: "05000000", Metas: []ixtest.Meta{w(buffer), w(recipient), s(authority)},
		},
		{
			Name: "InitializeBuffer", Ix: loaderv3.InitializeBuffer(buffer, authority),
			Program: loader, Data: "00000000", Metas: []ixtest.Meta{w(buffer), ro(authority)},
		},
		{
			Name: "Write", Ix: loaderv3.Write(buffer, authority, 600, []byte{7, 7, 7}),
			Program: loader, Data: "01000000" + "58020000" + "0300000000000000" + "070707", Metas: []ixtest.Meta{w(buffer), s(authority)},
		},
	})
}

func TestParseBuffer(t *testing.T) {
	t.Parallel()
	auth := key("authority")
	// A buffer as the loader writes it (and the local validator's
	// reclaimables test reads it back): tag 1, Some, the authority, then the
	// program's bytes.
	made := append(loaderv3.AuthorityFilter(auth), make([]byte, 1000)...)
	b, err := loaderv3.ParseBuffer(made)
	if err != nil || b.Authority == nil || *b.Authority != auth {
		t.Fatalf("ParseBuffer = %+v, %v; want authority %s", b, err, auth)
	}
	if got := hex.EncodeToString(made[:5]) + hex.EncodeToString(made[5:37]); got != "0100000001"+hx(auth) {
		t.Errorf("filter bytes %s", got)
	}
	immutable, err := loaderv3.ParseBuffer(append([]byte{1, 0, 0, 0, 0}, make([]byte, 32)...))
	if err != nil || immutable.Authority != nil {
		t.Errorf("a buffer without authority: %+v, %v", immutable, err)
	}
	for name, data := range map[string][]byte{
		"program data": append([]byte{3, 0, 0, 0}, make([]byte, 41)...),
		"program":      append([]byte{2, 0, 0, 0}, make([]byte, 32)...),
		"empty":        nil,
		"short":        {1, 0, 0, 0, 1, 9},
		"bad option":   append([]byte{1, 0, 0, 0, 2}, make([]byte, 32)...),
	} {
		if _, err := loaderv3.ParseBuffer(data); err == nil {
			t.Errorf("%s: parsed as a buffer", name)
		}
	}
}
