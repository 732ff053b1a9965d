package wallet

import (
	"context"
	"errors"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// Signed is a wallet-signed transaction and the ticket of its build.
type Signed = relay.Signed

// Submit checks the signed transactions of wallet (the path's, a key that
// can sign: ParseSigner) against their tickets and relays them, exactly once per ticket; results come in request order, failures
// among them (relay.StatusFailed with a code). A ledger that does not answer
// is unavailable: nothing more was sent, and the same tickets can be
// submitted again.
func (s *Service) Submit(ctx context.Context, projectID string, wallet solana.PublicKey, signed []Signed) ([]relay.Result, error) {
	if err := validateSubmit(signed); err != nil {
		return nil, err
	}
	results, err := s.d.Relay.Submit(ctx, projectID, wallet, signed)
	if err != nil {
		return nil, fault.Unavailable(ledgerUnavailable(err), err)
	}
	return results, nil
}

// ledgerUnavailable is the client's message for a submit the ledger could
// not record: why, when the database said, and what to do.
func ledgerUnavailable(err error) string {
	switch {
	case errors.Is(err, ledger.ErrStorageFull):
		return "the service's storage is full, so nothing more was recorded or sent; retry with the same tickets once its operator has freed space"
	case errors.Is(err, ledger.ErrReadOnly):
		return "the service's storage is read-only for now, so nothing more was recorded or sent; retry with the same tickets later"
	}
	return "the ledger did not answer; nothing more was sent, retry with the same tickets"
}
