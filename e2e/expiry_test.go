package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestExpiredBlockhashRejected signs a transaction, waits (about a minute at 400 ms
// slots) until the block height passes its blockhash's lastValidBlockHeight, and checks
// the cluster refuses it as expired: isBlockhashValid false, preflight -32002 with
// BlockhashNotFound, and with skipPreflight it never lands.
func TestExpiredBlockhashRejected(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	ctx := context.Background()
	payer := v.NewWallet(t, solana.LAMPORTS_PER_SOL)
	bh, err := v.RPC.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	height, err := v.RPC.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	if last := bh.Value.LastValidBlockHeight; last < height || last > height+150 {
		t.Fatalf("lastValidBlockHeight %d not within 150 blocks of block height %d", last, height)
	}
	tx, err := solana.NewTransaction([]solana.Instruction{
		system.NewTransferInstruction(1_000_000, payer.PublicKey(), solana.NewWallet().PublicKey()).Build(),
	}, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.Sign(tx, payer); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(3 * time.Minute)
	for {
		h, err := v.RPC.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		if h > bh.Value.LastValidBlockHeight {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("block height %d still <= lastValidBlockHeight %d", h, bh.Value.LastValidBlockHeight)
		}
		time.Sleep(time.Second) // polling the block height, not synchronising
	}

	valid, err := v.RPC.IsBlockhashValid(ctx, bh.Value.Blockhash, rpc.CommitmentProcessed)
	if err != nil {
		t.Fatal(err)
	}
	if valid.Value {
		t.Error("isBlockhashValid = true for an expired blockhash")
	}

	_, err = v.RPC.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed})
	var rpcErr *jsonrpc.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32002 {
		t.Fatalf("send expired: err = %v, want JSON-RPC error -32002", err)
	}
	if data, _ := rpcErr.Data.(map[string]any); data["err"] != "BlockhashNotFound" {
		t.Errorf("preflight error data.err = %v, want BlockhashNotFound", rpcErr.Data)
	}

	sig, err := v.RPC.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{SkipPreflight: true})
	if err != nil {
		t.Fatalf("send expired with skipPreflight: %v", err)
	}
	if got, err := v.RPC.GetSignatureStatuses(ctx, true, sig); err != nil || got.Value[0] != nil {
		t.Errorf("expired transaction has a status: %+v, %v", got, err)
	}
	if bal := v.Balance(t, payer.PublicKey()); bal != solana.LAMPORTS_PER_SOL {
		t.Errorf("payer balance = %d, want %d (nothing paid)", bal, solana.LAMPORTS_PER_SOL)
	}
}
