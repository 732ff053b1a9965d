package storage_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

// Payers, in byte order: sys < ata < wsol < tok.
const (
	sys  = "11111111111111111111111111111111"
	ata  = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
	wsol = "So11111111111111111111111111111111111111112"
	tok  = "TokenkegQfeZyiNwAJbNbGJPFXCWuBvf9Ss623VQ5DA"
)

const networkFee = 5000

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// entry builds a ledger entry whose amounts add up as the builder makes them:
// Fees = network + service, NetRebate = gross - fees - donation.
func entry(jti, payer, typ string, gross, donation, service int64, status ledger.Status, confirmedAt *time.Time) ledger.Entry {
	fees := networkFee + service
	return ledger.Entry{
		Payer: payer, Type: typ, GrossRebate: gross, DonationAmount: donation,
		NetworkFee: networkFee, ServiceFee: service, Fees: fees, NetRebate: gross - fees - donation,
		ItemCount: 1, TicketJTI: jti, Signature: "sig-" + jti, Status: status, ConfirmedAt: confirmedAt,
	}
}

// seed stores the ledger every leaderboard case reads. Totals over the
// confirmed rows of the project:
//
//	wsol: gross 8,039,280 net 7,389,280, 3 tx (1 of each type), donated 600,000 in 2, community 35,000
//	ata:  gross 6,000,000 net 5,365,000, 1 token_burn, donated 600,000 in 1, community 30,000
//	tok:  gross 6,000,000 net 5,660,000, 2 closures, donated 300,000 in 1, community 30,000
//	sys:  gross 4,000,000 net 3,975,000, 1 nft_burn, community 20,000
func seed(t *testing.T, s *storagetest.Store) (projectID, otherID string) {
	t.Helper()
	ctx := ctxT(t)
	p, err := s.CreateProject(ctx, project.Project{Name: "p"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.CreateProject(ctx, project.Project{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	c := ledger.StatusConfirmed
	rows := []ledger.Entry{
		entry("w1", wsol, ledger.TypeTokenAccountClosure, 2_039_280, 0, 10_000, c, at("2026-01-10T12:00:00Z")),
		entry("w2", wsol, ledger.TypeTokenBurn, 1_000_000, 100_000, 5_000, c, at("2026-01-31T23:59:59.999999Z")),
		entry("w3", wsol, ledger.TypeNFTBurn, 5_000_000, 500_000, 20_000, c, at("2026-02-01T00:00:00Z")),
		entry("t1", tok, ledger.TypeTokenAccountClosure, 3_000_000, 0, 15_000, c, at("2026-01-31T00:00:00Z")),
		entry("t2", tok, ledger.TypeTokenAccountClosure, 3_000_000, 300_000, 15_000, c, at("2026-01-15T08:30:00+02:00")),
		entry("s1", sys, ledger.TypeNFTBurn, 4_000_000, 0, 20_000, c, at("2026-01-20T00:00:00Z")),
		entry("a1", ata, ledger.TypeTokenBurn, 6_000_000, 600_000, 30_000, c, at("2026-01-05T00:00:00Z")),
		// Not confirmed: never counted.
		entry("w-sub", wsol, ledger.TypeTokenBurn, 99_999_999, 9_999, 1, ledger.StatusSubmitted, nil),
		entry("s-fail", sys, ledger.TypeNFTBurn, 77_777_777, 7_777, 1, ledger.StatusFailed, nil),
		entry("t-exp", tok, ledger.TypeTokenBurn, 55_555_555, 5_555, 1, ledger.StatusExpired, nil),
	}
	for _, e := range rows {
		e.ProjectID = p.ID
		if e.Status != c {
			e.Signature = ""
		}
		if err := s.InsertEntry(ctx, e); err != nil {
			t.Fatalf("insert %s: %v", e.TicketJTI, err)
		}
	}
	o := entry("o1", wsol, ledger.TypeTokenBurn, 123_456_789, 1, 1, c, at("2026-01-10T00:00:00Z"))
	o.ProjectID = other.ID
	if err := s.InsertEntry(ctx, o); err != nil {
		t.Fatal(err)
	}
	return p.ID, other.ID
}

// counts are a leaderboard row's type counts: closures, token and NFT
// burns, then, when given, the counts of issue 23's types in ledger.Types
// order (0 when not).
func counts(closures, burns, nfts int64, more ...int64) map[string]int64 {
	m := map[string]int64{
		ledger.TypeTokenAccountClosure: closures,
		ledger.TypeTokenBurn:           burns,
		ledger.TypeNFTBurn:             nfts,
	}
	for i, t := range ledger.Types[3:] {
		m[t] = 0
		if i < len(more) {
			m[t] = more[i]
		}
	}
	return m
}

// Whole-ledger totals per payer (see seed).
var (
	wsolAll = ledger.LeaderboardEntry{Payer: wsol, TotalGrossRebate: 8_039_280, TotalNetRebate: 7_389_280, TotalTransactionCount: 3,
		TransactionTypeCounts: counts(1, 1, 1), TotalDonationAmount: 600_000, TotalDonationCount: 2, TotalCommunityAmount: 35_000}
	ataAll = ledger.LeaderboardEntry{Payer: ata, TotalGrossRebate: 6_000_000, TotalNetRebate: 5_365_000, TotalTransactionCount: 1,
		TransactionTypeCounts: counts(0, 1, 0), TotalDonationAmount: 600_000, TotalDonationCount: 1, TotalCommunityAmount: 30_000}
	tokAll = ledger.LeaderboardEntry{Payer: tok, TotalGrossRebate: 6_000_000, TotalNetRebate: 5_660_000, TotalTransactionCount: 2,
		TransactionTypeCounts: counts(2, 0, 0), TotalDonationAmount: 300_000, TotalDonationCount: 1, TotalCommunityAmount: 30_000}
	sysAll = ledger.LeaderboardEntry{Payer: sys, TotalGrossRebate: 4_000_000, TotalNetRebate: 3_975_000, TotalTransactionCount: 1,
		TransactionTypeCounts: counts(0, 0, 1), TotalDonationAmount: 0, TotalDonationCount: 0, TotalCommunityAmount: 20_000}
)

func TestStats(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		projectID, otherID := seed(t, s)
		tests := []struct {
			name      string
			projectID string
			want      ledger.Stats
		}{
			{
				name:      "confirmed rows only",
				projectID: projectID,
				want: ledger.Stats{TotalGrossRebate: 24_039_280, TotalNetRebate: 22_389_280, TotalTransactionCount: 7,
					TotalWallets: 4, TotalDonations: 4, TotalDonationAmount: 1_500_000},
			},
			{
				name:      "other project sees only its row",
				projectID: otherID,
				want: ledger.Stats{TotalGrossRebate: 123_456_789, TotalNetRebate: 123_456_789 - 5001 - 1, TotalTransactionCount: 1,
					TotalWallets: 1, TotalDonations: 1, TotalDonationAmount: 1},
			},
			{name: "no rows is all zeros", projectID: "prj_empty"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Stats(ctx, tt.projectID)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Errorf("Stats = %+v\nwant    %+v", got, tt.want)
				}
			})
		}
	})
}

