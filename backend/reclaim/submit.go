package reclaim

import (
	"context"

	"github.com/reclaim-sol/reclaim/backend/relay"
)

// Signed is a wallet-signed transaction and the ticket of its build.
type Signed = relay.Signed

// Submit checks the signed transactions against their tickets and relays
// them, exactly once per ticket; results come in request order, failures
// among them (relay.StatusFailed with a code). A ledger that does not answer
// is unavailable: nothing more was sent, and the same tickets can be
// submitted again.
func (s *Service) Submit(ctx context.Context, projectID, wallet string, signed []Signed) ([]relay.Result, error) {
	if _, err := signer(wallet); err != nil {
		return nil, err
	}
	if err := validateSubmit(signed); err != nil {
		return nil, err
	}
	results, err := s.d.Relay.Submit(ctx, projectID, wallet, signed)
	if err != nil {
		return nil, &UnavailableError{msg: "the ledger did not answer; nothing more was sent, retry with the same tickets", cause: err}
	}
	return results, nil
}
