package feature_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/feature"
)

func TestActive(t *testing.T) {
	t.Parallel()
	account := func(owner solana.PublicKey, data ...byte) *rpc.Account {
		return &rpc.Account{Owner: owner, Lamports: 953_520, Data: rpc.DataBytesOrJSONFromBytes(data)}
	}
	cases := []struct {
		name   string
		a      *rpc.Account
		slot   uint64
		active bool
	}{
		// The p-token feature as the local validator serves it: activated
		// at slot 0 (its base64 data "AQAAAAAAAAAA").
		{"activated at slot 0", account(feature.ProgramID, 1, 0, 0, 0, 0, 0, 0, 0, 0), 0, true},
		{"activated at slot 123,456,789", account(feature.ProgramID, 1, 0x15, 0xcd, 0x5b, 0x07, 0, 0, 0, 0), 123_456_789, true},
		{"proposed, not active", account(feature.ProgramID, 0, 0, 0, 0, 0, 0, 0, 0, 0), 0, false},
		{"missing", nil, 0, false},
		{"another program's account", account(solana.SystemProgramID, 1, 0, 0, 0, 0, 0, 0, 0, 0), 0, false},
		{"short", account(feature.ProgramID, 1), 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			slot, active := feature.Active(tc.a)
			if slot != tc.slot || active != tc.active {
				t.Errorf("Active = %d, %v; want %d, %v", slot, active, tc.slot, tc.active)
			}
		})
	}
}
