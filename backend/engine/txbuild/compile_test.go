package txbuild

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestCompileMatchesNewTransaction: compile gives the bytes
// solana.NewTransaction gives, for random instructions over a few keys
// (signers, writable or not, repeated across instructions and as
// programs), the payer among them or not.
func TestCompileMatchesNewTransaction(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(25, 1))
	pool := make([]solana.PublicKey, 12)
	for i := range pool {
		pool[i] = key(fmt.Sprint("compile ", i))
	}
	random := func() []solana.Instruction {
		ixs := make([]solana.Instruction, 1+rng.IntN(8))
		for i := range ixs {
			var metas solana.AccountMetaSlice
			for range rng.IntN(6) {
				m := solana.Meta(pool[rng.IntN(len(pool))])
				if rng.IntN(2) == 0 {
					m.WRITE()
				}
				if rng.IntN(6) == 0 {
					m.SIGNER()
				}
				metas = append(metas, m)
			}
			ixs[i] = solana.NewInstruction(pool[rng.IntN(len(pool))], metas, []byte{byte(i), byte(rng.IntN(256))})
		}
		return ixs
	}
	for n := range 2000 {
		payer := pool[rng.IntN(len(pool))]
		if n%3 == 0 {
			payer = key("payer alone")
		}
		seed := rng.Uint64()
		rng = rand.New(rand.NewPCG(seed, 2))
		ours, err := compile(random(), solana.Hash(key("blockhash")), payer)
		if err != nil {
			t.Fatal(err)
		}
		rng = rand.New(rand.NewPCG(seed, 2)) // the same instructions again: NewTransaction changes their metas
		theirs, err := solana.NewTransaction(random(), solana.Hash(key("blockhash")), solana.TransactionPayer(payer))
		if err != nil {
			t.Fatal(err)
		}
		a, errA := ours.Message.MarshalBinary()
		b, errB := theirs.Message.MarshalBinary()
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("case %d: compiled\n%x (%v)\nNewTransaction\n%x (%v)", n, a, errA, b, errB)
		}
	}
}
