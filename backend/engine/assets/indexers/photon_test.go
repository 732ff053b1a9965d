package indexers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/upstream/photon"
)

var _ assets.Source = (*PhotonSource)(nil)

// pagedServer answers page1.json without a cursor and page2.json for its cursor.
func pagedServer(t *testing.T, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Method string `json:"method"`
			Params struct {
				Owner  string  `json:"owner"`
				Cursor *string `json:"cursor"`
				Limit  int     `json:"limit"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Error(err)
		}
		if req.Method != "getCompressedTokenAccountsByOwner" || req.Params.Owner != wallet.String() || req.Params.Limit != photon.PageLimit {
			t.Errorf("request %+v", req)
		}
		switch {
		case req.Params.Cursor == nil:
			w.Write(recorded(t, "photon", "page1.json"))
		case *req.Params.Cursor == "3J98t1WpEZ73CNmYviecrnyiWrnqRhWNLy":
			w.Write(recorded(t, "photon", "page2.json"))
		default:
			t.Errorf("cursor %q", *req.Params.Cursor)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPhotonSourceItems(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := pagedServer(t, &calls)
	src := NewPhotonSource(photon.New(srv.URL, nil, photon.Options{}))
	got, err := src.Items(context.Background(), wallet)
	if err != nil {
		t.Fatal(err)
	}
	item := func(hash, mint string, lamports, amount uint64, frozen bool) assets.Item {
		return assets.Item{
			Type: assets.TypeZKCompressedToken, Address: key(hash), Owner: wallet, Mint: key(mint),
			TokenProgram: CompressedTokenProgramID, Lamports: lamports, Amount: amount, IsFrozen: frozen, Actions: []assets.Action{},
		}
	}
	want := []assets.Item{
		item("DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", 0, 10000000, false),
		item("CGeqAKLUJsajD7oV4eAnZwHNyxFSC5W6JLZou9bSEACH", "6osUjF1mAfzWy7eeGnV8PbvarnEcuMHTxJ8pZppKXcx3", 0, 18446744073709551615, true),
		item("49iv77hdgxiRHDiRftcYjzn4mbXCdQpcYqdXmesndUwk", "7ti8Srg7snwDaMmFDJPnJV4PAyGPAdkdUJNWQAxvwatb", 1000, 5, false),
	}
	if !reflect.DeepEqual(got, want) || calls.Load() != 2 || src.Name() != "photon" {
		t.Errorf("%d calls\n got %+v\nwant %+v", calls.Load(), got, want)
	}
}

// accountsFunc is a hand-written fake of PhotonAccounts.
type accountsFunc func(ctx context.Context, owner string) ([]photon.TokenAccount, error)

func (f accountsFunc) TokenAccountsByOwner(ctx context.Context, owner string) ([]photon.TokenAccount, error) {
	return f(ctx, owner)
}

func TestPhotonSourceSkips(t *testing.T) {
	t.Parallel()
	var bad, other photon.TokenAccount
	bad.Account.Hash, bad.TokenData.Mint, bad.TokenData.Owner = "nope", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", wallet.String()
	other.Account.Hash, other.TokenData.Mint, other.TokenData.Owner = wallet.String(), wallet.String(), "8cSdR87JSzaqzYfCcJqgz213Xb5Y6ZGUsGqeYYBJEvNc"
	src := NewPhotonSource(accountsFunc(func(context.Context, string) ([]photon.TokenAccount, error) {
		return []photon.TokenAccount{bad, other}, nil
	}))
	if got, err := src.Items(context.Background(), wallet); err != nil || len(got) != 0 {
		t.Errorf("got %+v, %v", got, err)
	}
	boom := errors.New("boom")
	src = NewPhotonSource(accountsFunc(func(context.Context, string) ([]photon.TokenAccount, error) { return nil, boom }))
	if _, err := src.Items(context.Background(), wallet); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}
