package signedcheck

import (
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
)

// compileV1 makes a v1 message paid by wallet with the config a build sets.
func compileV1(t testing.TB, units uint32, fee uint64, ixs ...solana.Instruction) []byte {
	t.Helper()
	var c txv1.Config
	c.SetComputeUnitLimit(units)
	c.SetLoadedAccountsDataSizeLimit(64 << 20)
	c.SetPriorityFee(fee)
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

// TestDigestOfV1: a v1 message digests with its config's limit and total
// fee as bounds, its instructions fingerprinted as v0's are; the digest
// differs from that of the v0 message of the same instructions (a v1
// ticket never passes a v0 message), and from the v1 message with one
// instruction changed.
func TestDigestOfV1(t *testing.T) {
	t.Parallel()
	own := built()[2:] // the close and the transfers: v1 has no budget instructions
	d, err := DigestOf(compileV1(t, 20_000, 100, own...))
	if err != nil {
		t.Fatal(err)
	}
	if d.MaxUnits != 20_000 || d.MaxPriorityFee != 100 || d.MaxPrice != 5_000 || d.Blockhash != blockhash.String() {
		t.Fatalf("bounds %+v, blockhash %s", d.Bounds, d.Blockhash)
	}
	v0, err := DigestOf(compile(t, built(), wallet, blockhash))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Instructions) != len(v0.Instructions) || d.Instructions[0] != v0.Instructions[0] || d.Sum == v0.Sum {
		t.Fatalf("v1 digest %+v, v0 %+v: the same instructions, another sum", d, v0)
	}
	changed, err := DigestOf(compileV1(t, 20_000, 100, append([]solana.Instruction{closeAccount(key("another account"))}, own[1:]...)...))
	if err != nil {
		t.Fatal(err)
	}
	if changed.Sum == d.Sum {
		t.Fatal("another close digests the same")
	}
	if _, err := DigestOf(compileV1(t, 20_000, 100, own...)[:50]); err == nil {
		t.Fatal("a truncated v1 message digests")
	}
}

// FuzzDigestOfV1: any bytes opening with the v1 version byte digest without
// panicking, and only when txv1 reads them as a message with a compute unit
// limit; a digest is the same each time.
func FuzzDigestOfV1(f *testing.F) {
	f.Add(compileV1(f, 20_000, 100, built()[2:]...))
	f.Add(compileV1(f, 0, 0, closeAccount(key("a"))))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		b[0] = txv1.VersionByte
		d, err := DigestOf(b)
		var m txv1.Message
		readable := m.UnmarshalBinary(b) == nil && m.Config.Mask&txv1.MaskComputeUnitLimit != 0
		if (err == nil) != readable {
			t.Fatalf("DigestOf: %v; txv1 reads it with a limit: %v", err, readable)
		}
		if again, _ := DigestOf(b); err == nil && again.Sum != d.Sum {
			t.Fatal("the digest changed")
		}
	})
}
