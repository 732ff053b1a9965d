package wallet

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
)

func TestValidateBuildUsesTheActionsTable(t *testing.T) {
	t.Parallel()
	addr := solana.NewWallet().PublicKey().String()
	cases := []struct {
		name  string
		sel   Selection
		param string
		want  string
	}{
		{"token closes (wrapped SOL)", SelectionOf(assets.TypeToken, addr, assets.ActionClose), "", ""},
		{"empty account burns", SelectionOf(assets.TypeEmptyAccount, addr, assets.ActionBurn), "items[0].action", "want close"},
		{"fungible asset takes nothing", SelectionOf(assets.TypeFungibleAsset, addr, assets.ActionBurn), "items[0].action", "takes no action yet"},
		{"bad address", SelectionOf(assets.TypeNFT, "0OIl", assets.ActionBurn), "items[0].address", "is not a Solana address"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := validateBuild(BuildRequest{Items: []Selection{tc.sel}})
			if tc.param == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			ie, ok := fault.As(err, fault.KindInvalid)
			if !ok || ie.Param() != tc.param || !strings.Contains(ie.Error(), tc.want) {
				t.Fatalf("got %v, want %s naming %q", err, tc.param, tc.want)
			}
		})
	}
}

func TestCursorsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, k := range []listingKey{{false, "A"}, {true, "zz"}} {
		got, err := parseCursor(k.cursor())
		if err != nil || *got != k {
			t.Fatalf("%+v: got %+v, %v", k, got, err)
		}
	}
	for _, bad := range []string{"!", "eDp5", "YTo"} {
		if _, err := parseCursor(bad); err == nil {
			t.Fatalf("cursor %q accepted", bad)
		}
	}
}

func TestCheckStream(t *testing.T) {
	t.Parallel()
	w := solana.NewWallet().PublicKey().String()
	zero, big := uint32(0), uint32(assets.MaxChunkSize+1)
	if _, err := ParseStream(w, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*uint32{&zero, &big} {
		if _, err := ParseStream(w, n); !invalidOn(err, "chunkSize") {
			t.Fatalf("chunk size %d: %v", *n, err)
		}
	}
	if _, err := ParseStream("nope", nil); !invalidOn(err, "address") {
		t.Fatalf("bad address: %v", err)
	}
}

// invalidOn reports whether err is an invalid fault naming param.
func invalidOn(err error, param string) bool {
	f, ok := fault.As(err, fault.KindInvalid)
	return ok && f.Param() == param
}