func TestLeaderboard(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		projectID, otherID := seed(t, s)
		svc := ledger.NewService(s)
		tests := []struct {
			name      string
			projectID string
			params    ledger.FilterParams
			want      []ledger.LeaderboardEntry
		}{
			{
				name:   "everything, ties ranked by payer",
				params: ledger.FilterParams{},
				want:   []ledger.LeaderboardEntry{wsolAll, ataAll, tokAll, sysAll},
			},
			{
				name:   "one payer",
				params: ledger.FilterParams{Payer: tok},
				want:   []ledger.LeaderboardEntry{tokAll},
			},
			{
				name:   "payer without confirmed rows in range",
				params: ledger.FilterParams{Payer: sys, StartDate: "2026-01-21"},
				want:   []ledger.LeaderboardEntry{},
			},
			{
				name:   "token_account_closure only",
				params: ledger.FilterParams{TransactionType: ledger.TypeTokenAccountClosure},
				want: []ledger.LeaderboardEntry{
					tokAll,
					{Payer: wsol, TotalGrossRebate: 2_039_280, TotalNetRebate: 2_024_280, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(1, 0, 0), TotalCommunityAmount: 10_000},
				},
			},
			{
				name:   "token_burn only",
				params: ledger.FilterParams{TransactionType: ledger.TypeTokenBurn},
				want: []ledger.LeaderboardEntry{
					ataAll,
					{Payer: wsol, TotalGrossRebate: 1_000_000, TotalNetRebate: 890_000, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(0, 1, 0), TotalDonationAmount: 100_000, TotalDonationCount: 1, TotalCommunityAmount: 5_000},
				},
			},
			{
				name:   "nft_burn only",
				params: ledger.FilterParams{TransactionType: ledger.TypeNFTBurn},
				want: []ledger.LeaderboardEntry{
					{Payer: wsol, TotalGrossRebate: 5_000_000, TotalNetRebate: 4_475_000, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(0, 0, 1), TotalDonationAmount: 500_000, TotalDonationCount: 1, TotalCommunityAmount: 20_000},
					sysAll,
				},
			},
			{
				name:   "startDate includes its first instant",
				params: ledger.FilterParams{StartDate: "2026-01-31"},
				want: []ledger.LeaderboardEntry{
					{Payer: wsol, TotalGrossRebate: 6_000_000, TotalNetRebate: 5_365_000, TotalTransactionCount: 2,
						TransactionTypeCounts: counts(0, 1, 1), TotalDonationAmount: 600_000, TotalDonationCount: 2, TotalCommunityAmount: 25_000},
					{Payer: tok, TotalGrossRebate: 3_000_000, TotalNetRebate: 2_980_000, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(1, 0, 0), TotalCommunityAmount: 15_000},
				},
			},
			{
				name:   "endDate as a day includes the whole day, not the next midnight",
				params: ledger.FilterParams{EndDate: "2026-01-31"},
				want: []ledger.LeaderboardEntry{
					ataAll, tokAll, sysAll,
					{Payer: wsol, TotalGrossRebate: 3_039_280, TotalNetRebate: 2_914_280, TotalTransactionCount: 2,
						TransactionTypeCounts: counts(1, 1, 0), TotalDonationAmount: 100_000, TotalDonationCount: 1, TotalCommunityAmount: 15_000},
				},
			},
			{
				name:   "endDate as a timestamp is exclusive",
				params: ledger.FilterParams{EndDate: "2026-01-31T23:59:59.999999Z"},
				want: []ledger.LeaderboardEntry{
					ataAll, tokAll, sysAll,
					{Payer: wsol, TotalGrossRebate: 2_039_280, TotalNetRebate: 2_024_280, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(1, 0, 0), TotalCommunityAmount: 10_000},
				},
			},
			{
				name:   "one day",
				params: ledger.FilterParams{StartDate: "2026-01-31", EndDate: "2026-01-31"},
				want: []ledger.LeaderboardEntry{
					{Payer: tok, TotalGrossRebate: 3_000_000, TotalNetRebate: 2_980_000, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(1, 0, 0), TotalCommunityAmount: 15_000},
					{Payer: wsol, TotalGrossRebate: 1_000_000, TotalNetRebate: 890_000, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(0, 1, 0), TotalDonationAmount: 100_000, TotalDonationCount: 1, TotalCommunityAmount: 5_000},
				},
			},
			{
				name:   "a timestamp in another zone is compared in UTC",
				params: ledger.FilterParams{StartDate: "2026-01-15T08:30:00+02:00", EndDate: "2026-01-15T06:30:00.000001Z"},
				want: []ledger.LeaderboardEntry{
					{Payer: tok, TotalGrossRebate: 3_000_000, TotalNetRebate: 2_680_000, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(1, 0, 0), TotalDonationAmount: 300_000, TotalDonationCount: 1, TotalCommunityAmount: 15_000},
				},
			},
			{
				name:   "payer, type and dates together",
				params: ledger.FilterParams{Payer: wsol, TransactionType: ledger.TypeNFTBurn, StartDate: "2026-02-01", EndDate: "2026-02-01"},
				want: []ledger.LeaderboardEntry{
					{Payer: wsol, TotalGrossRebate: 5_000_000, TotalNetRebate: 4_475_000, TotalTransactionCount: 1,
						TransactionTypeCounts: counts(0, 0, 1), TotalDonationAmount: 500_000, TotalDonationCount: 1, TotalCommunityAmount: 20_000},
				},
			},
			{name: "first page", params: ledger.FilterParams{Limit: "2"}, want: []ledger.LeaderboardEntry{wsolAll, ataAll}},
			{name: "second page", params: ledger.FilterParams{Limit: "2", Offset: "2"}, want: []ledger.LeaderboardEntry{tokAll, sysAll}},
			{name: "middle of a tie", params: ledger.FilterParams{Limit: "1", Offset: "2"}, want: []ledger.LeaderboardEntry{tokAll}},
			{name: "past the end", params: ledger.FilterParams{Offset: "4"}, want: []ledger.LeaderboardEntry{}},
			{
				name:      "another project",
				projectID: otherID,
				want: []ledger.LeaderboardEntry{{Payer: wsol, TotalGrossRebate: 123_456_789, TotalNetRebate: 123_456_789 - 5001 - 1,
					TotalTransactionCount: 1, TransactionTypeCounts: counts(0, 1, 0), TotalDonationAmount: 1, TotalDonationCount: 1, TotalCommunityAmount: 1}},
			},
			{name: "unknown project", projectID: "prj_empty", want: []ledger.LeaderboardEntry{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				pid := tt.projectID
				if pid == "" {
					pid = projectID
				}
				got, err := svc.Leaderboard(ctx, pid, tt.params)
				if err != nil {
					t.Fatal(err)
				}
				if got == nil || !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Leaderboard(%+v) =\n%s\nwant\n%s", tt.params, showBoard(got), showBoard(tt.want))
				}
			})
		}
	})
}

