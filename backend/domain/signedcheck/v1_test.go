package signedcheck

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// builtV1 is built() as a v1 build carries it: the limit and the total
// priority fee (the same 100 lamports as 5,000 micro-lamports on 20,000
// units) in the config mask, no Compute Budget instruction.
func builtV1() ([]solana.Instruction, txv1.Config) {
	var c txv1.Config
	c.SetComputeUnitLimit(20_000)
	c.SetPriorityFee(100)
	return built()[2:], c
}

// compileV1 makes a v1 message paid by the wallet.
func compileV1(t testing.TB, c txv1.Config, ixs ...solana.Instruction) []byte {
	t.Helper()
	m, err := txv1.Compile(wallet, blockhash, c, ixs...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// configWith returns c changed by f.
func configWith(c txv1.Config, f func(*txv1.Config)) txv1.Config {
	f(&c)
	return c
}

func TestCheckV1Accepts(t *testing.T) {
	t.Parallel()
	b, c := builtV1()
	d := allowed(t, compileV1(t, c, b...), fixtureNet)
	if d.V1 == nil || d.MaxUnits != 26_000 || d.MaxPriorityFee != 130_000 {
		t.Fatalf("digest %+v: want a v1 digest bounded at 26,000 units and 130,000 lamports", d)
	}
	cases := []struct {
		name   string
		c      txv1.Config
		ixs    []solana.Instruction
		guards int
	}{
		{"as built", c, b, 0},
		{"Phantom: guards before and after ours", c, append(insert(b, 0, assertLamports(wallet, 1_000_000), assertSystemOwned(wallet)), assertTokenAmount(tokenAcct)), 3},
		{"a guard between our instructions", c, insert(b, 1, assertTokenAmount(tokenAcct)), 1},
		{"the limit and the fee raised to their bounds", configWith(c, func(c *txv1.Config) {
			c.SetComputeUnitLimit(26_000)
			c.SetPriorityFee(130_000)
		}), append(append([]solana.Instruction{}, b...), assertSystemOwned(wallet)), 1},
		{"the fee dropped", configWith(c, func(c *txv1.Config) { c.Mask &^= txv1.MaskPriorityFee; c.PriorityFeeLamports = 0 }), b, 0},
		{"the limit lowered", configWith(c, func(c *txv1.Config) { c.SetComputeUnitLimit(19_000) }), b, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Check(d, wallet, compileV1(t, tc.c, tc.ixs...))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got.Guards != tc.guards {
				t.Fatalf("guards = %d, want %d", got.Guards, tc.guards)
			}
		})
	}
}

func TestCheckV1Refuses(t *testing.T) {
	t.Parallel()
	b, c := builtV1()
	builtMsg := compileV1(t, c, b...)
	d := allowed(t, builtMsg, fixtureNet)
	// A transaction whose net rebate is 1,000 lamports: the fee may rise by
	// 500 at most.
	small := allowed(t, builtMsg, 1_000)
	v0 := allowed(t, signedBy(t, built()...), fixtureNet)
	tampered := append([]solana.Instruction{}, b...)
	tampered[1] = transfer(wallet, donation, 203_929)
	cases := []struct {
		name string
		d    Digest
		msg  []byte
		want string
	}{
		{"a tampered instruction", d, compileV1(t, c, tampered...), "instruction 1 (System transfer) changed its data"},
		{"a transfer to a stranger appended", d, compileV1(t, c, append(append([]solana.Instruction{}, b...), transfer(wallet, stranger, 1))...),
			"an instruction was added at index 3: System transfer"},
		{"a Lighthouse MemoryWrite", d, compileV1(t, c, append(append([]solana.Instruction{}, b...), memoryWrite())...), "moves lamports"},
		{"the limit above the headroom", d, compileV1(t, configWith(c, func(c *txv1.Config) { c.SetComputeUnitLimit(26_001) }), b...),
			"the compute unit limit 26,001 is above the 26,000"},
		{"the limit dropped", d, compileV1(t, configWith(c, func(c *txv1.Config) { c.Mask &^= txv1.MaskComputeUnitLimit; c.ComputeUnitLimit = 0 }), b...),
			"sets no compute unit limit"},
		{"a fee above the price cap on its limit", d, compileV1(t, configWith(c, func(c *txv1.Config) { c.SetPriorityFee(100_001) }), b...),
			"priority fee of 100,001 lamports on a limit of 20,000 units is 5,000,050 micro-lamports a unit"},
		{"a fee above half the net rebate", small, compileV1(t, configWith(c, func(c *txv1.Config) { c.SetPriorityFee(601) }), b...),
			"priority fee of 601 lamports is above the 600"},
		{"a loaded-data limit set", d, compileV1(t, configWith(c, func(c *txv1.Config) { c.SetLoadedAccountsDataSizeLimit(65_536) }), b...),
			"loaded accounts data size limit changed: 65,536 bytes instead of the built unset"},
		{"a heap size set", d, compileV1(t, configWith(c, func(c *txv1.Config) { c.SetHeapSize(64 * 1024) }), b...),
			"heap size changed: 65,536 bytes instead of the built unset"},
		{"a Compute Budget instruction", d, compileV1(t, c, append(append([]solana.Instruction{}, b...), computePrice(1))...),
			"an instruction was added at index 3: Compute Budget SetComputeUnitPrice"},
		{"a v0 message for a v1 build", d, signedBy(t, built()...), "built as a v1 transaction and the signed message is v0"},
		{"a v1 message for a v0 build", v0, builtMsg, "the signed message is a v1 transaction but the transaction was built as v0"},
		{"another fee payer", d, func() []byte {
			m, err := txv1.Compile(stranger, blockhash, c, b...)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := m.MarshalBinary()
			return out
		}(), "the fee payer changed"},
		{"trailing bytes", d, append(append([]byte{}, builtMsg...), 0), "cannot be read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Check(tc.d, wallet, tc.msg)
			var m *MismatchError
			if !errors.As(err, &m) {
				t.Fatalf("err = %v, want a MismatchError", err)
			}
			if !strings.Contains(m.Reason, tc.want) {
				t.Fatalf("reason %q, want it to contain %q", m.Reason, tc.want)
			}
		})
	}
}

