package txbuild

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
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
		f.v1 = run%2 == 1
		if f.v1 {
			r.Version, r.percentile = Version1, rng.IntN(2)*50
		}
		z := r.newSizer()
		z.add(r.frameInstructions(f))
		for _, s := range items {
			z.add(itemInstructions(s, wallet))
		}
		raw, keys := compiledSize(t, r, items, f)
		if got, gotKeys := z.size(); got != raw || gotKeys != keys {
			t.Fatalf("run %d: counted %d bytes and %d keys, compiled %d and %d (%d items, frame %+v)", run, got, gotKeys, raw, keys, len(items), f)
		}
	}
}

// compiledSize is the size and the number of keys of the transaction of
// items within f, compiled as a build of r compiles it, v0 or v1.
func compiledSize(t *testing.T, r *request, items []Selected, f frame) (size, keys int) {
	t.Helper()
	if r.v1() {
		ixs, _ := instructionsOf(r.Wallet, items, f)
		m, err := txv1.Compile(r.Wallet, solana.Hash{}, r.configV1(f.price, f.units), ixs...)
		if err != nil {
			t.Fatal(err)
		}
		return m.TransactionSize(), len(m.AccountKeys)
	}
	tx, _, err := assemble(r.Wallet, solana.Hash{}, items, f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return len(raw), len(tx.Message.AccountKeys)
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
		if n%2 == 1 {
			z = newSizerV1(pool[0], 4*rng.IntN(5))
		}
		z.add(random())
		more := random()
		c := z.clone()
		c.add(more)
		got, gotKeys := z.sizeWith(more)
		if want, wantKeys := c.size(); got != want || gotKeys != wantKeys {
			t.Fatalf("case %d: sizeWith %d bytes and %d keys, a copy with them added %d and %d", n, got, gotKeys, want, wantKeys)
		}
	}
}