func showBoard(es []ledger.LeaderboardEntry) string {
	if es == nil {
		return "  nil"
	}
	out := ""
	for _, e := range es {
		out += fmt.Sprintf("  %+v\n", e)
	}
	return out
}

func TestInsertEntry(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		first := entry("jti-1", wsol, ledger.TypeTokenBurn, 1_000_000, 10_000, 2_000, ledger.StatusSubmitted, nil)
		first.ProjectID = p.ID
		first.ItemCount = 7
		first.CreatedAt = *at("2026-01-10T10:00:00.1234567+01:00")
		if err := s.InsertEntry(ctx, first); err != nil {
			t.Fatal(err)
		}
		got, err := s.EntryByTicketJTI(ctx, "jti-1")
		if err != nil {
			t.Fatal(err)
		}
		want := first
		want.ID = got.ID
		want.Promised = first.Figures() // an entry recorded whole promised its own figures
		want.CreatedAt = *at("2026-01-10T09:00:00.123456Z")
		if len(got.ID) != len("tx_")+26 || got.ID[:3] != "tx_" || !reflect.DeepEqual(got, want) {
			t.Errorf("EntryByTicketJTI =\n%+v\nwant\n%+v", got, want)
		}

		noSig := func(jti string) ledger.Entry {
			e := entry(jti, wsol, ledger.TypeTokenBurn, 1, 0, 0, ledger.StatusSubmitted, nil)
			e.ProjectID, e.Signature = p.ID, ""
			return e
		}
		tests := []struct {
			name    string
			e       ledger.Entry
			wantErr error
		}{
			{name: "same ticket", e: func() ledger.Entry { e := first; e.Signature = "other"; return e }(), wantErr: ledger.ErrDuplicate},
			{name: "same signature", e: func() ledger.Entry { e := first; e.TicketJTI = "jti-2"; return e }(), wantErr: ledger.ErrDuplicate},
			{name: "empty signatures do not collide (a)", e: noSig("jti-3")},
			{name: "empty signatures do not collide (b)", e: noSig("jti-4")},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if err := s.InsertEntry(ctx, tt.e); !errors.Is(err, tt.wantErr) {
					t.Errorf("InsertEntry = %v, want %v", err, tt.wantErr)
				}
			})
		}
		invalid := []struct {
			name string
			e    ledger.Entry
		}{
			{name: "unknown type", e: func() ledger.Entry { e := noSig("jti-5"); e.Type = "mint"; return e }()},
			{name: "unknown status", e: func() ledger.Entry { e := noSig("jti-6"); e.Status = "done"; return e }()},
			{name: "no ticket", e: noSig("")},
			{name: "unknown project", e: func() ledger.Entry { e := noSig("jti-7"); e.ProjectID = "prj_nope"; return e }()},
		}
		for _, tt := range invalid {
			t.Run(tt.name, func(t *testing.T) {
				if err := s.InsertEntry(ctx, tt.e); err == nil {
					t.Error("InsertEntry succeeded")
				}
			})
		}
		if _, err := s.EntryByTicketJTI(ctx, "jti-nope"); !errors.Is(err, ledger.ErrNotFound) {
			t.Errorf("EntryByTicketJTI(unknown) = %v, want ErrNotFound", err)
		}
	})
}

