package das

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rpcCall is a decoded JSON-RPC request.
type rpcCall struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func readCall(t *testing.T, r *http.Request) rpcCall {
	t.Helper()
	var c rpcCall
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		t.Errorf("decode request: %v", err)
	}
	return c
}

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serve replays file for every request of method.
func serve(t *testing.T, method, file string) *httptest.Server {
	body := testdata(t, file)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := readCall(t, r); c.Method != method {
			t.Errorf("method = %q, want %q", c.Method, method)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDASAsset(t *testing.T) {
	t.Parallel()
	srv := serve(t, "getAsset", "getAsset.json")
	a, err := New(srv.URL, srv.Client(), Options{}).Asset(context.Background(), "DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV")
	if err != nil {
		t.Fatal(err)
	}
	c := a.Compression
	if !c.Compressed || c.LeafID != 1234 || c.DataHash != "8MaFCG9eJt7KMn74Bakqk2FVRdgB3HU2D79Hoh1mb79d" ||
		c.CreatorHash != "49iv77hdgxiRHDiRftcYjzn4mbXCdQpcYqdXmesndUwk" || c.Tree != "4SdqgFcQzs6C5XrYF5SaPQrcsLKwip4CLEF8qDGnzsLG" || c.IsV2() {
		t.Errorf("compression = %+v", c)
	}
	if a.Ownership.Owner != "3GSXQm66NE2wDpw31q7uC9DDoMjG2c2LvHgVnjmTgkuv" || a.Ownership.Delegate != nil {
		t.Errorf("ownership = %+v", a.Ownership)
	}
}

func TestDASAssetProof(t *testing.T) {
	t.Parallel()
	srv := serve(t, "getAssetProof", "getAssetProof.json")
	p, err := New(srv.URL, nil, Options{}).AssetProof(context.Background(), "DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Proof) != 14 || p.NodeIndex != 1<<14+1234 || p.Root != "D8zpaETpXDfQxZyd14gqBcYY7vwyDNbwnxxLWWPzyTdf" || p.TreeID != "4SdqgFcQzs6C5XrYF5SaPQrcsLKwip4CLEF8qDGnzsLG" {
		t.Errorf("proof = %+v", p)
	}
}

func TestDASErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		is      error
		want    string
	}{
		{"asset not found", func(w http.ResponseWriter, r *http.Request) {
			w.Write(testdata(t, "getAsset-notfound.json"))
		}, ErrNotFound, "das getAsset: rpc error -32000: Asset Not Found"},
		{"rpc error in a 429", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write(testdata(t, "rate-limited.json"))
		}, nil, "das getAsset: rpc error -32429: rate limited"},
		{"status without rpc error", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
		}, nil, "das getAsset: status 502 Bad Gateway"},
		{"malformed body", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"jsonrpc":"2.0","result":`)
		}, nil, "das getAsset: decode: unexpected end of JSON input"},
		{"null result", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"jsonrpc":"2.0","result":null,"id":"reclaim"}`)
		}, nil, "das getAsset: response without result"},
		{"result of another shape", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"jsonrpc":"2.0","result":[1,2],"id":"reclaim"}`)
		}, nil, "das getAsset: decode result: json: cannot unmarshal array into Go value of type das.Asset"},
		{"body over the cap", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","result":{"id":"%s"}}`, strings.Repeat("x", 2048))
		}, nil, "das getAsset: response larger than 1024 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			_, err := New(srv.URL, nil, Options{MaxBody: 1024}).Asset(context.Background(), "x")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
			}
			if tc.is == nil && errors.Is(err, ErrNotFound) {
				t.Errorf("%v matches ErrNotFound", err)
			}
		})
	}
}

// TestDASTimeout: a handler that never answers is cut off by the client's own
// timeout; the handler is released when the request's context ends.
func TestDASTimeout(t *testing.T) {
	t.Parallel()
	h, release := hang()
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer release()
	start := time.Now()
	_, err := New(srv.URL+"/v0/k3y?api-key=k3y", nil, Options{Timeout: 100 * time.Millisecond}).AssetProof(context.Background(), "x")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	if strings.Contains(err.Error(), "k3y") {
		t.Errorf("error %q shows the endpoint's key", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestDASCallerDeadline: the caller's context bounds the call too.
func TestDASCallerDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	h, release := hang()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		h(w, r)
	}))
	defer srv.Close()
	defer release()
	if _, err := New(srv.URL, nil, Options{}).Asset(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
}

// hang answers nothing until the request's context ends or the test is over
// (a server only notices a client hanging up while it reads, so the test's
// end releases the handler for srv.Close). The body is read first.
func hang() (h http.HandlerFunc, release func()) {
	done := make(chan struct{})
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}, func() { close(done) }
}

func TestDASAssetsByOwnerPages(t *testing.T) {
	t.Parallel()
	var pages atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := readCall(t, r)
		var p byOwnerParams
		if err := json.Unmarshal(c.Params, &p); err != nil {
			t.Error(err)
		}
		pages.Add(1)
		if c.Method != "getAssetsByOwner" || p.OwnerAddress != "W" || p.Limit != 1000 || !p.DisplayOptions.ShowFungible || !p.DisplayOptions.ShowCollectionMetadata {
			t.Errorf("request %s %s", c.Method, c.Params)
		}
		n := PageLimit
		if p.Page == 3 {
			n = 7
		}
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(`{"interface":"V1_NFT","id":"p%d-%d"}`, p.Page, i)
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":{"total":%d,"limit":1000,"page":%d,"items":[%s]},"id":"reclaim"}`, n, p.Page, strings.Join(items, ","))
	}))
	defer srv.Close()
	got, err := New(srv.URL, nil, Options{}).AssetsByOwner(context.Background(), "W")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2007 || pages.Load() != 3 || got[0].ID != "p1-0" || got[2006].ID != "p3-6" {
		t.Errorf("%d assets in %d pages", len(got), pages.Load())
	}
}

func TestDASAssetsByOwnerErrors(t *testing.T) {
	t.Parallel()
	full := func(w http.ResponseWriter, page int) {
		items := strings.TrimSuffix(strings.Repeat(`{"id":"a"},`, PageLimit), ",")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":{"page":%d,"items":[%s]}}`, page, items)
	}
	t.Run("too many pages", func(t *testing.T) {
		t.Parallel()
		var page atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			full(w, int(page.Add(1)))
		}))
		defer srv.Close()
		_, err := New(srv.URL, nil, Options{MaxPages: 2}).AssetsByOwner(context.Background(), "W")
		if err == nil || err.Error() != "das getAssetsByOwner: more than 2 pages of 1000 assets" || page.Load() != 2 {
			t.Errorf("err = %v after %d pages", err, page.Load())
		}
	})
	t.Run("second page fails", func(t *testing.T) {
		t.Parallel()
		var page atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if page.Add(1) == 2 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			full(w, 1)
		}))
		defer srv.Close()
		_, err := New(srv.URL, nil, Options{}).AssetsByOwner(context.Background(), "W")
		if err == nil || err.Error() != "page 2: das getAssetsByOwner: status 503 Service Unavailable" {
			t.Errorf("err = %v", err)
		}
	})
}
