package wallet

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// TestSubmissionsRefusesBadRequests: a status request's signatures and
// wait are checked before the ledger is read.
func TestSubmissionsRefusesBadRequests(t *testing.T) {
	t.Parallel()
	sig := solana.Signature{1}.String()
	cases := []struct {
		name  string
		sigs  []string
		wait  *uint32
		param string
		want  string
	}{
		{"empty", []string{sig, ""}, nil, "signature", "signature: signature 2 of 2 is not a transaction signature (64 bytes in base58), as a submit's result gives it"},
		{"not base58", []string{"0OIl"}, nil, "signature", "signature: signature 1 of 1 is not a transaction signature (64 bytes in base58), as a submit's result gives it"},
		{"an address", []string{solana.PublicKey{1}.String()}, nil, "signature", "signature: signature 1 of 1 is not a transaction signature (64 bytes in base58), as a submit's result gives it"},
		{"until confirmed", []string{sig}, nil, "waitUntil", `waitUntil: must be landed (the default: until each is landed or final) or final (until each is final), got "confirmed"`},
	}
	until := func(param string) string {
		if param == "waitUntil" {
			return "confirmed"
		}
		return ""
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			_, err := f.service().Submissions(context.Background(), StatusRequest{ProjectID: "prj_test", Wallet: owner, Signatures: tc.sigs, WaitSeconds: tc.wait, WaitUntil: until(tc.param)})
			wantInvalid(t, err, tc.param, tc.want)
			if f.called("Submissions") != 0 {
				t.Error("read the ledger for a request refused on its face")
			}
		})
	}
}

// TestSubmissionsAsks: the relay is asked for this project and wallet,
// the signatures in order and the wait in seconds; a ledger that does not
// answer is unavailable.
func TestSubmissionsAsks(t *testing.T) {
	t.Parallel()
	sigs := []string{solana.Signature{1}.String(), solana.Signature{2}.String()}
	for _, w := range []*uint32{nil, new(uint32), func() *uint32 { n := uint32(30); return &n }()} {
		f := newFakes()
		var asked time.Duration
		f.submissions = func(_ context.Context, projectID, wallet string, got []string, wait time.Duration) ([]relay.Submission, error) {
			if projectID != "prj_test" || wallet != owner.String() || !slices.Equal(got, sigs) {
				t.Errorf("asked %s %s %v", projectID, wallet, got)
			}
			asked = wait
			return nil, nil
		}
		if _, err := f.service().Submissions(context.Background(), StatusRequest{ProjectID: "prj_test", Wallet: owner, Signatures: sigs, WaitSeconds: w}); err != nil {
			t.Fatal(err)
		}
		if want := time.Duration(0); w != nil && *w == 30 && asked != 30*time.Second || (w == nil || *w == 0) && asked != want {
			t.Errorf("wait %v: asked %s", w, asked)
		}
	}
	f := newFakes()
	f.submissions = func(context.Context, string, string, []string, time.Duration) ([]relay.Submission, error) {
		return nil, relay.ErrStore
	}
	_, err := f.service().Submissions(context.Background(), StatusRequest{ProjectID: "prj_test", Wallet: owner, Signatures: sigs})
	wantUnavailable(t, err, "the ledger did not answer; retry shortly")
}
