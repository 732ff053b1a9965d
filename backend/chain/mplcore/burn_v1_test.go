package mplcore_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
	"github.com/reclaim-sol/reclaim/backend/chain/mplref"
)

// TestBurnV1MatchesJSClient pins the BurnV1 encoder byte for byte against
// @metaplex-foundation/mpl-core's burnV1 for the same inputs
// (testdata/burn_v1.golden; rebuilt by the JS client when node is
// available, always under CI=true).
func TestBurnV1MatchesJSClient(t *testing.T) {
	t.Parallel()
	wallet, asset, collection := mplref.Key("wallet"), mplref.Key("core asset"), mplref.Key("core collection")
	cases := []struct {
		name string
		req  map[string]any
		burn mplcore.BurnV1
	}{
		{"asset", map[string]any{"kind": "coreBurnV1", "asset": asset.String(), "payer": wallet.String()},
			mplcore.BurnV1{Asset: asset, Payer: wallet}},
		{"asset in a collection", map[string]any{"kind": "coreBurnV1", "asset": asset.String(), "payer": wallet.String(), "collection": collection.String()},
			mplcore.BurnV1{Asset: asset, Payer: wallet, Collection: &collection}},
	}
	goldens := make([]mplref.Golden, len(cases))
	for i, c := range cases {
		goldens[i] = mplref.Golden{Name: c.name, Request: c.req}
	}
	want := mplref.Expected(t, filepath.Join("testdata", "burn_v1.golden"), goldens)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(want[i].Instructions) != 1 {
				t.Fatalf("JS client built %d instructions, want 1", len(want[i].Instructions))
			}
			got, _ := json.MarshalIndent(mplref.ToJS(t, c.burn.Instruction()), "", " ")
			exp, _ := json.MarshalIndent(want[i].Instructions[0], "", " ")
			if string(got) != string(exp) {
				t.Errorf("instruction differs from the JS client's:\n got %s\nwant %s", got, exp)
			}
		})
	}
}
