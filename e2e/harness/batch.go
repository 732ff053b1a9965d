package harness

import (
	"context"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// Batched fixtures: many mints and accounts in few transactions, sent together
// and confirmed together, for wallets with dozens of accounts.

// Batch is one transaction of a SendAll: instructions paid by Payer, with
// Signers beside it.
type Batch struct {
	Payer   solana.PrivateKey
	Ixs     []solana.Instruction
	Signers []solana.PrivateKey
}

// SendAll sends every batch as a legacy transaction without waiting between them,
// then waits until all are confirmed; it fails the test on any error.
func (v *Validator) SendAll(t testing.TB, batches []Batch) {
	t.Helper()
	// A few milliseconds a send: thousands of batches (a wallet of 10,000
	// accounts) take longer than one confirmation.
	ctx, cancel := context.WithTimeout(context.Background(), ConfirmTimeout+10*time.Second+time.Duration(len(batches))*20*time.Millisecond)
	defer cancel()
	sigs := make([]solana.Signature, len(batches))
	for i, b := range batches {
		tx, err := v.BuildTx(ctx, false, b.Payer, b.Ixs, b.Signers...)
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		if sigs[i], err = v.RPC.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed}); err != nil {
			t.Fatalf("batch %d: send: %v", i, err)
		}
	}
	for i, sig := range sigs {
		if _, err := v.WaitConfirmed(ctx, sig); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
}

// CreateMints creates n mints of spec (no transfer fee) with authority as mint
// authority and payer, four per transaction.
func (v *Validator) CreateMints(t testing.TB, authority solana.PrivateKey, spec MintSpec, n int) []Mint {
	t.Helper()
	program := spec.Program
	if program.IsZero() {
		program = solana.TokenProgramID
	}
	rent, err := v.RPC.GetMinimumBalanceForRentExemption(context.Background(), spltoken.MintSize, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatalf("rent: %v", err)
	}
	auth := authority.PublicKey()
	var freeze *solana.PublicKey
	if spec.Freeze {
		freeze = &auth
	}
	mints := make([]Mint, n)
	var batches []Batch
	for i := range mints {
		key, err := solana.NewRandomPrivateKey()
		if err != nil {
			t.Fatalf("new key: %v", err)
		}
		mints[i] = Mint{Address: key.PublicKey(), Program: program, Decimals: spec.Decimals, Authority: authority}
		if i%4 == 0 {
			batches = append(batches, Batch{Payer: authority})
		}
		b := &batches[len(batches)-1]
		b.Ixs = append(b.Ixs,
			system.NewCreateAccountInstruction(rent, spltoken.MintSize, program, auth, key.PublicKey()).Build(),
			spltoken.InitializeMint2(program, key.PublicKey(), spec.Decimals, auth, freeze))
		b.Signers = append(b.Signers, key)
	}
	v.SendAll(t, batches)
	return mints
}

// CreateATAs creates owner's associated token account for each mint, paid by
// payer, eight per transaction; the addresses are in the order of mints.
func (v *Validator) CreateATAs(t testing.TB, payer solana.PrivateKey, owner solana.PublicKey, mints []Mint) []solana.PublicKey {
	t.Helper()
	atas := make([]solana.PublicKey, len(mints))
	var batches []Batch
	for i, m := range mints {
		if i%8 == 0 {
			batches = append(batches, Batch{Payer: payer})
		}
		b := &batches[len(batches)-1]
		b.Ixs = append(b.Ixs, spltoken.CreateAssociatedTokenAccount(payer.PublicKey(), owner, m.Address, m.Program, false))
		atas[i] = spltoken.AssociatedTokenAddress(owner, m.Address, m.Program)
	}
	v.SendAll(t, batches)
	return atas
}

// MintToEach mints amount of mints[i] into dests[i], eight per transaction; all
// mints must share one authority.
func (v *Validator) MintToEach(t testing.TB, mints []Mint, dests []solana.PublicKey, amount uint64) {
	t.Helper()
	var batches []Batch
	for i, m := range mints {
		if i%8 == 0 {
			batches = append(batches, Batch{Payer: m.Authority})
		}
		b := &batches[len(batches)-1]
		b.Ixs = append(b.Ixs, spltoken.MintToChecked(m.Program, m.Address, dests[i], m.Authority.PublicKey(), amount, m.Decimals))
	}
	v.SendAll(t, batches)
}

// EmptyAccountsWallet makes a funded wallet (1 SOL) holding n empty token
// accounts, the first half (rounded up) under SPL Token (decimals 6), the
// rest under Token-2022 (decimals 2), each of its own mint; it returns the
// wallet, its accounts and their mints, in the order they were made.
func (v *Validator) EmptyAccountsWallet(t testing.TB, n int) (solana.PrivateKey, []solana.PublicKey, []Mint) {
	t.Helper()
	owner := v.NewWallet(t, solana.LAMPORTS_PER_SOL)
	payer := v.NewWallet(t, uint64(n/100+2)*solana.LAMPORTS_PER_SOL)
	mints := v.CreateMints(t, payer, MintSpec{Decimals: 6}, n-n/2)
	mints = append(mints, v.CreateMints(t, payer, MintSpec{Program: solana.Token2022ProgramID, Decimals: 2}, n/2)...)
	return owner, v.CreateATAs(t, payer, owner.PublicKey(), mints), mints
}
