package wallet

import (
	"context"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// Limits of a status request (docs/decisions.md).
const (
	// MaxStatusSignatures is the most signatures one status request may ask
	// about: a submit's results at most.
	MaxStatusSignatures = MaxSubmitSigned
	// MaxWaitSeconds is the longest a status request waits for its
	// submissions to be final.
	MaxWaitSeconds = 30
)

// StatusRequest asks where a wallet's submissions are.
type StatusRequest struct {
	ProjectID string
	Wallet    solana.PublicKey
	// Signatures as the submit's results gave them, base58.
	Signatures []string
	// WaitSeconds, when set, waits up to that long for every one to be
	// landed or final, or final when WaitUntil is "final".
	WaitSeconds *uint32
	// WaitUntil is "landed" (or empty) or "final".
	WaitUntil string
}

// Submissions tells where the wallet's submissions of the request's
// signatures are, in their order (relay.Submissions): a signature this
// wallet never submitted to the project is unknown, whoever else did.
func (s *Service) Submissions(ctx context.Context, in StatusRequest) ([]relay.Submission, error) {
	wait, err := validateStatus(in)
	if err != nil {
		return nil, err
	}
	out, err := s.d.Relay.SubmissionsUntil(ctx, in.ProjectID, in.Wallet.String(), in.Signatures, wait, in.WaitUntil == WaitFinal)
	if err != nil {
		return nil, fault.Unavailable("the ledger did not answer; retry shortly", err)
	}
	return out, nil
}

// The values of StatusRequest.WaitUntil.
const (
	WaitLanded = "landed"
	WaitFinal  = "final"
)

// WaitUntilMistake is the refusal of a waitUntil that is neither value.
func WaitUntilMistake(got string) error {
	return invalidf("waitUntil", "must be %s (the default: until each is landed or final) or %s (until each is final), got %q",
		WaitLanded, WaitFinal, got)
}

func validateStatus(in StatusRequest) (time.Duration, error) {
	for i, sig := range in.Signatures {
		if _, err := solana.SignatureFromBase58(sig); err != nil {
			return 0, invalidf("signature", "signature %d of %d is not a transaction signature (64 bytes in base58), as a submit's result gives it", i+1, len(in.Signatures))
		}
	}
	if in.WaitUntil != "" && in.WaitUntil != WaitLanded && in.WaitUntil != WaitFinal {
		return 0, WaitUntilMistake(in.WaitUntil)
	}
	if in.WaitSeconds == nil {
		return 0, nil
	}
	return time.Duration(*in.WaitSeconds) * time.Second, nil
}
