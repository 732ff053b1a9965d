package metaplex

import (
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestPDARemembered: a remembered address is the one derived, and the
// same bytes split into other seeds (another cache entry) derive it too.
func TestPDARemembered(t *testing.T) {
	t.Parallel()
	mint := solana.NewWallet().PublicKey()
	want, _, err := solana.FindProgramAddress([][]byte{[]byte("metadata"), ProgramID[:], mint[:]}, ProgramID)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := MetadataAddress(mint); got != want {
			t.Fatalf("MetadataAddress %s, want %s", got, want)
		}
	}
	if got := pda([]byte("meta"), []byte("data"), ProgramID[:], mint[:]); got != want {
		t.Errorf("the same bytes in other seeds: %s, want %s", got, want)
	}
}