func TestSetEntryStatus(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		for _, jti := range []string{"a", "b"} {
			e := entry(jti, wsol, ledger.TypeTokenBurn, 1_000_000, 0, 0, ledger.StatusSubmitted, nil)
			e.ProjectID = p.ID
			if err := s.InsertEntry(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		confirmedAt := *at("2026-01-10T10:00:00Z")
		steps := []struct {
			name        string
			jti         string
			status      ledger.Status
			errMsg      string
			at          time.Time
			wantChanged bool
			wantErr     error
			wantStatus  ledger.Status
			wantAt      *time.Time
			wantCount   int64
		}{
			{name: "confirm", jti: "a", status: ledger.StatusConfirmed, at: confirmedAt,
				wantChanged: true, wantStatus: ledger.StatusConfirmed, wantAt: &confirmedAt, wantCount: 1},
			{name: "confirm again changes nothing", jti: "a", status: ledger.StatusConfirmed, at: confirmedAt.Add(time.Hour),
				wantStatus: ledger.StatusConfirmed, wantAt: &confirmedAt, wantCount: 1},
			{name: "a confirmed entry cannot fail", jti: "a", status: ledger.StatusFailed, errMsg: "late",
				wantStatus: ledger.StatusConfirmed, wantAt: &confirmedAt, wantCount: 1},
			{name: "fail", jti: "b", status: ledger.StatusFailed, errMsg: "blockhash expired", at: confirmedAt,
				wantChanged: true, wantStatus: ledger.StatusFailed, wantCount: 1},
			{name: "a failed entry cannot be confirmed", jti: "b", status: ledger.StatusConfirmed, at: confirmedAt,
				wantStatus: ledger.StatusFailed, wantCount: 1},
			{name: "unknown ticket", jti: "zzz", status: ledger.StatusConfirmed, wantErr: ledger.ErrNotFound, wantCount: 1},
		}
		for _, st := range steps {
			changed, err := s.SetEntryStatus(ctx, st.jti, st.status, st.errMsg, st.at)
			if !errors.Is(err, st.wantErr) || changed != st.wantChanged {
				t.Fatalf("%s: SetEntryStatus = %v, %v; want %v, %v", st.name, changed, err, st.wantChanged, st.wantErr)
			}
			if st.wantErr == nil {
				e, err := s.EntryByTicketJTI(ctx, st.jti)
				if err != nil {
					t.Fatal(err)
				}
				if e.Status != st.wantStatus || !equalTimePtr(e.ConfirmedAt, st.wantAt) {
					t.Errorf("%s: entry status %s at %v, want %s at %v", st.name, e.Status, e.ConfirmedAt, st.wantStatus, st.wantAt)
				}
			}
			stats, err := s.Stats(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if stats.TotalTransactionCount != st.wantCount {
				t.Errorf("%s: counted %d transactions, want %d", st.name, stats.TotalTransactionCount, st.wantCount)
			}
		}
		if e, _ := s.EntryByTicketJTI(ctx, "b"); e.Error != "blockhash expired" {
			t.Errorf("failed entry error = %q", e.Error)
		}
		if _, err := s.SetEntryStatus(ctx, "a", ledger.StatusSubmitted, "", confirmedAt); err == nil {
			t.Error("SetEntryStatus back to submitted succeeded")
		}
	})
}

// TestLeaderboardPathsAgree checks that the running totals (read when there is
// no time bound) and the ledger rows (aggregated when there is) give the same
// leaderboard, before and after the totals are rebuilt from the rows.
func TestLeaderboardPathsAgree(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		projectID, _ := seed(t, s)
		allTime := func(f ledger.Filter) ledger.Filter {
			f.Start, f.End = at("1970-01-01T00:00:00Z"), at("9000-01-01T00:00:00Z")
			return f
		}
		var filters []ledger.Filter
		for _, typ := range append([]string{""}, ledger.Types...) {
			for _, payer := range []string{"", wsol, sys} {
				filters = append(filters, ledger.Filter{Type: typ, Payer: payer, Limit: 100})
			}
		}
		filters = append(filters, ledger.Filter{Limit: 1, Offset: 1}, ledger.Filter{Limit: 3, Offset: 1})
		check := func(t *testing.T) {
			for _, f := range filters {
				fromTotals, err := s.Leaderboard(ctx, projectID, f)
				if err != nil {
					t.Fatal(err)
				}
				fromRows, err := s.Leaderboard(ctx, projectID, allTime(f))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(fromTotals, fromRows) {
					t.Errorf("filter %+v: totals give\n%s\nledger rows give\n%s", f, showBoard(fromTotals), showBoard(fromRows))
				}
			}
		}
		t.Run("kept current", check)
		before, err := s.Stats(ctx, projectID)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RebuildPayerTotals(ctx); err != nil {
			t.Fatal(err)
		}
		t.Run("rebuilt", check)
		after, err := s.Stats(ctx, projectID)
		if err != nil || after != before {
			t.Errorf("Stats after rebuild = %+v, %v; want %+v", after, err, before)
		}
	})
}

