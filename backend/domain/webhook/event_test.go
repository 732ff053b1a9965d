package webhook

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

func TestSubmissionEvent(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 21, 10, 0, 0, 123456789, time.UTC)
	base := ledger.Entry{
		ProjectID: "prj_1", Payer: "W1", Signature: "S1", GrossRebate: 2039280, NetRebate: 1830352,
		DonationAmount: 203928, NetworkFee: 5000, Fees: 5000,
	}
	items := []Item{{Type: "empty_account", Address: "A1", Action: "close"}}
	cases := []struct {
		status ledger.Status
		errMsg string
		want   string
	}{
		{ledger.StatusConfirmed, "", `{"type":"submission.confirmed","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"confirmed","includes":[{"type":"empty_account","address":"A1","action":"close"}],"confirmedAt":"2026-05-21T10:00:00.123Z","landed":{"fee":5000,"grossRebate":2039280,"netRebate":1830352,"donationAmount":203928},"projectId":"prj_1","walletAddress":"W1"}}`},
		{ledger.StatusFailed, "InstructionError: [1, Custom(11)]", `{"type":"submission.failed","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"failed","includes":[{"type":"empty_account","address":"A1","action":"close"}],"error":{"code":"TRANSACTION_FAILED","message":"the transaction landed with an error: InstructionError: [1, Custom(11)]"},"projectId":"prj_1","walletAddress":"W1"}}`},
		{ledger.StatusExpired, "", `{"type":"submission.expired","timestamp":"2026-05-21T10:00:00.123Z","data":{"signature":"S1","status":"expired","includes":[{"type":"empty_account","address":"A1","action":"close"}],"error":{"code":"BLOCKHASH_EXPIRED","message":"the transaction did not land before its blockhash expired; nothing was spent: build again"},"projectId":"prj_1","walletAddress":"W1"}}`},
	}
	for _, c := range cases {
		e := base
		e.Status, e.Error = c.status, c.errMsg
		typ, body, ok := SubmissionEvent(e, items, at)
		if !ok || typ != TypeOf(c.status) || string(body) != c.want {
			t.Errorf("%s: %s %s, want\n%s", c.status, typ, body, c.want)
		}
		var ev map[string]any
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Error(err)
		}
	}
	for _, s := range []ledger.Status{ledger.StatusSending, ledger.StatusSubmitted} {
		if _, _, ok := SubmissionEvent(ledger.Entry{Status: s}, nil, at); ok {
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
	_, body, _ := SubmissionEvent(e, nil, time.Unix(0, 0))
	var ev struct{ Data struct{ Landed map[string]int64 } }
	if err := json.Unmarshal(body, &ev); err != nil || ev.Data.Landed["rentRebate"] != rent || ev.Data.Landed["ownBalanceRebate"] != 50_000_000 {
		t.Errorf("landed %v (%v), want rent %d and own 50,000,000", ev.Data.Landed, err, rent)
	}
	e.RentRebate = nil
	_, body, _ = SubmissionEvent(e, nil, time.Unix(0, 0))
	ev.Data.Landed = nil
	if err := json.Unmarshal(body, &ev); err != nil || len(ev.Data.Landed) != 4 {
		t.Errorf("an entry without a rent: landed %v (%v), want no split", ev.Data.Landed, err)
	}
}
