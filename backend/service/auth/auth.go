// Package auth authenticates the callers of the API: integrator backends by
// API key, and their frontends by short-lived session tokens bound to one
// wallet. It knows nothing of HTTP or storage: the server hands it the
// credential strings, a Store hands it API keys.
package auth

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// Scope is a permission carried by a session token.
type Scope = string

// The session scopes of the contract.
const (
	ScopeWalletRead         Scope = "wallet:read"
	ScopeWalletStream       Scope = "wallet:stream"
	ScopeTransactionsBuild  Scope = "transactions:build"
	ScopeTransactionsSubmit Scope = "transactions:submit"
)

// AllScopes are granted when a session is created without scopes.
var AllScopes = []Scope{ScopeWalletRead, ScopeWalletStream, ScopeTransactionsBuild, ScopeTransactionsSubmit}

// Kind tells how a caller authenticated.
type Kind int

// The credential kinds.
const (
	KindAPIKey Kind = iota + 1
	KindSession
)

// Principal is an authenticated caller.
type Principal struct {
	Kind      Kind
	ProjectID string
	// APIKeyID is the API key used, or the one the session was minted from.
	APIKeyID string
	// Wallet is the session's wallet; "" for an API key.
	Wallet string
	// Scopes of the session; nil for an API key, which may do everything
	// but stream.
	Scopes []Scope
	// SessionID is the session token's jti.
	SessionID string
	// ExpiresAt is the session's expiry.
	ExpiresAt time.Time
}

// RateKey names the caller's rate-limit bucket: its API key's, for the key
// itself and for every session minted from it, so a key holder cannot
// multiply its budget by minting sessions. It carries ids, never secrets.
func (p Principal) RateKey() string {
	return "key:" + p.APIKeyID
}

// Requirement is what one operation asks of its caller.
type Requirement struct {
	// APIKey admits API keys.
	APIKey bool
	// Session admits session tokens.
	Session bool
	// Scope is the scope a session needs; "" for any session.
	Scope Scope
	// OrScope, when set, is a scope a session may hold instead of Scope.
	OrScope Scope
	// BindsWallet makes a session usable only on its own wallet's paths.
	BindsWallet bool
}

// deny is a credential problem: an unauthenticated fault (a 401 on the
// wire, whatever the problem) whose message says what to do about it.
func deny(format string, args ...any) error {
	return fault.New(fault.KindUnauthenticated, fmt.Sprintf(format, args...))
}

// storeDown is a credential store that failed or did not answer.
func storeDown(err error) error {
	return fault.Unavailable("a backing service did not answer in time; retry shortly", fmt.Errorf("credential store unavailable: %w", err))
}

// Store is what auth needs of storage.
type Store interface {
	APIKeyByHash(ctx context.Context, hash []byte) (project.APIKey, error)
	APIKeyByID(ctx context.Context, id string) (project.APIKey, error)
}

// Check applies an operation's requirement to an authenticated principal.
// wallet is the wallet address the request is about ("" when none).
func Check(p Principal, req Requirement, wallet string) error {
	switch p.Kind {
	case KindAPIKey:
		if !req.APIKey {
			return deny("this operation takes a session token (Authorization: Bearer SESSION_TOKEN), not an API key")
		}
	case KindSession:
		if !req.Session {
			return deny("this operation takes an API key in the X-Api-Key header, not a session token")
		}
		if req.Scope != "" && !slices.Contains(p.Scopes, req.Scope) && (req.OrScope == "" || !slices.Contains(p.Scopes, req.OrScope)) {
			if req.OrScope != "" {
				return deny("session lacks scope %s or %s: create a session that grants one", req.Scope, req.OrScope)
			}
			return deny("session lacks scope %s: create a session that grants it", req.Scope)
		}
		if req.BindsWallet && wallet != p.Wallet {
			return deny("wallet mismatch: this session is bound to another wallet")
		}
	default:
		return deny("missing credentials: send X-Api-Key or Authorization: Bearer SESSION_TOKEN")
	}
	return nil
}

// ParseScopes validates requested scopes: an empty list means all four;
// duplicates are dropped; the result keeps the contract's order.
func ParseScopes(requested []string) ([]Scope, error) {
	if len(requested) == 0 {
		return slices.Clone(AllScopes), nil
	}
	var out []Scope
	for _, s := range AllScopes {
		if slices.Contains(requested, s) {
			out = append(out, s)
		}
	}
	for _, s := range requested {
		if !slices.Contains(AllScopes, s) {
			return nil, fmt.Errorf("unknown scope %q: valid scopes are %s", s, strings.Join(AllScopes, ", "))
		}
	}
	return out, nil
}
