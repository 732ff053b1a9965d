package wallet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// TestSubmitRefusesBadRequests: the signed transactions' own mistakes, each
// named by its field, before the relay is asked.
func TestSubmitRefusesBadRequests(t *testing.T) {
	t.Parallel()
	ok := Signed{TransactionBase64: "AQID", Ticket: "t"}
	cases := []struct {
		name   string
		signed []Signed
		param  string
		want   string
	}{
		{"not base64", []Signed{ok, ok, {TransactionBase64: "***", Ticket: "t"}}, "signed[2].transactionBase64", "signed[2].transactionBase64: is not valid standard base64"},
		{"URL base64", []Signed{{TransactionBase64: "-_8", Ticket: "t"}}, "signed[0].transactionBase64", "signed[0].transactionBase64: is not valid standard base64"},
		{"a signature that is not one", []Signed{ok, {Ticket: "t", Signature: solana.PublicKey{1}.String()}}, "signed[1].signature", "signed[1].signature: is not a transaction signature (64 bytes in base58)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			_, err := f.service().Submit(context.Background(), "prj_test", owner, tc.signed)
			wantInvalid(t, err, tc.param, tc.want)
			if f.called("Submit") != 0 {
				t.Error("relayed a request refused on its face")
			}
		})
	}
	t.Run("a signature instead of a transaction passes", func(t *testing.T) {
		t.Parallel()
		f := newFakes()
		if _, err := f.service().Submit(context.Background(), "prj_test", owner, []Signed{{Ticket: "t", Signature: solana.Signature{1}.String()}}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the largest transaction passes", func(t *testing.T) {
		t.Parallel()
		f := newFakes()
		tx := strings.Repeat("A", 5464) // the rules' max_len (wallet.proto)
		if _, err := f.service().Submit(context.Background(), "prj_test", owner, []Signed{{TransactionBase64: tx, Ticket: "t"}}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSubmitOutcomes: every entry's outcome comes back as the relay decided
// it, in request order, for this project and wallet.
func TestSubmitOutcomes(t *testing.T) {
	t.Parallel()
	outcomes := []relay.Result{
		{Status: relay.StatusSubmitted, Signature: "sig-submitted"},
		{Status: relay.StatusDuplicate, Signature: "sig-first"},
	}
	for _, code := range []relay.Code{
		relay.CodeTicketExpired, relay.CodeHashMismatch, relay.CodeRPCError, relay.CodeInvalidTicket,
		relay.CodeWalletMismatch, relay.CodeSignatureInvalid, relay.CodeInvalidTransaction, relay.CodeInFlight,
	} {
		outcomes = append(outcomes, relay.Result{Status: relay.StatusFailed, Code: code, Message: "why " + string(code)})
	}
	for i, want := range outcomes {
		t.Run(fmt.Sprintf("%s %s", want.Status, want.Code), func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			f.submit = func(_ context.Context, projectID string, wallet solana.PublicKey, entries []relay.Signed) ([]relay.Result, error) {
				if projectID != "prj_test" || wallet != owner || len(entries) != 3 || entries[1].Ticket != "t1" {
					t.Errorf("relayed %s %s %+v", projectID, wallet, entries)
				}
				out := make([]relay.Result, len(entries))
				for j := range out {
					out[j] = outcomes[(i+j)%len(outcomes)]
				}
				return out, nil
			}
			signed := []Signed{{TransactionBase64: "AQID", Ticket: "t0"}, {TransactionBase64: "AQID", Ticket: "t1"}, {TransactionBase64: "AQID", Ticket: "t2"}}
			got, err := f.service().Submit(context.Background(), "prj_test", owner, signed)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || got[0].Status != want.Status || got[0].Code != want.Code || got[0].Message != want.Message || got[0].Signature != want.Signature {
				t.Errorf("results %+v, want %+v first", got, want)
			}
			if next := outcomes[(i+1)%len(outcomes)]; got[1].Status != next.Status || got[1].Code != next.Code {
				t.Errorf("result 1 %+v, want %+v: request order", got[1], next)
			}
		})
	}
}

// TestSubmitLedgerUnavailable: a ledger that could not record the submit is
// unavailable, saying why and that the same tickets can be sent again.
func TestSubmitLedgerUnavailable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"down", relay.ErrStore, "the ledger did not answer; nothing more was sent, retry with the same tickets"},
		{"full", fmt.Errorf("%w: %w", relay.ErrStore, ledger.ErrStorageFull), "the service's storage is full, so nothing more was recorded or sent; retry with the same tickets once its operator has freed space"},
		{"read-only", fmt.Errorf("%w: %w", relay.ErrStore, ledger.ErrReadOnly), "the service's storage is read-only for now, so nothing more was recorded or sent; retry with the same tickets later"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakes()
			f.submit = func(context.Context, string, solana.PublicKey, []relay.Signed) ([]relay.Result, error) {
				return nil, tc.err
			}
			_, err := f.service().Submit(context.Background(), "prj_test", owner, []Signed{{TransactionBase64: "AQID", Ticket: "t"}})
			wantUnavailable(t, err, tc.want)
			if err.Error() != tc.want || !errors.Is(err, tc.err) {
				t.Errorf("err = %q, want exactly %q with its cause", err, tc.want)
			}
		})
	}
}
