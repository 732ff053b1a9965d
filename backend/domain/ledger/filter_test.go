package ledger_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

const wsol = "So11111111111111111111111111111111111111112"

func ptime(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	t = t.UTC()
	return &t
}

func TestParseFilterAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   ledger.FilterParams
		want ledger.Filter
	}{
		{
			name: "empty gives defaults",
			want: ledger.Filter{Limit: 100},
		},
		{
			name: "payer and type",
			in:   ledger.FilterParams{Payer: wsol, TransactionType: "nft_burn"},
			want: ledger.Filter{Payer: wsol, Type: ledger.TypeNFTBurn, Limit: 100},
		},
		{
			name: "every type",
			in:   ledger.FilterParams{TransactionType: "token_account_closure"},
			want: ledger.Filter{Type: ledger.TypeTokenAccountClosure, Limit: 100},
		},
		{
			name: "token burn",
			in:   ledger.FilterParams{TransactionType: "token_burn"},
			want: ledger.Filter{Type: ledger.TypeTokenBurn, Limit: 100},
		},
		{
			name: "days: endDate includes its whole day",
			in:   ledger.FilterParams{StartDate: "2026-01-01", EndDate: "2026-01-31"},
			want: ledger.Filter{Start: ptime("2026-01-01T00:00:00Z"), End: ptime("2026-02-01T00:00:00Z"), Limit: 100},
		},
		{
			name: "same day start and end is that day",
			in:   ledger.FilterParams{StartDate: "2026-01-31", EndDate: "2026-01-31"},
			want: ledger.Filter{Start: ptime("2026-01-31T00:00:00Z"), End: ptime("2026-02-01T00:00:00Z"), Limit: 100},
		},
		{
			name: "end of a leap year February",
			in:   ledger.FilterParams{EndDate: "2028-02-29"},
			want: ledger.Filter{End: ptime("2028-03-01T00:00:00Z"), Limit: 100},
		},
		{
			name: "timestamps are exclusive at the end and converted to UTC",
			in:   ledger.FilterParams{StartDate: "2026-01-31T12:00:00+02:00", EndDate: "2026-01-31T12:00:00.5Z"},
			want: ledger.Filter{Start: ptime("2026-01-31T10:00:00Z"), End: ptime("2026-01-31T12:00:00.5Z"), Limit: 100},
		},
		{
			name: "timestamp start inside the end day",
			in:   ledger.FilterParams{StartDate: "2026-01-31T23:00:00Z", EndDate: "2026-01-31"},
			want: ledger.Filter{Start: ptime("2026-01-31T23:00:00Z"), End: ptime("2026-02-01T00:00:00Z"), Limit: 100},
		},
		{
			name: "only startDate",
			in:   ledger.FilterParams{StartDate: "2026-03-04"},
			want: ledger.Filter{Start: ptime("2026-03-04T00:00:00Z"), Limit: 100},
		},
		{
			name: "last representable day means no end",
			in:   ledger.FilterParams{EndDate: "9999-12-31"},
			want: ledger.Filter{Limit: 100},
		},
		{
			name: "limit and offset bounds",
			in:   ledger.FilterParams{Limit: "1000", Offset: "1000000"},
			want: ledger.Filter{Limit: 1000, Offset: 1000000},
		},
		{
			name: "smallest limit",
			in:   ledger.FilterParams{Limit: "1", Offset: "0"},
			want: ledger.Filter{Limit: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ledger.ParseFilter(tt.in)
			if err != nil {
				t.Fatalf("ParseFilter(%+v) error: %v", tt.in, err)
			}
			if !sameFilter(got, tt.want) {
				t.Errorf("ParseFilter(%+v)\n got %s\nwant %s", tt.in, show(got), show(tt.want))
			}
		})
	}
}

func TestParseFilterRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    ledger.FilterParams
		param string
		msg   string
	}{
		{
			name:  "payer not base58",
			in:    ledger.FilterParams{Payer: "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl"},
			param: "payer",
			msg:   `payer "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl" is not a Solana address (base58, 32 bytes)`,
		},
		{
			name:  "payer too short",
			in:    ledger.FilterParams{Payer: "abc"},
			param: "payer",
			msg:   `payer "abc" is not a Solana address (base58, 32 bytes)`,
		},
		{
			name:  "payer of 33 bytes",
			in:    ledger.FilterParams{Payer: wsol + "2"},
			param: "payer",
			msg:   `payer "` + wsol + `2" is not a Solana address (base58, 32 bytes)`,
		},
		{
			name:  "unknown type",
			in:    ledger.FilterParams{TransactionType: "token_mint"},
			param: "transactionType",
			msg:   `transactionType "token_mint" is not one of token_account_closure, token_burn, nft_burn, excess_rent_withdrawal, program_buffer_closure, nonce_account_closure, stake_account_withdrawal, lookup_table_reclaim`,
		},
		{
			name:  "type in another case",
			in:    ledger.FilterParams{TransactionType: "NFT_BURN"},
			param: "transactionType",
			msg:   `transactionType "NFT_BURN" is not one of token_account_closure, token_burn, nft_burn, excess_rent_withdrawal, program_buffer_closure, nonce_account_closure, stake_account_withdrawal, lookup_table_reclaim`,
		},
		{
			name:  "month 13",
			in:    ledger.FilterParams{StartDate: "2026-13-01"},
			param: "startDate",
			msg:   `startDate "2026-13-01" is not an ISO 8601 date (use 2026-01-31 or 2026-01-31T00:00:00Z)`,
		},
		{
			name:  "February 30",
			in:    ledger.FilterParams{EndDate: "2026-02-30"},
			param: "endDate",
			msg:   `endDate "2026-02-30" is not an ISO 8601 date (use 2026-01-31 or 2026-01-31T00:00:00Z)`,
		},
		{
			name:  "not a date at all",
			in:    ledger.FilterParams{EndDate: "yesterday"},
			param: "endDate",
			msg:   `endDate "yesterday" is not an ISO 8601 date (use 2026-01-31 or 2026-01-31T00:00:00Z)`,
		},
		{
			name:  "timestamp without a zone",
			in:    ledger.FilterParams{StartDate: "2026-01-31T00:00:00"},
			param: "startDate",
			msg:   `startDate "2026-01-31T00:00:00" is not an ISO 8601 date (use 2026-01-31 or 2026-01-31T00:00:00Z)`,
		},
		{
			name:  "day without zero padding",
			in:    ledger.FilterParams{StartDate: "2026-1-31"},
			param: "startDate",
			msg:   `startDate "2026-1-31" is not an ISO 8601 date (use 2026-01-31 or 2026-01-31T00:00:00Z)`,
		},
		{
			name:  "startDate after endDate",
			in:    ledger.FilterParams{StartDate: "2026-02-01", EndDate: "2026-01-31"},
			param: "startDate",
			msg:   `startDate "2026-02-01" is not before endDate "2026-01-31"`,
		},
		{
			name:  "equal timestamps are an empty range",
			in:    ledger.FilterParams{StartDate: "2026-01-31T00:00:00Z", EndDate: "2026-01-31T00:00:00Z"},
			param: "startDate",
			msg:   `startDate "2026-01-31T00:00:00Z" is not before endDate "2026-01-31T00:00:00Z"`,
		},
		{
			name:  "limit zero",
			in:    ledger.FilterParams{Limit: "0"},
			param: "limit",
			msg:   `limit 0 is out of range: use 1 to 1000`,
		},
		{
			name:  "limit above max",
			in:    ledger.FilterParams{Limit: "1001"},
			param: "limit",
			msg:   `limit 1001 is out of range: use 1 to 1000`,
		},
		{
			name:  "limit beyond int64",
			in:    ledger.FilterParams{Limit: "99999999999999999999"},
			param: "limit",
			msg:   `limit 99999999999999999999 is out of range: use 1 to 1000`,
		},
		{
			name:  "limit not a number",
			in:    ledger.FilterParams{Limit: "ten"},
			param: "limit",
			msg:   `limit "ten" is not an integer`,
		},
		{
			name:  "negative offset",
			in:    ledger.FilterParams{Offset: "-1"},
			param: "offset",
			msg:   `offset -1 is out of range: use 0 to 1000000`,
		},
		{
			name:  "offset above max",
			in:    ledger.FilterParams{Offset: "1000001"},
			param: "offset",
			msg:   `offset 1000001 is out of range: use 0 to 1000000`,
		},
		{
			name:  "offset not a number",
			in:    ledger.FilterParams{Offset: "1.5"},
			param: "offset",
			msg:   `offset "1.5" is not an integer`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ledger.ParseFilter(tt.in)
			if err == nil {
				t.Fatalf("ParseFilter(%+v) = %s, want an error", tt.in, show(got))
			}
			ia, ok := fault.As(err, fault.KindInvalid)
			if !ok {
				t.Fatalf("ParseFilter error %T %v is not an invalid fault", err, err)
			}
			if ia.Param() != tt.param || err.Error() != tt.msg {
				t.Errorf("ParseFilter error = (%q, %q), want (%q, %q)", ia.Param(), err.Error(), tt.param, tt.msg)
			}
		})
	}
}

func sameFilter(a, b ledger.Filter) bool {
	return a.Payer == b.Payer && a.Type == b.Type && a.Limit == b.Limit && a.Offset == b.Offset &&
		sameTime(a.Start, b.Start) && sameTime(a.End, b.End)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b) && a.Location() == time.UTC && b.Location() == time.UTC
}

func show(f ledger.Filter) string {
	ts := func(t *time.Time) string {
		if t == nil {
			return "nil"
		}
		return t.Format(time.RFC3339Nano) + "(" + t.Location().String() + ")"
	}
	return fmt.Sprintf("{payer=%s type=%s start=%s end=%s limit=%d offset=%d}",
		f.Payer, f.Type, ts(f.Start), ts(f.End), f.Limit, f.Offset)
}
