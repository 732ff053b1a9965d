package ledger

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// Leaderboard paging limits.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
	MaxOffset    = 1_000_000
)

// Filter selects the confirmed entries a leaderboard aggregates, and the page.
// Empty Payer or Type and nil Start or End mean no restriction.
type Filter struct {
	Payer string
	Type  string
	// Start and End bound the confirmation time, half-open: [Start, End).
	Start, End *time.Time
	Limit      int
	Offset     int
}

// FilterParams are the leaderboard's query parameters as the client sent them;
// "" means absent.
type FilterParams struct {
	Payer           string
	TransactionType string
	StartDate       string
	EndDate         string
	Limit           string
	Offset          string
}

// ParseFilter validates p and returns the Filter it describes, or an
// invalid fault naming the first bad parameter as the client sent it.
//
// Dates are ISO 8601: a day (2026-01-31, a UTC day) or an RFC 3339 timestamp
// (2026-01-31T12:00:00Z). An endDate given as a day includes that whole day;
// an endDate given as a timestamp is exclusive. startDate must be before
// endDate. limit defaults to DefaultLimit and is 1 to MaxLimit; offset is 0
// to MaxOffset.
func ParseFilter(p FilterParams) (Filter, error) {
	f := Filter{Limit: DefaultLimit}
	if p.Payer != "" {
		if _, err := solana.PublicKeyFromBase58(p.Payer); err != nil {
			return Filter{}, fault.Invalid("payer", "payer %q is not a Solana address (base58, 32 bytes)", p.Payer)
		}
		f.Payer = p.Payer
	}
	if p.TransactionType != "" {
		if !ValidType(p.TransactionType) {
			return Filter{}, fault.Invalid("transactionType", "transactionType %q is not one of %s",
				p.TransactionType, strings.Join(Types, ", "))
		}
		f.Type = p.TransactionType
	}
	var err error
	if f.Start, err = parseDate("startDate", p.StartDate, false); err != nil {
		return Filter{}, err
	}
	if f.End, err = parseDate("endDate", p.EndDate, true); err != nil {
		return Filter{}, err
	}
	if f.Start != nil && f.End != nil && !f.Start.Before(*f.End) {
		return Filter{}, fault.Invalid("startDate", "startDate %q is not before endDate %q", p.StartDate, p.EndDate)
	}
	if f.End != nil && f.End.Year() > 9999 {
		// endDate 9999-12-31 includes all time; a five-digit year would not
		// compare as text in SQLite.
		f.End = nil
	}
	if f.Limit, err = parseInt("limit", p.Limit, DefaultLimit, 1, MaxLimit); err != nil {
		return Filter{}, err
	}
	if f.Offset, err = parseInt("offset", p.Offset, 0, 0, MaxOffset); err != nil {
		return Filter{}, err
	}
	return f, nil
}

const dateLayout = "2006-01-02"

// parseDate parses a day or an RFC 3339 timestamp into a UTC time. A day
// given as an end is turned into the next midnight, so the day is included.
func parseDate(param, s string, end bool) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) == len(dateLayout) {
		if t, err := time.Parse(dateLayout, s); err == nil {
			if end {
				t = t.AddDate(0, 0, 1)
			}
			return &t, nil
		}
	} else if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = t.UTC()
		return &t, nil
	}
	return nil, fault.Invalid(param, "%s %q is not an ISO 8601 date (use 2026-01-31 or 2026-01-31T00:00:00Z)", param, s)
}

func parseInt(param, s string, def, lo, hi int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fault.Invalid(param, "%s %q is not an integer", param, s)
	}
	if err != nil || n < lo || n > hi {
		return 0, fault.Invalid(param, "%s %s is out of range: use %d to %d", param, s, lo, hi)
	}
	return n, nil
}
