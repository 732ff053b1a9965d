package txbuild

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestSizerMatchesCompiled: the counted size of random selections of every
// kind of item (closes, burns, withheld fees, wrapped SOL, Metaplex pNFTs,
// Core assets, cNFTs with proofs), under every frame, is exactly the size of
// the transaction assemble compiles and serializes.
func TestSizerMatchesCompiled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	kinds := []func(i int) Selected{
		func(i int) Selected { return empty(fmt.Sprint("e", i)) },
		func(i int) Selected { return empty22(fmt.Sprint("e22 ", i)) },
		func(i int) Selected { return token(fmt.Sprint("t", i), 5) },
		func(i int) Selected { return nft(fmt.Sprint("n", i)) },
		func(int) Selected { return goldenItems()[2] }, // withheld fees: the same mint each time
		func(int) Selected { return goldenItems()[4] }, // wrapped SOL
		func(i int) Selected { return pnft(fmt.Sprint("p", i), 1) },
		func(i int) Selected { return core(fmt.Sprint("c", i), 1) },
		func(i int) Selected {
			s := cnftSelected(fmt.Sprint("cnft ", i))
			ix, _ := (&fakePlanner{}).BurnInstruction(t.Context(), wallet, s.Item.Address)
			s.burn = ix
			return s
		},
	}
	for run := range 300 {
		var items []Selected
		seen := map[solana.PublicKey]bool{}
		for i := range 1 + rng.IntN(12) {
			s := kinds[rng.IntN(len(kinds))](i)
			if !seen[s.Item.Address] {
				seen[s.Item.Address] = true
				items = append(items, s)
			}
		}
		f := frame{units: uint32(rng.IntN(MaxComputeUnits))}
		if rng.IntN(2) == 0 {
			f.price = rng.Uint64()
		}
		if rng.IntN(2) == 0 {
			f.donation, f.donationTo = 1+rng.Uint64N(1e9), donee
		}
		if rng.IntN(2) == 0 {
			f.fee, f.treasury = 1+rng.Uint64N(1e9), treasury
			if rng.IntN(4) == 0 {
				f.treasury = donee
			}
		}
		r := &request{Params: Params{Wallet: wallet}}
		z := newSizer(wallet)
		z.add(r.frameInstructions(f))
		for _, s := range items {
			z.add(itemInstructions(s, wallet))
		}
		tx, _, err := assemble(wallet, solana.Hash{}, items, f)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if z.size() != len(raw) {
			t.Fatalf("run %d: counted %d bytes, compiled %d (%d items, frame %+v)", run, z.size(), len(raw), len(items), f)
		}
	}
}

// TestSizeWithCountsWithoutCopying: sizeWith is the size a copy with the
// instructions added has, for random instructions over a few keys (some
// new, some held, some signing only in the added ones).
func TestSizeWithCountsWithoutCopying(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(25, 3))
	pool := make([]solana.PublicKey, 10)
	for i := range pool {
		pool[i] = key(fmt.Sprint("size ", i))
	}
	random := func() []solana.Instruction {
		ixs := make([]solana.Instruction, 1+rng.IntN(4))
		for i := range ixs {
			var metas solana.AccountMetaSlice
			for range rng.IntN(5) {
				m := solana.Meta(pool[rng.IntN(len(pool))])
				if rng.IntN(4) == 0 {
					m.SIGNER()
				}
				metas = append(metas, m)
			}
			ixs[i] = solana.NewInstruction(pool[rng.IntN(len(pool))], metas, make([]byte, rng.IntN(200)))
		}
		return ixs
	}
	for n := range 1000 {
		z := newSizer(pool[0])
		z.add(random())
		more := random()
		c := z.clone()
		c.add(more)
		if got, want := z.sizeWith(more), c.size(); got != want {
			t.Fatalf("case %d: sizeWith %d, a copy with them added %d", n, got, want)
		}
	}
}
