package e2e

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestBuildSaysWhatItDestroys builds, over REST on the local validator, the
// burn of a token balance, of a Token-2022 balance with a withheld fee and
// of an NFT beside the close of an empty account: each burn names the
// account's mint, its raw amount on the chain before the burn (a decimal
// string) and the mint's decimals; the close's transaction is not
// destructive. The build then lands as built.
func TestBuildSaysWhatItDestroys(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	s := startService(t, v)
	f := v.NewWalletFixture(t)
	owner := f.Owner.PublicKey()
	type onChain struct {
		mint     solana.PublicKey
		amount   string
		decimals uint8
	}
	burned := map[string]onChain{}
	for _, a := range []struct {
		account solana.PublicKey
		mint    solana.PublicKey
	}{{f.Funded, f.Token.Address}, {f.Withheld, f.TransferFee.Address}, {f.NFTAccount, f.NFT.Address}} {
		bal, err := v.RPC.GetTokenAccountBalance(context.Background(), a.account, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		burned[a.account.String()] = onChain{a.mint, bal.Value.Amount, bal.Value.Decimals}
	}
	items := []selection{
		{Type: "token", Address: f.Funded.String(), Action: "burn"},
		{Type: "token", Address: f.Withheld.String(), Action: "burn"},
		{Type: "nft", Address: f.NFTAccount.String(), Action: "burn"},
		{Type: "empty_account", Address: f.Empty22.String(), Action: "close"},
	}
	token := s.session(owner)
	b := s.build(t, owner, token, map[string]any{"items": items, "priorityFeeLevel": "none"})
	seen := 0
	var signed []signedTx
	for _, tx := range b.Transactions {
		var burns int
		for _, in := range tx.Includes {
			if in.Action == "burn" {
				burns++
			}
		}
		if tx.Destructive != (burns > 0) || len(tx.Burns) != burns {
			t.Errorf("transaction of %v: destructive %v with %d burns listed, want %d", tx.Includes, tx.Destructive, len(tx.Burns), burns)
		}
		for _, burn := range tx.Burns {
			want, ok := burned[burn.Address]
			if !ok || burn.Mint != want.mint.String() || burn.Amount != want.amount || burn.Decimals != want.decimals {
				t.Errorf("burn %+v; the chain holds %+v in that account before the burn", burn, want)
			}
			seen++
		}
		signed = append(signed, signedTx{TransactionBase64: signTx(t, tx.TransactionBase64, f.Owner), SubmissionTicket: tx.SubmissionTicket})
	}
	if seen != len(burned) {
		t.Fatalf("%d burns listed, want %d", seen, len(burned))
	}
	s.submitConfirmed(t, v, owner, token, signed...)
	for account := range burned {
		if info, err := v.RPC.GetAccountInfoWithOpts(context.Background(), solana.MustPublicKeyFromBase58(account),
			&rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed}); err == nil && info.Value != nil {
			t.Errorf("%s is still open after its burn landed", account)
		}
	}
}
