package e2e

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	tickets "github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/pkg/signing"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestV1LandsThroughRelay: a v1 transaction of 55 closes and a donation
// (2,5xx bytes, past what base58 sendTransaction takes), built with txv1
// and ticketed as the build side tickets it, which the wallet signed with a
// Lighthouse guard appended and its priority fee raised within the bounds,
// is accepted by the relay, sent (base64), followed by the tracker
// (getSignatureStatuses, getTransaction version 1) to confirmed, and the
// ledger row is what getTransaction says, to the lamport: the fee, the
// wallet's and the donation wallet's balance changes, the rent. The
// wallet's balance moved by exactly the row's net rebate, and the status
// API answers confirmed with the same figures.
func TestV1LandsThroughRelay(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	requireLighthouse(t)
	ctx := t.Context()
	owner, accounts := emptyWallet(t, v, 55)
	w := owner.PublicKey()
	donation := v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
	rent := v.MinimumBalance(t, 165)

	bh, err := v.RPC.GetLatestBlockhash(ctx, rpc.CommitmentFinalized)
	if err != nil {
		t.Fatal(err)
	}
	gross := uint64(len(accounts)) * rent
	don := gross / 10
	ixs := make([]solana.Instruction, 0, len(accounts)+1)
	for _, a := range accounts {
		ixs = append(ixs, solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{
			solana.Meta(a).WRITE(), solana.Meta(w).WRITE(), solana.Meta(w).SIGNER(),
		}, []byte{9}))
	}
	ixs = append(ixs, solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{solana.Meta(w).WRITE().SIGNER(), solana.Meta(donation).WRITE()},
		binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32(nil, 2), don)))
	var c txv1.Config
	c.SetComputeUnitLimit(300_000)
	c.SetPriorityFee(1_000)
	// Unset, the limit is 0 and the validator refuses the transaction
	// (MaxLoadedAccountsDataSizeExceeded): a v1 build sets it.
	c.SetLoadedAccountsDataSizeLimit(64 << 20)
	built, err := txv1.Compile(w, bh.Value.Blockhash, c, ixs...)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := built.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}

	// The ticket as the build side issues it: the hash and the digest of the
	// v1 message alone, widened by the service's default allowance.
	d, err := signedcheck.DigestOf(msg)
	if err != nil {
		t.Fatal(err)
	}
	fee := uint64(5_000 + 1_000)
	net := int64(gross - fee - don)
	d.Allow(signedcheck.Allowance{HeadroomUnits: 6_000, MaxPrice: signedcheck.DefaultMaxPrice}, net)
	store := storagetest.SQLite(t)
	p, err := store.CreateProject(ctx, project.Project{Name: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	issuer := tickets.NewIssuer(signing.NewKeyring(key))
	includes := make([]tickets.Item, len(accounts))
	for i, a := range accounts {
		includes[i] = tickets.Item{Type: "empty_account", Address: a.String(), Action: "close"}
	}
	tok, _, err := issuer.Issue(tickets.Claims{
		Project: p.ID, Wallet: w.String(), MessageHash: tickets.Hash(sha256.Sum256(msg)), Includes: includes,
		Type: ledger.TypeTokenAccountClosure, GrossRebate: gross, NetRebate: net, DonationAmount: don, RentRebate: &gross,
		NetworkFee: fee, Fees: fee, LastValidBlockHeight: bh.Value.LastValidBlockHeight,
		Summary: tickets.TxSummary{Digest: d, DonationWallet: donation.String()},
	}, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}

	// The wallet appends a guard and raises its fee to 2,000 lamports.
	signed := ixs
	signed = append(signed, solana.NewInstruction(signedcheck.LighthouseProgramID, solana.AccountMetaSlice{solana.Meta(w)}, []byte{6, 4, 1, 3, 0, 0}))
	c.SetPriorityFee(2_000)
	m, err := txv1.Compile(w, bh.Value.Blockhash, c, signed...)
	if err != nil {
		t.Fatal(err)
	}
	tx := txv1.Transaction{Message: *m}
	if err := tx.Sign(owner); err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) <= 1232 {
		t.Fatalf("the v1 transaction is %d bytes; the test means one past v0's 1,232", len(raw))
	}
	t.Logf("v1 transaction: %d addresses, %d bytes", len(m.AccountKeys), len(raw))

	before := v.Balance(t, w)
	r := relay.New(v.RPC, store, issuer, time.Now)
	res, err := r.Submit(ctx, p.ID, w, []relay.Signed{{TransactionBase64: base64.StdEncoding.EncodeToString(raw), Ticket: tok}})
	if err != nil {
		t.Fatal(err)
	}
	sig := tx.Signatures[0]
	if res[0].Status != relay.StatusSubmitted || res[0].Signature != sig.String() {
		t.Fatalf("submit: %s %s %s, want submitted as %s", res[0].Status, res[0].Code, res[0].Message, sig)
	}

	tr := relay.NewTracker(v.RPC, store, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Now)
	e := followToConfirmed(ctx, t, tr, store, res[0])

	got, err := v.RPC.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{
		Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentFinalized, MaxSupportedTransactionVersion: &rpc.MaxSupportedTransactionVersion1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 1 || got.Meta.Err != nil {
		t.Fatalf("getTransaction: version %d, err %v", got.Version, got.Meta.Err)
	}
	delta := func(k solana.PublicKey) int64 {
		for i, key := range m.AccountKeys {
			if key == k {
				return int64(got.Meta.PostBalances[i]) - int64(got.Meta.PreBalances[i])
			}
		}
		t.Fatalf("%s is not in the transaction", k)
		return 0
	}
	f := e.Figures()
	switch {
	case f.NetworkFee != int64(got.Meta.Fee):
		t.Errorf("ledger fee %d, getTransaction %d", f.NetworkFee, got.Meta.Fee)
	case f.NetRebate != delta(w):
		t.Errorf("ledger net rebate %d, the wallet's change %d", f.NetRebate, delta(w))
	case f.DonationAmount != delta(donation):
		t.Errorf("ledger donation %d, the donation wallet's change %d", f.DonationAmount, delta(donation))
	case f.GrossRebate != int64(gross) || e.RentRebate == nil || *e.RentRebate != int64(gross):
		t.Errorf("ledger gross %d rent %v, the closed accounts held %d", f.GrossRebate, e.RentRebate, gross)
	case f.GrossRebate != f.NetRebate+f.NetworkFee+f.DonationAmount+f.ServiceFee:
		t.Errorf("ledger row does not add up: %+v", f)
	}
	if after := v.Balance(t, w); int64(after)-int64(before) != f.NetRebate {
		t.Errorf("the wallet's balance moved %d, the ledger's net rebate is %d", int64(after)-int64(before), f.NetRebate)
	}
	if f.NetworkFee != 5_000+2_000 {
		t.Errorf("fee %d: a v1 transaction pays 5,000 a signature and the mask's total priority fee, 2,000 as signed", f.NetworkFee)
	}
	subs, err := r.Submissions(ctx, p.ID, w.String(), []string{sig.String()}, 0)
	if err != nil || len(subs) != 1 || subs[0].State != relay.StateConfirmed || subs[0].Landed != f || subs[0].Rent != int64(gross) {
		t.Fatalf("status: %+v %v", subs, err)
	}
}

// followToConfirmed runs tracker passes until the entry of submitted is
// confirmed (the validator finalizes 32 blocks behind, about 13 s): polling,
// as the validator is another process, with a deadline.
func followToConfirmed(ctx context.Context, t *testing.T, tr *relay.Tracker, store interface {
	EntryBySignature(context.Context, string) (ledger.Entry, error)
}, submitted relay.Result) ledger.Entry {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := tr.Pass(ctx); err != nil {
			t.Fatal(err)
		}
		e, err := store.EntryBySignature(ctx, submitted.Signature)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Status == ledger.StatusConfirmed:
			return e
		case e.Status == ledger.StatusFailed || e.Status == ledger.StatusExpired:
			t.Fatalf("entry %s: %s", e.Status, e.Error)
		case time.Now().After(deadline):
			t.Fatalf("entry still %s after 90 s", e.Status)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-tick.C:
		}
	}
}
