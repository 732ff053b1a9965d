package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// demoChain sends the demo's setup transactions to a cluster (the local
// validator) and waits for each to be confirmed; the token instructions come
// from backend/chain/spltoken, as the builder's and the e2e harness's do.
type demoChain struct {
	rpc *rpc.Client
}

// confirmWithin bounds the wait for one transaction.
const confirmWithin = 30 * time.Second

// airdrop funds to with lamports and waits for it.
func (c demoChain) airdrop(ctx context.Context, to solana.PublicKey, lamports uint64) error {
	sig, err := c.rpc.RequestAirdrop(ctx, to, lamports, rpc.CommitmentConfirmed)
	if err != nil {
		return fmt.Errorf("airdrop to %s: %w", to, err)
	}
	return c.confirm(ctx, sig)
}

// send signs ixs with payer (and signers) and waits for confirmation.
func (c demoChain) send(ctx context.Context, payer solana.PrivateKey, ixs []solana.Instruction, signers ...solana.PrivateKey) error {
	bh, err := c.rpc.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return fmt.Errorf("latest blockhash: %w", err)
	}
	tx, err := solana.NewTransaction(ixs, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		return err
	}
	keys := append([]solana.PrivateKey{payer}, signers...)
	if _, err := tx.Sign(func(pk solana.PublicKey) *solana.PrivateKey {
		for i := range keys {
			if keys[i].PublicKey().Equals(pk) {
				return &keys[i]
			}
		}
		return nil
	}); err != nil {
		return err
	}
	sig, err := c.rpc.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return c.confirm(ctx, sig)
}

// confirm polls the signature's status until it is confirmed.
func (c demoChain) confirm(ctx context.Context, sig solana.Signature) error {
	ctx, cancel := context.WithTimeout(ctx, confirmWithin)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := c.rpc.GetSignatureStatuses(ctx, false, sig)
		if err == nil && len(st.Value) == 1 && st.Value[0] != nil {
			if st.Value[0].Err != nil {
				return fmt.Errorf("transaction %s failed: %v", sig, st.Value[0].Err)
			}
			if st.Value[0].ConfirmationStatus != rpc.ConfirmationStatusProcessed {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("transaction %s not confirmed within %s", sig, confirmWithin), ctx.Err())
		case <-tick.C:
		}
	}
}

// createMint returns the instructions creating mint under program, with
// authority as its mint authority and no freeze authority.
func (c demoChain) createMint(ctx context.Context, payer, mint solana.PublicKey, program, authority solana.PublicKey, decimals uint8) ([]solana.Instruction, error) {
	rent, err := c.rpc.GetMinimumBalanceForRentExemption(ctx, spltoken.MintSize, rpc.CommitmentConfirmed)
	if err != nil {
		return nil, fmt.Errorf("rent of a mint: %w", err)
	}
	return []solana.Instruction{
		system.NewCreateAccountInstruction(rent, spltoken.MintSize, program, payer, mint).Build(),
		spltoken.InitializeMint2(program, mint, decimals, authority, nil),
	}, nil
}