// TestConfirmRace confirms one ticket from several goroutines at once: it must
// change once and count once.
func TestConfirmRace(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		e := entry("race", wsol, ledger.TypeNFTBurn, 1_000_000, 100_000, 2_000, ledger.StatusSubmitted, nil)
		e.ProjectID = p.ID
		if err := s.InsertEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
		const n = 8
		changed := make(chan bool, n)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				ok, err := s.SetEntryStatus(ctx, "race", ledger.StatusConfirmed, "", *at("2026-01-10T00:00:00Z"))
				if err != nil {
					t.Error(err)
				}
				changed <- ok
			})
		}
		wg.Wait()
		close(changed)
		wins := 0
		for ok := range changed {
			if ok {
				wins++
			}
		}
		st, err := s.Stats(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := ledger.Stats{TotalGrossRebate: 1_000_000, TotalNetRebate: 1_000_000 - 7_000 - 100_000, TotalTransactionCount: 1,
			TotalWallets: 1, TotalDonations: 1, TotalDonationAmount: 100_000}
		if wins != 1 || st != want {
			t.Errorf("%d confirmations won, stats %+v; want 1 and %+v", wins, st, want)
		}
	})
}

// TestLeaderboardCountsNewTypes: transactions of issue 23's types (excess
// rent withdrawals, buffer and nonce closures, stake withdrawals, migration
// 14's columns) count in the stats and in every leaderboard read: all time
// (per-wallet totals), a month (reclaim_rollup_periods), a range of days,
// each type alone.
func TestLeaderboardCountsNewTypes(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		p, err := s.CreateProject(ctx, project.Project{Name: "p"})
		if err != nil {
			t.Fatal(err)
		}
		c := ledger.StatusConfirmed
		rows := []ledger.Entry{
			entry("x1", wsol, ledger.TypeExcessRentWithdrawal, 1_652_520, 0, 0, c, at("2026-03-02T10:00:00Z")),
			entry("x2", wsol, ledger.TypeExcessRentWithdrawal, 550_840, 0, 0, c, at("2026-03-03T10:00:00Z")),
			entry("b1", wsol, ledger.TypeProgramBufferClosure, 7_967_760, 0, 0, c, at("2026-03-04T10:00:00Z")),
			entry("n1", wsol, ledger.TypeNonceAccountClosure, 1_447_680, 0, 0, c, at("2026-03-05T10:00:00Z")),
			entry("s1", wsol, ledger.TypeStakeAccountWithdrawal, 5_002_282_880, 0, 0, c, at("2026-03-06T10:00:00Z")),
			entry("l1", wsol, ledger.TypeLookupTableReclaim, 57_964_320, 0, 0, c, at("2026-03-06T10:30:00Z")),
			entry("t1", tok, ledger.TypeTokenAccountClosure, 2_039_280, 0, 0, c, at("2026-03-06T11:00:00Z")),
		}
		for _, e := range rows {
			e.ProjectID = p.ID
			if err := s.InsertEntry(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.WaitForRollups(ctx); err != nil {
			t.Fatal(err)
		}
		var gross int64
		for _, e := range rows[:6] {
			gross += e.GrossRebate
		}
		for _, f := range []ledger.FilterParams{
			{},
			{StartDate: "2026-03-01", EndDate: "2026-03-31"},
			{StartDate: "2026-03-02", EndDate: "2026-03-06"},
		} {
			board, err := ledger.NewService(s).Leaderboard(ctx, p.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(board) != 2 || board[0].Payer != wsol || board[0].TotalGrossRebate != gross ||
				!reflect.DeepEqual(board[0].TransactionTypeCounts, counts(0, 0, 0, 2, 1, 1, 1, 1)) ||
				!reflect.DeepEqual(board[1].TransactionTypeCounts, counts(1, 0, 0)) {
				t.Errorf("%+v: %+v", f, board)
			}
		}
		for i, typ := range ledger.Types[3:] {
			board, err := ledger.NewService(s).Leaderboard(ctx, p.ID, ledger.FilterParams{TransactionType: typ})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int64, 5)
			want[i] = []int64{2, 1, 1, 1, 1}[i]
			if len(board) != 1 || board[0].Payer != wsol || !reflect.DeepEqual(board[0].TransactionTypeCounts, counts(0, 0, 0, want...)) {
				t.Errorf("%s alone: %+v", typ, board)
			}
		}
		st, err := s.Stats(ctx, p.ID)
		if err != nil || st.TotalTransactionCount != 7 || st.TotalGrossRebate != gross+2_039_280 || st.TotalWallets != 2 {
			t.Errorf("stats %+v, %v", st, err)
		}
	})
}
