package address_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/address"
)

func TestParse(t *testing.T) {
	t.Parallel()
	wallet := solana.NewWallet().PublicKey().String()
	pda, _, err := solana.FindProgramAddress([][]byte{[]byte("seed")}, solana.SystemProgramID)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		s, parse, wallet string // "" where it decodes
	}{
		{s: wallet},
		{s: pda.String(), wallet: `"` + pda.String() + `" is not an Ed25519 public key (it is off the curve, like a program-derived address): a wallet must be able to sign`},
		{s: "", parse: `"" is not a Solana address (base58 of 32 bytes)`},
		{s: "0OIl", parse: `"0OIl" is not a Solana address (base58 of 32 bytes)`},
		{s: "1111111111111111111111111111111", parse: `"1111111111111111111111111111111" is not a Solana address (base58 of 32 bytes)`},
	}
	for _, c := range cases {
		if c.parse != "" {
			c.wallet = c.parse
		}
		for _, f := range []struct {
			name  string
			parse func(string) (solana.PublicKey, error)
			want  string
		}{{"Parse", address.Parse, c.parse}, {"Wallet", address.Wallet, c.wallet}} {
			key, err := f.parse(c.s)
			switch {
			case f.want == "" && (err != nil || key.String() != c.s):
				t.Errorf("%s(%q) = %v, %v; want the key", f.name, c.s, key, err)
			case f.want != "" && (err == nil || err.Error() != f.want):
				t.Errorf("%s(%q) = %v; want %s", f.name, c.s, err, f.want)
			case f.want != "" && !key.IsZero():
				t.Errorf("%s(%q) returned a key with its error", f.name, c.s)
			}
		}
	}
}

// FuzzParse: whatever the text, the parsers answer (no panic); what decodes
// is the key whose base58 is the text, and a wallet is an address.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "0OIl", "11111111111111111111111111111111", solana.SystemProgramID.String(), solana.NewWallet().PublicKey().String()} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		key, err := address.Parse(s)
		if err == nil && key.String() != s {
			t.Errorf("Parse(%q) = %s", s, key)
		}
		w, werr := address.Wallet(s)
		if werr == nil && (err != nil || w != key || !w.IsOnCurve()) {
			t.Errorf("Wallet(%q) = %s, but Parse says %s, %v", s, w, key, err)
		}
	})
}
