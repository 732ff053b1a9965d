package photon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

var (
	_      assets.Source = (*Source)(nil)
	wallet               = solana.MustPublicKeyFromBase58("3GSXQm66NE2wDpw31q7uC9DDoMjG2c2LvHgVnjmTgkuv")
)

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pagedServer answers page1.json without a cursor and page2.json for its cursor.
func pagedServer(t *testing.T, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Method string        `json:"method"`
			Params byOwnerParams `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Error(err)
		}
		if req.Method != "getCompressedTokenAccountsByOwner" || req.Params.Owner != wallet.String() || req.Params.Limit != PageLimit {
			t.Errorf("request %+v", req)
		}
		switch {
		case req.Params.Cursor == nil:
			w.Write(testdata(t, "page1.json"))
		case *req.Params.Cursor == "3J98t1WpEZ73CNmYviecrnyiWrnqRhWNLy":
			w.Write(testdata(t, "page2.json"))
		default:
			t.Errorf("cursor %q", *req.Params.Cursor)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func key(s string) solana.PublicKey { return solana.MustPublicKeyFromBase58(s) }

func TestPhotonSourceItems(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := pagedServer(t, &calls)
	src := NewSource(New(srv.URL, nil, Options{}))
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

// accountsFunc is a hand-written fake of Accounts.
type accountsFunc func(ctx context.Context, owner string) ([]TokenAccount, error)

func (f accountsFunc) TokenAccountsByOwner(ctx context.Context, owner string) ([]TokenAccount, error) {
	return f(ctx, owner)
}

func TestPhotonSourceSkips(t *testing.T) {
	t.Parallel()
	var bad, other TokenAccount
	bad.Account.Hash, bad.TokenData.Mint, bad.TokenData.Owner = "nope", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", wallet.String()
	other.Account.Hash, other.TokenData.Mint, other.TokenData.Owner = wallet.String(), wallet.String(), "8cSdR87JSzaqzYfCcJqgz213Xb5Y6ZGUsGqeYYBJEvNc"
	src := NewSource(accountsFunc(func(context.Context, string) ([]TokenAccount, error) { return []TokenAccount{bad, other}, nil }))
	if got, err := src.Items(context.Background(), wallet); err != nil || len(got) != 0 {
		t.Errorf("got %+v, %v", got, err)
	}
	boom := errors.New("boom")
	src = NewSource(accountsFunc(func(context.Context, string) ([]TokenAccount, error) { return nil, boom }))
	if _, err := src.Items(context.Background(), wallet); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestPhotonErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"rpc error", func(w http.ResponseWriter, r *http.Request) { w.Write(testdata(t, "error.json")) },
			"page 1: photon getCompressedTokenAccountsByOwner: rpc error -32602: Invalid params: invalid base58 owner"},
		{"status", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) },
			"page 1: photon getCompressedTokenAccountsByOwner: status 403 Forbidden"},
		{"over the cap", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"result":{"value":{"items":[]}},"pad":"%s"}`, strings.Repeat("x", 4096))
		}, "page 1: photon getCompressedTokenAccountsByOwner: response larger than 1024 bytes"},
		{"malformed", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"result":{"value":{"items":[{"tokenData":{"amount":"x"}}]}}}`)
		},
			`page 1: photon getCompressedTokenAccountsByOwner: decode result: json: invalid number literal, trying to unmarshal "\"x\"" into Number`},
		{"cursor repeats", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"result":{"value":{"cursor":"c1","items":[{}]}}}`)
		}, "photon getCompressedTokenAccountsByOwner: cursor c1 repeats"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			_, err := New(srv.URL, nil, Options{MaxBody: 1024}).TokenAccountsByOwner(context.Background(), wallet.String())
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestPhotonMaxPages(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"result":{"value":{"cursor":"c%d","items":[{}]}}}`, n.Add(1))
	}))
	defer srv.Close()
	_, err := New(srv.URL, nil, Options{MaxPages: 3}).TokenAccountsByOwner(context.Background(), "W")
	if err == nil || err.Error() != "photon getCompressedTokenAccountsByOwner: more than 3 pages" || n.Load() != 3 {
		t.Errorf("err = %v after %d pages", err, n.Load())
	}
}

func TestPhotonTimeout(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	defer srv.Close()
	defer close(done)
	start := time.Now()
	_, err := New(srv.URL+"/?api-key=k3y", nil, Options{Timeout: 100 * time.Millisecond}).TokenAccountsByOwner(context.Background(), "W")
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "k3y") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v", took)
	}
}