// TestDigestV1 pins what the build side gets: a v1 message's digest states
// its version and fixed config values, and its bounds are the mask's.
func TestDigestV1(t *testing.T) {
	t.Parallel()
	b, c := builtV1()
	c.SetLoadedAccountsDataSizeLimit(131_072)
	d := digest(t, compileV1(t, c, b...))
	if d.V1 == nil || d.V1.Mask != uint32(txv1.MaskLoadedAccountsDataSizeLimit) || d.V1.LoadedAccountsDataSizeLimit != 131_072 || d.V1.HeapSize != 0 {
		t.Fatalf("V1 = %+v", d.V1)
	}
	if d.MaxUnits != 20_000 || d.MaxPriorityFee != 100 || d.MaxPrice != 5_000 {
		t.Fatalf("bounds %+v, want the built 20,000 units, 100 lamports, 5,000 micro-lamports a unit", d.Bounds)
	}
	if v0 := digest(t, signedBy(t, built()...)); v0.Sum == d.Sum || v0.V1 != nil {
		t.Fatal("a v0 digest of the same instructions matches the v1 one")
	}
	// A Compute Budget instruction the build put in a v1 message (v0 builds
	// carry their reference key on one) is one of its instructions: covered
	// by the digest, never the budget.
	withRef := compileV1(t, c, append(b, computeLimit(1))...)
	if r := digest(t, withRef); r.MaxUnits != 20_000 || len(r.Instructions) != len(b)+1 {
		t.Fatalf("digest of a v1 message with a Compute Budget instruction: %+v", r)
	}
}

func TestPricePerUnit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fee   uint64
		units uint32
		want  uint64
	}{
		{0, 0, 0}, {100, 20_000, 5_000}, {101, 20_000, 5_050}, {1, 3, 333_334}, {1, 0, ^uint64(0)}, {^uint64(0), 1, ^uint64(0)},
	} {
		if got := pricePerUnit(c.fee, c.units); got != c.want {
			t.Errorf("pricePerUnit(%d, %d) = %d, want %d", c.fee, c.units, got, c.want)
		}
		if c.units > 0 && c.want != ^uint64(0) && PriorityFee(c.want, c.units) < c.fee {
			t.Errorf("PriorityFee(pricePerUnit(%d, %d)) is below the fee", c.fee, c.units)
		}
	}
}

// BenchmarkCheckV1 is submit's check of a v1 message a wallet guarded:
// the fixture's, and a full one of 55 closes (2,3xx bytes).
func BenchmarkCheckV1(b *testing.B) {
	ixs, c := builtV1()
	var closes []solana.Instruction
	for i := range 55 {
		closes = append(closes, closeAccount(key(fmt.Sprint("account ", i))))
	}
	for _, bc := range []struct {
		name string
		ixs  []solana.Instruction
	}{{"fixture", ixs}, {"55 closes", append(closes, ixs[1:]...)}} {
		b.Run(bc.name, func(b *testing.B) {
			d := allowed(b, compileV1(b, c, bc.ixs...), fixtureNet)
			msg := compileV1(b, c, append(append([]solana.Instruction{}, bc.ixs...), assertSystemOwned(wallet))...)
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				if _, err := Check(d, wallet, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
