package txbuild

import (
	"encoding/hex"
	"testing"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/programs/system"
	tokenprog "github.com/gagliardetto/solana-go/programs/token"
)

type meta struct {
	key              solana.PublicKey
	signer, writable bool
}

// TestInstructionLayouts pins every instruction the builder emits byte for byte,
// and, where solana-go ships an encoder, checks ours against it.
func TestInstructionLayouts(t *testing.T) {
	t.Parallel()
	acct, mint, owner, to := key("account"), key("mint"), key("owner"), key("to")
	cases := []struct {
		name    string
		ix      solana.Instruction
		program solana.PublicKey
		data    string // hex
		metas   []meta
		same    solana.Instruction // solana-go's encoding of the same, when it has one
	}{
		{
			name: "CloseAccount Token", ix: closeAccount(solana.TokenProgramID, acct, to, owner),
			program: solana.TokenProgramID, data: "09",
			metas: []meta{{acct, false, true}, {to, false, true}, {owner, true, false}},
			same:  tokenprog.NewCloseAccountInstruction(acct, to, owner, nil).Build(),
		},
		{
			name: "CloseAccount Token-2022", ix: closeAccount(solana.Token2022ProgramID, acct, to, owner),
			program: solana.Token2022ProgramID, data: "09",
			metas: []meta{{acct, false, true}, {to, false, true}, {owner, true, false}},
		},
		{
			name: "BurnChecked", ix: burnChecked(solana.TokenProgramID, acct, mint, owner, 1_500_000, 6),
			program: solana.TokenProgramID, data: "0f" + "60e3160000000000" + "06",
			metas: []meta{{acct, false, true}, {mint, false, true}, {owner, true, false}},
			same:  tokenprog.NewBurnCheckedInstruction(1_500_000, 6, acct, mint, owner, nil).Build(),
		},
		{
			name: "BurnChecked Token-2022 max", ix: burnChecked(solana.Token2022ProgramID, acct, mint, owner, ^uint64(0), 9),
			program: solana.Token2022ProgramID, data: "0f" + "ffffffffffffffff" + "09",
			metas: []meta{{acct, false, true}, {mint, false, true}, {owner, true, false}},
		},
		{
			name: "HarvestWithheldTokensToMint", ix: harvestWithheldTokensToMint(mint, acct),
			program: solana.Token2022ProgramID, data: "1a04",
			metas: []meta{{mint, false, true}, {acct, false, true}},
		},
		{
			name: "SetComputeUnitLimit", ix: setComputeUnitLimit(1_400_000),
			program: solana.ComputeBudget, data: "02" + "c05c1500",
			same: computebudget.NewSetComputeUnitLimitInstruction(1_400_000).Build(),
		},
		{
			name: "SetComputeUnitPrice", ix: setComputeUnitPrice(1_000),
			program: solana.ComputeBudget, data: "03" + "e803000000000000",
			same: computebudget.NewSetComputeUnitPriceInstruction(1_000).Build(),
		},
		{
			name: "Transfer", ix: transfer(owner, to, 203_928),
			program: solana.SystemProgramID, data: "02000000" + "981c030000000000",
			metas: []meta{{owner, true, true}, {to, false, true}},
			same:  system.NewTransferInstruction(203_928, owner, to).Build(),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !tc.ix.ProgramID().Equals(tc.program) {
				t.Errorf("program = %s, want %s", tc.ix.ProgramID(), tc.program)
			}
			data, err := tc.ix.Data()
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(data); got != tc.data {
				t.Errorf("data = %s, want %s", got, tc.data)
			}
			checkMetas(t, tc.ix.Accounts(), tc.metas)
			if tc.same != nil {
				theirs, err := tc.same.Data()
				if err != nil {
					t.Fatal(err)
				}
				if hex.EncodeToString(theirs) != tc.data {
					t.Errorf("solana-go encodes %x, we encode %s", theirs, tc.data)
				}
				var want []meta
				for _, m := range tc.same.Accounts() {
					want = append(want, meta{m.PublicKey, m.IsSigner, m.IsWritable})
				}
				checkMetas(t, tc.ix.Accounts(), want)
			}
		})
	}
}

func checkMetas(t *testing.T, got solana.AccountMetaSlice, want []meta) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d accounts, want %d", len(got), len(want))
	}
	for i, m := range got {
		if !m.PublicKey.Equals(want[i].key) || m.IsSigner != want[i].signer || m.IsWritable != want[i].writable {
			t.Errorf("account %d = %s signer %v writable %v, want %s signer %v writable %v",
				i, m.PublicKey, m.IsSigner, m.IsWritable, want[i].key, want[i].signer, want[i].writable)
		}
	}
}
