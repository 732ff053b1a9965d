package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// fakeCluster answers statuses from a map and getTransaction from landed
// transactions: each with its fee and the balance change of each key.
type fakeCluster struct {
	height   uint64
	statuses map[solana.Signature]*rpc.SignatureStatusesResult
	landed   map[solana.Signature]landedTx
	// sent are the transactions sent, with their options.
	mu   sync.Mutex
	sent []sentTx
	// reads counts getTransaction calls by commitment.
	reads map[rpc.CommitmentType]int
	// gate, when set, is called at the start of every getTransaction.
	gate func()
}

type sentTx struct {
	raw  []byte
	opts rpc.TransactionOpts
}

func (f *fakeCluster) SendRawTransactionWithOpts(_ context.Context, raw []byte, opts rpc.TransactionOpts) (solana.Signature, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, sentTx{raw: raw, opts: opts})
	return solana.Signature{}, nil
}

type landedTx struct {
	tx     *solana.Transaction
	fee    uint64
	deltas map[solana.PublicKey]int64
	// slot holds it (1 when 0).
	slot uint64
}

func (f *fakeCluster) GetSignatureStatuses(_ context.Context, _ bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	out := &rpc.GetSignatureStatusesResult{}
	for _, s := range sigs {
		out.Value = append(out.Value, f.statuses[s])
	}
	return out, nil
}

func (f *fakeCluster) GetBlockHeight(context.Context, rpc.CommitmentType) (uint64, error) {
	return f.height, nil
}

func (f *fakeCluster) GetTransaction(_ context.Context, sig solana.Signature, opts *rpc.GetTransactionOpts) (*rpc.GetTransactionResult, error) {
	if (opts.Commitment != rpc.CommitmentFinalized && opts.Commitment != rpc.CommitmentConfirmed) ||
		opts.MaxSupportedTransactionVersion == nil || *opts.MaxSupportedTransactionVersion != 1 || opts.Encoding != solana.EncodingBase64 {
		return nil, fmt.Errorf("unexpected options %+v", opts)
	}
	if f.gate != nil {
		f.gate()
	}
	f.mu.Lock()
	if f.reads == nil {
		f.reads = map[rpc.CommitmentType]int{}
	}
	f.reads[opts.Commitment]++
	f.mu.Unlock()
	l, ok := f.landed[sig]
	if !ok {
		return nil, rpc.ErrNotFound
	}
	raw, err := l.tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"fee": l.fee, "loadedAddresses": map[string]any{"writable": []string{}, "readonly": []string{}}}
	var pre, post []uint64
	for _, k := range l.tx.Message.AccountKeys {
		pre = append(pre, 10_000_000)
		post = append(post, uint64(10_000_000+l.deltas[k]))
	}
	meta["preBalances"], meta["postBalances"] = pre, post
	body, _ := json.Marshal(map[string]any{"slot": max(l.slot, 1), "transaction": []any{raw, "base64"}, "meta": meta})
	var out rpc.GetTransactionResult
	return &out, json.Unmarshal(body, &out)
}

