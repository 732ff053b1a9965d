package rent_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/rent"
)

func sysvar(owner solana.PublicKey, perByteYear uint64, threshold float64, burn byte) *rpc.Account {
	d := binary.LittleEndian.AppendUint64(nil, perByteYear)
	d = binary.LittleEndian.AppendUint64(d, math.Float64bits(threshold))
	return &rpc.Account{Owner: owner, Lamports: 1_009_200, Data: rpc.DataBytesOrJSONFromBytes(append(d, burn))}
}

func TestParse(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a    *rpc.Account
		want rent.Sysvar
	}{
		{"the sysvar", sysvar(rent.SysvarOwner, 1000, 1.5, 50), rent.Sysvar{LamportsPerByteYear: 1000, ExemptionThreshold: 1.5}},
		{"missing", nil, rent.Default},
		{"not a sysvar", sysvar(solana.SystemProgramID, 1000, 1.5, 50), rent.Default},
		{"short", &rpc.Account{Owner: rent.SysvarOwner, Data: rpc.DataBytesOrJSONFromBytes(make([]byte, 16))}, rent.Default},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := rent.Parse(tc.a); got != tc.want {
				t.Errorf("Parse = %+v, want %+v", got, tc.want)
			}
			if got, ok := rent.Read(tc.a); ok != (tc.name == "the sysvar") || ok && got != tc.want {
				t.Errorf("Read = %+v, %v", got, ok)
			}
		})
	}
}

// TestMinimumBalanceAfterCut: the local validator's Rent sysvar in SIMD-0194's
// form (6,960 a byte, threshold 1.0) and after a SIMD-0437 step to 5,080: a
// token account's minimum drops by 550,840, as validator_setRent's test
// (backend/localvalidator/test/rent.test.js) has the program withdraw.
func TestMinimumBalanceAfterCut(t *testing.T) {
	t.Parallel()
	before, after := rent.Sysvar{LamportsPerByteYear: 6960, ExemptionThreshold: 1}, rent.Sysvar{LamportsPerByteYear: 5080, ExemptionThreshold: 1}
	if got := before.MinimumBalance(165); got != 2_039_280 {
		t.Errorf("before: %d", got)
	}
	if got := before.MinimumBalance(165) - after.MinimumBalance(165); got != 550_840 {
		t.Errorf("a token account's excess after the cut: %d, want 550,840", got)
	}
	if got := (rent.Sysvar{LamportsPerByteYear: 696, ExemptionThreshold: 1}).MinimumBalance(165); got != 293*696 {
		t.Errorf("at the last step: %d", got)
	}
}

func TestMinimumBalance(t *testing.T) {
	t.Parallel()
	// The figures of every cluster so far: a 165-byte token account holds
	// 2,039,280 lamports, an empty account 890,880.
	for size, want := range map[uint64]uint64{165: 2_039_280, 0: 890_880, 82: 1_461_600} {
		if got := rent.Default.MinimumBalance(size); got != want {
			t.Errorf("MinimumBalance(%d) = %d, want %d", size, got, want)
		}
	}
	// The threshold applies in float64 after the integer product, truncated.
	if got := (rent.Sysvar{LamportsPerByteYear: 3, ExemptionThreshold: 0.5}).MinimumBalance(1); got != 193 {
		t.Errorf("fractional threshold: %d, want 193 (387 * 0.5 truncated)", got)
	}
}
