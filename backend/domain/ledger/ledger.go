// Package ledger records reclaim transactions and answers the questions asked
// of them: a project's stats and its wallet leaderboard.
//
// One Entry is one Solana transaction built by Reclaim and submitted by a
// wallet. Only confirmed entries count, once each; the time filters of the
// leaderboard apply to the confirmation time. The package knows nothing of
// storage or HTTP: the storage package implements Store; a bad query
// parameter is an invalid fault (backend/pkg/fault) naming it.
package ledger

import (
	"context"
	"errors"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// Type is a transaction type: one per transaction, as reported in
// transactionTypeCounts. The builder gives each transaction one.
type Type string

// The transaction types. They are untyped constants so that the storage
// and the console, which keep the type as a string at their boundary, use
// them as they are.
const (
	TypeTokenAccountClosure = "token_account_closure"
	TypeTokenBurn           = "token_burn"
	TypeNFTBurn             = "nft_burn"
	// TypeExcessRentWithdrawal withdraws the excess rent of token accounts
	// and mints (WithdrawExcessLamports), which stay open.
	TypeExcessRentWithdrawal = "excess_rent_withdrawal"
	// TypeProgramBufferClosure closes upgradeable-loader buffers.
	TypeProgramBufferClosure = "program_buffer_closure"
	// TypeNonceAccountClosure withdraws durable nonce accounts whole.
	TypeNonceAccountClosure = "nonce_account_closure"
	// TypeStakeAccountWithdrawal withdraws inactive stake accounts whole.
	TypeStakeAccountWithdrawal = "stake_account_withdrawal"
	// TypeLookupTableReclaim deactivates address lookup tables (returning
	// nothing yet) or closes deactivated ones: both steps of giving a
	// table's lamports back. A Token-2022 mint's close is a
	// token_account_closure (the token program's CloseAccount).
	TypeLookupTableReclaim = "lookup_table_reclaim"
)

// Types lists every known transaction type, in display order. Treat it as
// read-only.
var Types = []string{TypeTokenAccountClosure, TypeTokenBurn, TypeNFTBurn,
	TypeExcessRentWithdrawal, TypeProgramBufferClosure, TypeNonceAccountClosure, TypeStakeAccountWithdrawal,
	TypeLookupTableReclaim}

// ValidType reports whether t is one of Types.
func ValidType(t string) bool {
	for _, known := range Types {
		if t == known {
			return true
		}
	}
	return false
}

// Status is where an entry is: it starts sending (its ticket claimed, the
// transaction on its way to the cluster), becomes submitted once the cluster
// accepted it, and moves at most once to one of the final statuses; only
// confirmed entries count in stats and leaderboard.
type Status string

// Entry statuses.
const (
	StatusSending   Status = "sending"
	StatusSubmitted Status = "submitted"
	StatusConfirmed Status = "confirmed"
	StatusFailed    Status = "failed"
	StatusExpired   Status = "expired"
)

// ErrNotFound is returned when an entry does not exist.
var ErrNotFound = errors.New("ledger entry not found")

// ErrDuplicate is returned when an entry would reuse a ticket (jti) or a
// signature already recorded: the ticket was consumed before.
var ErrDuplicate = errors.New("ledger entry already recorded")

// ErrStorageFull is a write the database refused for want of space
// (SQLite's "database or disk is full", Postgres's disk_full): nothing was
// written, and nothing will be until an operator frees space.
var ErrStorageFull = errors.New("the ledger's storage is full")

// ErrReadOnly is a write refused by a database that accepts none (a
// read-only file, a Postgres standby or default_transaction_read_only).
var ErrReadOnly = errors.New("the ledger's storage is read-only")

// Entry is one reclaim transaction. Amounts are lamports:
// NetRebate = GrossRebate - Fees - DonationAmount, Fees = NetworkFee + ServiceFee.
// Until the entry is confirmed they are its ticket's promise; once it is,
// what the chain did (Landing.Figures), the promise staying in Promised.
// Stats and leaderboard count confirmed entries, so they count what the
// chain did.
type Entry struct {
	ID        string
	ProjectID string
	Payer     string
	Type      string

	GrossRebate    int64
	NetRebate      int64
	DonationAmount int64
	NetworkFee     int64
	// ServiceFee is the operator's fee, sent to the treasury and reported as
	// the community amount.
	ServiceFee int64
	// Fees is NetworkFee + ServiceFee.
	Fees int64
	// RentRebate is the part of GrossRebate that is rent (the base of the
	// donation and the service fee); GrossRebate - RentRebate is the
	// wallet's own SOL that came back (OwnBalance). The ticket's promise,
	// at most the landed GrossRebate once confirmed. nil for entries
	// recorded before the split was kept: how much of their gross was rent
	// is not known (their donation was taken of all of it).
	RentRebate *int64
	ItemCount  int
	// Promised are the figures the ticket promised for the transaction as
	// built (the build response's); they differ from the entry's own once it
	// landed otherwise (Differs).
	Promised Figures
	// DonationWallet and Treasury received the donation and the service fee
	// ("" without that transfer): whose balances the landing is read for.
	DonationWallet string
	Treasury       string

	Signature string
	// TicketJTI is the jti of the submission ticket; unique, so a ticket is
	// consumed at most once.
	TicketJTI string
	Status    Status
	Error     string

	CreatedAt   time.Time
	ConfirmedAt *time.Time
	// LastValidBlockHeight of the transaction's blockhash: past it, a
	// transaction the cluster never saw has expired.
	LastValidBlockHeight int64
	// Raw is the signed transaction the relay sends, kept while the entry is
	// in flight so that it is sent again, the same bytes, until it lands or
	// expires; nil once settled, and for entries claimed before it was kept.
	Raw []byte
	// Includes are the items of the transaction, as its ticket named them
	// (nil for entries claimed before they were kept).
	Includes []ticket.Item
	// Slot holds the transaction once landed, confirmed or failed (0 before,
	// and for entries settled before it was kept).
	Slot int64
	// LandedAt is when the tracker found the transaction at confirmed
	// commitment (nil before, and after a fork dropped it): from then until
	// it is final, the entry's figures are those read at confirmed. A landed
	// entry is still in flight (submitted) and counts nowhere.
	LandedAt *time.Time
	// Reported is the ticket of a transaction the wallet sent itself and
	// reported by its signature: the tracker counts it only if the landed
	// transaction is the one the ticket describes. nil for a relayed one,
	// checked at submit.
	Reported *ticket.Claims
}

// Split is the entry's rent and own balance (GrossRebate - RentRebate);
// ok is false for an entry recorded before the split was kept.
func (e Entry) Split() (rent, own int64, ok bool) {
	if e.RentRebate == nil {
		return 0, 0, false
	}
	rent = min(max(*e.RentRebate, 0), max(e.GrossRebate, 0))
	return rent, e.GrossRebate - rent, true
}

// Attempt is one submission result, kept whatever its outcome: the ledger of
// what was asked of the relay, beside the entries of what was sent.
type Attempt struct {
	ProjectID string
	Payer     string
	TicketJTI string
	Signature string
	// Status is submitted, duplicate or failed.
	Status string
	// Code and Message explain a failure.
	Code, Message string
	// Tickets is how many tickets the line stands for: 1 (0 counts as 1),
	// or, on the one line of a request's tickets that failed their
	// signature check (Code INVALID_TICKET, no TicketJTI), all of them,
	// Message being the first one's reason.
	Tickets   int
	CreatedAt time.Time
}

// Stats are a project's totals over its confirmed entries.
type Stats struct {
	TotalGrossRebate      int64
	TotalNetRebate        int64
	TotalTransactionCount int64
	// TotalWallets is the number of distinct payers.
	TotalWallets int64
	// TotalDonations is the number of entries with a donation above zero.
	TotalDonations      int64
	TotalDonationAmount int64
	// TotalRentRebate and TotalOwnBalanceRebate split the gross of the
	// entries recorded with the split (Entry.RentRebate) into rent and the
	// wallets' own SOL; entries recorded before count in neither.
	TotalRentRebate       int64
	TotalOwnBalanceRebate int64
}

// LeaderboardEntry is one wallet's totals over the confirmed entries that
// match a Filter.
type LeaderboardEntry struct {
	Payer                 string
	TotalGrossRebate      int64
	TotalNetRebate        int64
	TotalTransactionCount int64
	// TransactionTypeCounts has every one of Types as a key, 0 when none.
	TransactionTypeCounts map[string]int64
	TotalDonationAmount   int64
	// TotalDonationCount is the number of entries with a donation above zero.
	TotalDonationCount int64
	// TotalCommunityAmount is the sum of service fees.
	TotalCommunityAmount int64
}

// Store is what the ledger reads. Leaderboard ranks by total gross rebate
// descending, then payer ascending, so paging with Limit and Offset is stable.
type Store interface {
	Stats(ctx context.Context, projectID string) (Stats, error)
	Leaderboard(ctx context.Context, projectID string, f Filter) ([]LeaderboardEntry, error)
}

// Service answers the stats and leaderboard questions of the API and the
// console, so both share every number.
type Service struct {
	store Store
}

// NewService returns a Service reading from store.
func NewService(store Store) *Service {
	return &Service{store: store}
}

// Stats returns the totals of a project.
func (s *Service) Stats(ctx context.Context, projectID string) (Stats, error) {
	return s.store.Stats(ctx, projectID)
}

// Leaderboard validates raw query parameters and returns the matching page of
// the project's leaderboard. Invalid parameters give an invalid fault.
func (s *Service) Leaderboard(ctx context.Context, projectID string, p FilterParams) ([]LeaderboardEntry, error) {
	f, err := ParseFilter(p)
	if err != nil {
		return nil, err
	}
	entries, err := s.store.Leaderboard(ctx, projectID, f)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		entries[i].TransactionTypeCounts = completeTypeCounts(entries[i].TransactionTypeCounts)
	}
	return entries, nil
}

// completeTypeCounts makes sure every known type is a key, whatever the store
// returned.
func completeTypeCounts(m map[string]int64) map[string]int64 {
	if m == nil {
		m = make(map[string]int64, len(Types))
	}
	for _, t := range Types {
		if _, ok := m[t]; !ok {
			m[t] = 0
		}
	}
	return m
}