// TestTrackerSettlesEntries settles entries at finalized commitment: a
// landed one with the chain's figures (one landed as promised, one with a
// raised priority fee), failures, expiries, and what must wait.
func TestTrackerSettlesEntries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	wallet, donation, treasury := f.wallet.PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	promise := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 1_728_388, DonationAmount: 203_928, NetworkFee: 5_000, ServiceFee: 101_964}
	cluster := &fakeCluster{height: 150, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{}, landed: map[solana.Signature]landedTx{}}
	final := &rpc.SignatureStatusesResult{ConfirmationStatus: rpc.ConfirmationStatusFinalized}
	n := byte(0)
	// add claims an entry in status, with lvbh; st is its status on the
	// cluster, fee (when not 0) what it landed with.
	add := func(jti string, status ledger.Status, lvbh int64, st *rpc.SignatureStatusesResult, fee uint64) {
		n++
		var sig solana.Signature
		sig[0] = n
		e := ledger.Entry{ProjectID: f.project.ID, Payer: wallet.String(), Type: ledger.TypeTokenBurn, Signature: sig.String(),
			TicketJTI: jti, CreatedAt: f.now, LastValidBlockHeight: lvbh, DonationWallet: donation.String(), Treasury: treasury.String()}
		e.SetFigures(promise)
		e.Promised = promise
		if err := f.store.ClaimTicket(ctx, e); err != nil {
			t.Fatal(err)
		}
		if status == ledger.StatusSubmitted {
			if _, err := f.store.MarkSubmitted(ctx, jti); err != nil {
				t.Fatal(err)
			}
		}
		if st != nil {
			cluster.statuses[sig] = st
		}
		if fee > 0 {
			tx, err := solana.NewTransaction([]solana.Instruction{
				system.NewTransferInstruction(1, wallet, donation).Build(), system.NewTransferInstruction(1, wallet, treasury).Build(),
			}, solana.Hash{n}, solana.TransactionPayer(wallet))
			if err != nil {
				t.Fatal(err)
			}
			tx.Signatures = []solana.Signature{sig}
			net := promise.GrossRebate - int64(fee) - promise.DonationAmount - promise.ServiceFee
			cluster.landed[sig] = landedTx{tx: tx, fee: fee, deltas: map[solana.PublicKey]int64{
				wallet: net, donation: promise.DonationAmount, treasury: promise.ServiceFee}}
		}
	}
	add("as-promised", ledger.StatusSubmitted, 100, final, 5_000)
	add("raised-fee", ledger.StatusSubmitted, 100, final, 15_000)
	add("only-confirmed", ledger.StatusSubmitted, 100, &rpc.SignatureStatusesResult{ConfirmationStatus: rpc.ConfirmationStatusConfirmed}, 5_000)
	add("failed", ledger.StatusSubmitted, 100, &rpc.SignatureStatusesResult{Slot: 99, ConfirmationStatus: rpc.ConfirmationStatusFinalized, Err: map[string]any{"InstructionError": []any{0, "Custom"}}}, 0)
	add("failed-unfinal", ledger.StatusSubmitted, 100, &rpc.SignatureStatusesResult{ConfirmationStatus: rpc.ConfirmationStatusConfirmed, Err: "x"}, 0)
	add("expired", ledger.StatusSubmitted, 100, nil, 0)
	add("waiting", ledger.StatusSubmitted, 200, nil, 0)
	add("not-readable-yet", ledger.StatusSubmitted, 100, final, 0)
	add("sending-landed", ledger.StatusSending, 100, final, 5_000)
	add("sending-fresh", ledger.StatusSending, 100, nil, 0)

	now := f.now.Add(time.Second)
	tr := relay.NewTracker(cluster, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
	moved, err := tr.Pass(ctx)
	if err != nil || moved != 5 {
		t.Fatalf("moved %d, %v", moved, err)
	}
	check := func(want map[string]ledger.Status) {
		t.Helper()
		for jti, st := range want {
			e, err := f.store.EntryByTicketJTI(ctx, jti)
			if err != nil || e.Status != st {
				t.Fatalf("%s: %q %v, want %q", jti, e.Status, err, st)
			}
		}
	}
	sub, conf := ledger.StatusSubmitted, ledger.StatusConfirmed
	check(map[string]ledger.Status{"as-promised": conf, "raised-fee": conf, "only-confirmed": sub, "failed": ledger.StatusFailed,
		"failed-unfinal": sub, "expired": ledger.StatusExpired, "waiting": sub, "not-readable-yet": sub,
		"sending-landed": conf, "sending-fresh": ledger.StatusSending})
	if failed, _ := f.store.EntryByTicketJTI(ctx, "failed"); failed.Slot != 99 {
		t.Fatalf("failed entry's slot %d, want the statuses' 99", failed.Slot)
	}
	raised, _ := f.store.EntryByTicketJTI(ctx, "raised-fee")
	if !raised.Differs() || raised.NetworkFee != 15_000 || raised.NetRebate != promise.NetRebate-10_000 || raised.Promised != promise {
		t.Fatalf("raised-fee entry %+v", raised)
	}
	if same, _ := f.store.EntryByTicketJTI(ctx, "as-promised"); same.Differs() {
		t.Fatalf("as-promised entry differs: %s", same.Difference())
	}
	st, err := f.store.Stats(ctx, f.project.ID)
	if err != nil || st.TotalTransactionCount != 3 || st.TotalNetRebate != 3*promise.NetRebate-10_000 || st.TotalGrossRebate != 3*promise.GrossRebate {
		t.Fatalf("stats %+v %v", st, err)
	}
	if got := tr.Counts(); got != (relay.TrackerCounts{Landed: 1, Confirmed: 3, Differing: 1, Failed: 1, Expired: 1}) {
		t.Fatalf("counts %+v", got)
	}
	// A second pass (or another instance's) counts nothing twice; the
	// transaction the cluster can now return is counted.
	var late solana.Signature
	late[0] = 8
	cluster.landed[late] = cluster.landed[solana.Signature{1}]
	if moved, err := tr.Pass(ctx); err != nil || moved != 1 {
		t.Fatalf("second pass moved %d %v", moved, err)
	}
	check(map[string]ledger.Status{"not-readable-yet": conf})
	// Past the grace, a sending entry the cluster never saw expires.
	now = now.Add(time.Minute)
	if moved, err := tr.Pass(ctx); err != nil || moved != 1 {
		t.Fatalf("third pass moved %d %v", moved, err)
	}
	check(map[string]ledger.Status{"sending-fresh": ledger.StatusExpired})
}
