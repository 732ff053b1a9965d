package relay_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// buildGuarded returns the instructions of a built transaction (compute
// unit limit and price, a donation transfer) and its ticket, with the
// digest, bounds and recipients txbuild gives it.
func (f *fixture) buildGuarded(t *testing.T, donation solana.PublicKey) ([]solana.Instruction, string) {
	t.Helper()
	ixs := []solana.Instruction{
		computeBudget(2, binary.LittleEndian.AppendUint32(nil, 20_000)), computeBudget(3, binary.LittleEndian.AppendUint64(nil, 5_000)),
		system.NewTransferInstruction(203_928, f.wallet.PublicKey(), donation).Build(),
	}
	tok := f.guardedTicket(t, f.message(t, ixs), donation)
	return ixs, tok
}

// guardedTicket is the ticket of the built message msg (v0 or v1) with the
// digest, bounds and recipients txbuild gives it.
func (f *fixture) guardedTicket(t *testing.T, msg []byte, donation solana.PublicKey) string {
	t.Helper()
	d, err := signedcheck.DigestOf(msg)
	if err != nil {
		t.Fatal(err)
	}
	d.Allow(signedcheck.Allowance{HeadroomUnits: 6_000, MaxPrice: signedcheck.DefaultMaxPrice}, 1_830_352)
	tok, _, err := f.issuer.Issue(ticket.Claims{
		Project: f.project.ID, Wallet: f.wallet.PublicKey().String(), MessageHash: ticket.Hash(sha256.Sum256(msg)),
		Type: ledger.TypeTokenAccountClosure, GrossRebate: 2_039_280, NetRebate: 1_830_352, DonationAmount: 203_928,
		NetworkFee: 5100, Fees: 5100, Includes: []ticket.Item{{Type: "empty_account", Address: "A", Action: "close"}},
		LastValidBlockHeight: 100, Summary: ticket.TxSummary{Digest: d, DonationWallet: donation.String()},
	}, f.now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// computeBudget is a Compute Budget instruction: SetComputeUnitLimit (2) or
// SetComputeUnitPrice (3) and its value.
func computeBudget(kind byte, value []byte) solana.Instruction {
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, append([]byte{kind}, value...))
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
	return solana.NewInstruction(signedcheck.LighthouseProgramID, solana.AccountMetaSlice{solana.Meta(f.wallet.PublicKey())}, []byte{6, 4, 1, 3, 0, 0})
}

func TestSubmitGuarded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	donation := solana.NewWallet().PublicKey()
	ixs, tok := f.buildGuarded(t, donation)
	res := f.submit(t, f.signed(t, ixs[0], ixs[1], f.assertion(), ixs[2], f.assertion()), tok)
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
	res = f.submit(t, f.signed(t, ixs[0], ixs[1], f.assertion(), changed), tok)
	if res.Status != relay.StatusFailed || res.Code != relay.CodeHashMismatch ||
		!strings.Contains(res.Message, "differs from the one built") || !strings.Contains(res.Message, "instruction 3 (System transfer) changed its data") {
		t.Fatalf("changed transfer: %+v", res)
	}
	if f.rpc.sends.Load() != 1 {
		t.Fatal("a refused transaction was sent")
	}
}

// TestSubmitRaisedPrice is the audit's attack on the compute budget: a page
// sets a price of 5e10 micro-lamports beside two guards before the wallet
// signs (on the validator it landed, and the net rebate became -334,369,648
// lamports). It is refused as HASH_MISMATCH naming the price and its bound,
// nothing is sent, and the ticket stays unconsumed: a wallet's modest raise
// of the same transaction then lands.
func TestSubmitRaisedPrice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	donation := solana.NewWallet().PublicKey()
	ixs, tok := f.buildGuarded(t, donation)
	price := func(microLamports uint64) solana.Instruction {
		return computeBudget(3, binary.LittleEndian.AppendUint64(nil, microLamports))
	}
	for _, c := range []struct {
		name string
		ixs  []solana.Instruction
		want string
	}{
		{"5e10 with two guards", []solana.Instruction{ixs[0], price(50_000_000_000), f.assertion(), ixs[2], f.assertion()},
			"the compute unit price 50,000,000,000 micro-lamports is above the 5,000,000 this transaction accepts"},
		{"a limit past the guard headroom", []solana.Instruction{computeBudget(2, binary.LittleEndian.AppendUint32(nil, 26_001)), ixs[1], ixs[2], f.assertion()},
			"the compute unit limit 26,001 is above the 26,000 this transaction accepts"},
		{"the limit dropped", []solana.Instruction{ixs[1], f.assertion(), ixs[2]},
			"the message sets no compute unit limit, so the runtime gives the transaction up to 400,000 units"},
	} {
		res := f.submit(t, f.signed(t, c.ixs...), tok)
		if res.Status != relay.StatusFailed || res.Code != relay.CodeHashMismatch || !strings.Contains(res.Message, c.want) {
			t.Fatalf("%s: %+v, want HASH_MISMATCH saying %q", c.name, res, c.want)
		}
	}
	if n := f.rpc.sends.Load(); n != 0 {
		t.Fatalf("%d refused transactions were sent", n)
	}
	res := f.submit(t, f.signed(t, ixs[0], price(2_000_000), f.assertion(), ixs[2], f.assertion()), tok)
	if res.Status != relay.StatusSubmitted || f.rpc.sends.Load() != 1 {
		t.Fatalf("a raise to 2,000,000 micro-lamports: %+v", res)
	}
}
