package relay_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/ledger"
	"github.com/reclaim-sol/reclaim/backend/relay"
)

type fakeStatuses struct {
	height   uint64
	statuses map[solana.Signature]*rpc.SignatureStatusesResult
}

func (f *fakeStatuses) GetSignatureStatuses(_ context.Context, _ bool, sigs ...solana.Signature) (*rpc.GetSignatureStatusesResult, error) {
	out := &rpc.GetSignatureStatusesResult{}
	for _, s := range sigs {
		out.Value = append(out.Value, f.statuses[s])
	}
	return out, nil
}

func (f *fakeStatuses) GetBlockHeight(context.Context, rpc.CommitmentType) (uint64, error) {
	return f.height, nil
}

func TestTrackerSettlesEntries(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sig := func(b byte) solana.Signature { var s solana.Signature; s[0] = b; return s }
	add := func(jti string, s solana.Signature, status string, lvbh int64) {
		e := ledger.Entry{ProjectID: f.project.ID, Payer: "P", Type: ledger.TypeTokenBurn, GrossRebate: 10, NetRebate: 5,
			Fees: 5, NetworkFee: 5, Signature: s.String(), TicketJTI: jti, CreatedAt: f.now, LastValidBlockHeight: lvbh}
		if err := f.store.ClaimTicket(ctx, e); err != nil {
			t.Fatal(err)
		}
		if status == ledger.StatusSubmitted {
			if _, err := f.store.MarkSubmitted(ctx, jti); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("confirmed", sig(1), ledger.StatusSubmitted, 100)
	add("failed", sig(2), ledger.StatusSubmitted, 100)
	add("expired", sig(3), ledger.StatusSubmitted, 100)
	add("waiting", sig(4), ledger.StatusSubmitted, 200)
	add("processed", sig(5), ledger.StatusSubmitted, 100)
	add("sending-landed", sig(6), ledger.StatusSending, 100)
	add("sending-fresh", sig(7), ledger.StatusSending, 100)
	rpcs := &fakeStatuses{height: 150, statuses: map[solana.Signature]*rpc.SignatureStatusesResult{
		sig(1): {ConfirmationStatus: rpc.ConfirmationStatusConfirmed},
		sig(2): {ConfirmationStatus: rpc.ConfirmationStatusConfirmed, Err: map[string]any{"InstructionError": []any{0, "Custom"}}},
		sig(5): {ConfirmationStatus: rpc.ConfirmationStatusProcessed},
		sig(6): {ConfirmationStatus: rpc.ConfirmationStatusFinalized},
	}}
	now := f.now.Add(time.Second)
	tr := relay.NewTracker(rpcs, f.store, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return now })
	moved, err := tr.Pass(ctx)
	if err != nil || moved != 4 {
		t.Fatalf("moved %d, %v", moved, err)
	}
	// sending-fresh is not found but within its claim's grace: left alone.
	check := func(want map[string]string) {
		t.Helper()
		for jti, st := range want {
			e, err := f.store.EntryByTicketJTI(ctx, jti)
			if err != nil || e.Status != st {
				t.Fatalf("%s: %q %v, want %q", jti, e.Status, err, st)
			}
		}
	}
	check(map[string]string{"confirmed": ledger.StatusConfirmed, "failed": ledger.StatusFailed,
		"expired": ledger.StatusExpired, "waiting": ledger.StatusSubmitted, "processed": ledger.StatusSubmitted,
		"sending-landed": ledger.StatusConfirmed, "sending-fresh": ledger.StatusSending})
	st, err := f.store.Stats(ctx, f.project.ID)
	if err != nil || st.TotalTransactionCount != 2 || st.TotalGrossRebate != 20 {
		t.Fatalf("stats %+v %v", st, err)
	}
	// A second pass (or another instance's) counts nothing twice.
	if moved, err := tr.Pass(ctx); err != nil || moved != 0 {
		t.Fatalf("second pass moved %d %v", moved, err)
	}
	// Past the grace, a sending entry the cluster never saw expires.
	now = now.Add(time.Minute)
	if moved, err := tr.Pass(ctx); err != nil || moved != 1 {
		t.Fatalf("third pass moved %d %v", moved, err)
	}
	check(map[string]string{"sending-fresh": ledger.StatusExpired})
}
