package e2e

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestCloseEmptyTokenAccount closes empty accounts of a wallet fixture with
// transactions built by solana-go (legacy for Token, v0 for Token-2022) and checks the
// wallet's balance rises by exactly the account's lamports minus the fee paid.
func TestCloseEmptyTokenAccount(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	f := v.NewWalletFixture(t)
	owner := f.Owner.PublicKey()

	cases := []struct {
		name     string
		account  solana.PublicKey
		program  solana.PublicKey
		v0       bool
		lamports uint64
	}{
		{"token legacy", f.Empty, solana.TokenProgramID, false, harness.TokenAccountRent},
		// A Token-2022 ATA carries ImmutableOwner: 165 + 1 + 4 bytes, 170 bytes of rent.
		{"token-2022 v0", f.Empty22, solana.Token2022ProgramID, true, 2_074_080},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			info, err := v.RPC.GetAccountInfoWithOpts(ctx, tc.account, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
			if err != nil {
				t.Fatalf("account info: %v", err)
			}
			if got := info.Value.Lamports; got != tc.lamports {
				t.Fatalf("account lamports = %d, want %d", got, tc.lamports)
			}
			before := v.Balance(t, owner)

			tx, err := v.BuildTx(ctx, tc.v0, f.Owner, []solana.Instruction{spltoken.CloseAccount(tc.program, tc.account, owner, owner)})
			if err != nil {
				t.Fatal(err)
			}
			landed, err := v.SendAndConfirm(ctx, tx)
			if err != nil {
				t.Fatal(err)
			}
			if landed.Fee != 5000 {
				t.Errorf("fee = %d, want 5000 (one signature, no priority fee)", landed.Fee)
			}
			after := v.Balance(t, owner)
			if after-before != tc.lamports-landed.Fee {
				t.Errorf("balance rose by %d, want %d - %d = %d", int64(after)-int64(before), tc.lamports, landed.Fee, tc.lamports-landed.Fee)
			}
			gone, err := v.RPC.GetAccountInfoWithOpts(ctx, tc.account, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
			if err != rpc.ErrNotFound && (err != nil || gone.Value != nil) {
				t.Errorf("account still there after close: %v %+v", err, gone)
			}
		})
	}
}
