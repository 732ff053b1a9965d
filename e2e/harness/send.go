package harness

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// ConfirmTimeout bounds how long a fixture waits for a transaction to be confirmed.
const ConfirmTimeout = 30 * time.Second

// Landed is a confirmed transaction.
type Landed struct {
	Signature solana.Signature
	Slot      uint64
	// Fee is what the fee payer paid, from getTransaction's meta.fee.
	Fee uint64
}

// BuildTx builds and signs a transaction paid by payer with the latest confirmed
// blockhash; v0 selects a version-0 message instead of a legacy one.
func (v *Validator) BuildTx(ctx context.Context, v0 bool, payer solana.PrivateKey, ixs []solana.Instruction, signers ...solana.PrivateKey) (*solana.Transaction, error) {
	bh, err := v.RPC.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return nil, fmt.Errorf("latest blockhash: %w", err)
	}
	tx, err := solana.NewTransaction(ixs, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		return nil, fmt.Errorf("new transaction: %w", err)
	}
	if v0 {
		tx.Message.SetVersion(solana.MessageVersionV0)
	}
	if err := Sign(tx, append([]solana.PrivateKey{payer}, signers...)...); err != nil {
		return nil, err
	}
	return tx, nil
}

// Sign signs tx with the given keys (each signer of the message must be among them).
func Sign(tx *solana.Transaction, keys ...solana.PrivateKey) error {
	_, err := tx.Sign(func(pk solana.PublicKey) *solana.PrivateKey {
		for i := range keys {
			if keys[i].PublicKey().Equals(pk) {
				return &keys[i]
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	return nil
}

// WaitConfirmed polls getSignatureStatuses until the signature is confirmed (or
// finalized), the transaction failed, or the deadline passes.
func (v *Validator) WaitConfirmed(ctx context.Context, sig solana.Signature) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, ConfirmTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		res, err := v.RPC.GetSignatureStatuses(ctx, false, sig)
		if err == nil && len(res.Value) == 1 && res.Value[0] != nil {
			st := res.Value[0]
			if st.Err != nil {
				return st.Slot, fmt.Errorf("transaction %s failed: %v", sig, st.Err)
			}
			if st.ConfirmationStatus == rpc.ConfirmationStatusConfirmed || st.ConfirmationStatus == rpc.ConfirmationStatusFinalized {
				return st.Slot, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("transaction %s not confirmed: %w (last error: %w)", sig, ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// SendAndConfirm sends a signed transaction (with preflight), waits for confirmation
// and reads the fee it paid.
func (v *Validator) SendAndConfirm(ctx context.Context, tx *solana.Transaction) (Landed, error) {
	sig, err := v.RPC.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		return Landed{}, fmt.Errorf("send: %w", err)
	}
	slot, err := v.WaitConfirmed(ctx, sig)
	if err != nil {
		return Landed{}, err
	}
	fee, err := v.FeePaid(ctx, sig)
	if err != nil {
		return Landed{}, err
	}
	return Landed{Signature: sig, Slot: slot, Fee: fee}, nil
}

// FeePaid reads meta.fee of a confirmed transaction.
func (v *Validator) FeePaid(ctx context.Context, sig solana.Signature) (uint64, error) {
	maxVersion := uint64(0)
	res, err := v.RPC.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{
		Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &maxVersion, Encoding: solana.EncodingBase64,
	})
	if err != nil {
		return 0, fmt.Errorf("get transaction %s: %w", sig, err)
	}
	if res == nil || res.Meta == nil {
		return 0, fmt.Errorf("get transaction %s: no meta", sig)
	}
	return res.Meta.Fee, nil
}

// Send builds, signs, sends and confirms a legacy transaction paid by payer; it fails
// the test on any error.
func (v *Validator) Send(t testing.TB, payer solana.PrivateKey, ixs []solana.Instruction, signers ...solana.PrivateKey) Landed {
	t.Helper()
	return v.send(t, false, payer, ixs, signers...)
}

// SendV0 is Send with a version-0 message.
func (v *Validator) SendV0(t testing.TB, payer solana.PrivateKey, ixs []solana.Instruction, signers ...solana.PrivateKey) Landed {
	t.Helper()
	return v.send(t, true, payer, ixs, signers...)
}

func (v *Validator) send(t testing.TB, v0 bool, payer solana.PrivateKey, ixs []solana.Instruction, signers ...solana.PrivateKey) Landed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ConfirmTimeout+10*time.Second)
	defer cancel()
	tx, err := v.BuildTx(ctx, v0, payer, ixs, signers...)
	if err != nil {
		t.Fatalf("build transaction: %v", err)
	}
	landed, err := v.SendAndConfirm(ctx, tx)
	if err != nil {
		t.Fatalf("send transaction: %v", err)
	}
	return landed
}
