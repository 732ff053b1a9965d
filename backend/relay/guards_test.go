package relay_test

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/reclaim-sol/reclaim/backend/ledger"
	"github.com/reclaim-sol/reclaim/backend/relay"
	"github.com/reclaim-sol/reclaim/backend/ticket"
	"github.com/reclaim-sol/reclaim/backend/walletguard"
)

// buildGuarded returns the instructions of a built transaction (a donation
// transfer) and its ticket, with the digest and recipients txbuild gives it.
func (f *fixture) buildGuarded(t *testing.T, donation solana.PublicKey) ([]solana.Instruction, string) {
	t.Helper()
	ixs := []solana.Instruction{system.NewTransferInstruction(203_928, f.wallet.PublicKey(), donation).Build()}
	msg := f.message(t, ixs)
	d, err := walletguard.DigestOf(msg)
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := f.issuer.Issue(ticket.Claims{
		Project: f.project.ID, Wallet: f.wallet.PublicKey().String(), MessageHash: ticket.Hash(sha256.Sum256(msg)),
		Type: ledger.TypeTokenAccountClosure, GrossRebate: 2_039_280, NetRebate: 1_830_352, DonationAmount: 203_928,
		NetworkFee: 5000, Fees: 5000, Includes: []ticket.Item{{Type: "empty_account", Address: "A", Action: "close"}},
		LastValidBlockHeight: 100, Built: ticket.Built{Digest: d, DonationWallet: donation.String()},
	}, f.now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return ixs, tok
}

func (f *fixture) message(t *testing.T, ixs []solana.Instruction) []byte {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, solana.Hash{1}, solana.TransactionPayer(f.wallet.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

func (f *fixture) signed(t *testing.T, ixs ...solana.Instruction) string {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, solana.Hash{1}, solana.TransactionPayer(f.wallet.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	return sign(t, tx, f.wallet)
}

// assertion is a Lighthouse AssertAccountInfoMulti (KnownOwner == System)
// on the wallet, as Solflare adds it.
func (f *fixture) assertion() solana.Instruction {
	return solana.NewInstruction(walletguard.LighthouseProgramID, solana.AccountMetaSlice{solana.Meta(f.wallet.PublicKey())}, []byte{6, 4, 1, 3, 0, 0})
}

func TestSubmitGuarded(t *testing.T) {
	f := newFixture(t)
	donation := solana.NewWallet().PublicKey()
	ixs, tok := f.buildGuarded(t, donation)
	res := f.submit(t, f.signed(t, f.assertion(), ixs[0], f.assertion()), tok)
	if res.Status != relay.StatusSubmitted || f.rpc.sends.Load() != 1 {
		t.Fatalf("guarded: %+v", res)
	}
	e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, tok))
	if err != nil || e.Signature != res.Signature || e.DonationWallet != donation.String() ||
		e.Promised != e.Figures() || e.Promised.DonationAmount != 203_928 {
		t.Fatalf("entry %+v %v", e, err)
	}

	_, tok = f.buildGuarded(t, donation)
	changed := system.NewTransferInstruction(203_927, f.wallet.PublicKey(), donation).Build()
	res = f.submit(t, f.signed(t, f.assertion(), changed), tok)
	if res.Status != relay.StatusFailed || res.Code != relay.CodeHashMismatch ||
		!strings.Contains(res.Message, "differs from the one built") || !strings.Contains(res.Message, "instruction 1 (System transfer) changed its data") {
		t.Fatalf("changed transfer: %+v", res)
	}
	if f.rpc.sends.Load() != 1 {
		t.Fatal("a refused transaction was sent")
	}
}
