package ledger_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

// fakeStore is a hand-written Store.
type fakeStore struct {
	stats       func(ctx context.Context, projectID string) (ledger.Stats, error)
	leaderboard func(ctx context.Context, projectID string, f ledger.Filter) ([]ledger.LeaderboardEntry, error)
}

func (s fakeStore) Stats(ctx context.Context, projectID string) (ledger.Stats, error) {
	return s.stats(ctx, projectID)
}

func (s fakeStore) Leaderboard(ctx context.Context, projectID string, f ledger.Filter) ([]ledger.LeaderboardEntry, error) {
	return s.leaderboard(ctx, projectID, f)
}

func TestServiceLeaderboard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		params    ledger.FilterParams
		stored    []ledger.LeaderboardEntry
		want      []ledger.LeaderboardEntry
		wantErr   bool // an invalid fault
		wantQuery bool
	}{
		{
			name:   "type counts completed",
			params: ledger.FilterParams{Limit: "2"},
			stored: []ledger.LeaderboardEntry{{Payer: wsol, TotalGrossRebate: 7, TransactionTypeCounts: map[string]int64{"nft_burn": 3}}},
			want: []ledger.LeaderboardEntry{{Payer: wsol, TotalGrossRebate: 7, TransactionTypeCounts: map[string]int64{"nft_burn": 3, "token_burn": 0, "token_account_closure": 0,
				"excess_rent_withdrawal": 0, "program_buffer_closure": 0, "nonce_account_closure": 0, "stake_account_withdrawal": 0, "lookup_table_reclaim": 0}}},
			wantQuery: true,
		},
		{
			name:   "nil type counts become all zeros",
			stored: []ledger.LeaderboardEntry{{Payer: wsol}},
			want: []ledger.LeaderboardEntry{{Payer: wsol, TransactionTypeCounts: map[string]int64{"nft_burn": 0, "token_burn": 0, "token_account_closure": 0,
				"excess_rent_withdrawal": 0, "program_buffer_closure": 0, "nonce_account_closure": 0, "stake_account_withdrawal": 0, "lookup_table_reclaim": 0}}},
			wantQuery: true,
		},
		{
			name:    "invalid parameters never reach the store",
			params:  ledger.FilterParams{StartDate: "2026-13-01"},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			queried := false
			svc := ledger.NewService(fakeStore{
				leaderboard: func(_ context.Context, projectID string, f ledger.Filter) ([]ledger.LeaderboardEntry, error) {
					queried = true
					if projectID != "prj_1" {
						t.Errorf("projectID = %q", projectID)
					}
					return tt.stored, nil
				},
			})
			got, err := svc.Leaderboard(context.Background(), "prj_1", tt.params)
			if _, invalid := fault.As(err, fault.KindInvalid); invalid != tt.wantErr || (err != nil) != tt.wantErr {
				t.Fatalf("Leaderboard error = %v, want an invalid fault: %v", err, tt.wantErr)
			}
			if queried != tt.wantQuery {
				t.Errorf("store queried = %v, want %v", queried, tt.wantQuery)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Leaderboard = %+v, want %+v", got, tt.want)
			}
		})
	}
}
