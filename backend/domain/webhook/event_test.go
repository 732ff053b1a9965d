package webhook

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

func TestSubmissionEvent(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 21, 10, 0, 0, 123456789, time.UTC)
	base := ledger.Entry{
		ProjectID: "prj_1", Payer: "W1", Signature: "S1", GrossRebate: 2039280, NetRebate: 1830352,
		DonationAmount: 203928, NetworkFee: 5000, Fees: 5000,
	}
	base.Includes = []ticket.Item{{Type: "empty_account", Address: "A1", Action: "close"}}
	landedAt := at.Add(-10 * time.Second)
	cases := []struct {
		status   ledger.Status
		landedAt *time.Time
		slot     int64
		errMsg   string
		want     string
	}{
		{ledger.StatusSubmitted, &landedAt, 4321, "", `{"type":"submission.landed","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"landed","includes":[{"type":"empty_account","address":"A1","action":"close"}],"slot":4321,"landed":{"fee":5000,"grossRebate":2039280,"netRebate":1830352,"donationAmount":203928},"projectId":"prj_1","walletAddress":"W1"}}`},
		{ledger.StatusConfirmed, &landedAt, 4321, "", `{"type":"submission.confirmed","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"confirmed","includes":[{"type":"empty_account","address":"A1","action":"close"}],"slot":4321,"confirmedAt":"2026-05-21T10:00:00.123Z","landed":{"fee":5000,"grossRebate":2039280,"netRebate":1830352,"donationAmount":203928},"projectId":"prj_1","walletAddress":"W1"}}`},
		{ledger.StatusConfirmed, nil, 0, "", `{"type":"submission.confirmed","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"confirmed","includes":[{"type":"empty_account","address":"A1","action":"close"}],"confirmedAt":"2026-05-21T10:00:00.123Z","landed":{"fee":5000,"grossRebate":2039280,"netRebate":1830352,"donationAmount":203928},"projectId":"prj_1","walletAddress":"W1"}}`},
		{ledger.StatusFailed, nil, 99, "InstructionError: [1, Custom(11)]", `{"type":"submission.failed","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"failed","includes":[{"type":"empty_account","address":"A1","action":"close"}],"slot":99,"error":{"code":"TRANSACTION_FAILED","message":"the transaction landed with an error: InstructionError: [1, Custom(11)]"},"projectId":"prj_1","walletAddress":"W1"}}`},
		{ledger.StatusExpired, nil, 0, "", `{"type":"submission.expired","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"expired","includes":[{"type":"empty_account","address":"A1","action":"close"}],"error":{"code":"BLOCKHASH_EXPIRED","message":"the transaction did not land before its blockhash expired; nothing was spent: build again"},"projectId":"prj_1","walletAddress":"W1"}}`},
	}
	for _, c := range cases {
		e := base
		e.Status, e.Error, e.LandedAt, e.Slot = c.status, c.errMsg, c.landedAt, c.slot
		typ, body, ok := SubmissionEvent(e, at)
		if !ok || typ != TypeOf(e) || string(body) != c.want {
			t.Errorf("%s: %s %s, want\n%s", c.status, typ, body, c.want)
		}
		var ev map[string]any
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Error(err)
		}
	}
	for _, s := range []ledger.Status{ledger.StatusSending, ledger.StatusSubmitted} {
		if _, _, ok := SubmissionEvent(ledger.Entry{Status: s}, at); ok {
			t.Errorf("%s is an event", s)
		}
	}
	var test Event
	if err := json.Unmarshal(TestEvent("prj_1", "whe_1", at), &test); err != nil || test.Type != TypeTest {
		t.Errorf("test event %+v, %v", test, err)
	}
}

func TestEndpointWants(t *testing.T) {
	t.Parallel()
	all := Endpoint{}
	some := Endpoint{Events: []string{TypeSubmissionFailed}}
	if !all.Wants(TypeSubmissionConfirmed) || !all.Wants("submission.future") {
		t.Error("an endpoint of every type misses one")
	}
	if all.Wants(TypeSubmissionLanded) {
		t.Error("an endpoint that names no type gets the opt-in submission.landed")
	}
	if landed := (Endpoint{Events: []string{TypeSubmissionLanded}}); !landed.Wants(TypeSubmissionLanded) || landed.Wants(TypeSubmissionConfirmed) {
		t.Error("an endpoint that names submission.landed")
	}
	if some.Wants(TypeSubmissionConfirmed) || !some.Wants(TypeSubmissionFailed) {
		t.Error("an endpoint of one type")
	}
	if !ValidType(TypeSubmissionExpired) || ValidType(TypeTest) || ValidType("x") {
		t.Error("ValidType")
	}
}

// TestSubmissionEventSplitsRent: a confirmed entry with a rent carries the
// split of its gross (rent, and the wallet's own SOL: 0.05 wrapped SOL);
// one recorded before the split leaves both out.
func TestSubmissionEventSplitsRent(t *testing.T) {
	t.Parallel()
	rent := int64(2_039_280)
	e := ledger.Entry{Status: ledger.StatusConfirmed, GrossRebate: rent + 50_000_000, RentRebate: &rent}
	_, body, _ := SubmissionEvent(e, time.Unix(0, 0))
	var ev struct {
		Data struct{ Landed map[string]int64 }
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.Data.Landed["rentRebate"] != rent || ev.Data.Landed["ownBalanceRebate"] != 50_000_000 {
		t.Errorf("landed %v (%v), want rent %d and own 50,000,000", ev.Data.Landed, err, rent)
	}
	e.RentRebate = nil
	_, body, _ = SubmissionEvent(e, time.Unix(0, 0))
	ev.Data.Landed = nil
	if err := json.Unmarshal(body, &ev); err != nil || len(ev.Data.Landed) != 4 {
		t.Errorf("an entry without a rent: landed %v (%v), want no split", ev.Data.Landed, err)
	}
}
