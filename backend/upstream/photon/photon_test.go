package photon

import (
	"context"
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

	"github.com/gagliardetto/solana-go"
)

var wallet = solana.MustPublicKeyFromBase58("3GSXQm66NE2wDpw31q7uC9DDoMjG2c2LvHgVnjmTgkuv")

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
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
