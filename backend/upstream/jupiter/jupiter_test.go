package jupiter

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestAssetsPrices(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    map[string]float64
		wantErr bool
	}{
		{"known, null and unknown", func(w http.ResponseWriter, r *http.Request) {
			if got := r.URL.Query().Get("ids"); got != "A,B,C" {
				t.Errorf("ids = %q", got)
			}
			fmt.Fprint(w, `{"data":{"A":{"id":"A","type":"derivedPrice","price":"1.23"},"B":null},"timeTaken":0.01}`)
		}, map[string]float64{"A": 1.23}, false},
		{"numeric, negative and garbage prices", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data":{"A":{"id":"A","price":2.5},"B":{"id":"B","price":"-1"},"C":{"id":"C","price":"x"}}}`)
		}, map[string]float64{"A": 2.5}, false},
		{"mints not asked for are dropped", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data":{"Z":{"id":"Z","price":"9"}}}`)
		}, map[string]float64{}, false},
		{"status 500", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "down", http.StatusInternalServerError)
		}, nil, true},
		{"malformed body", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data":`)
		}, nil, true},
		{"body over the cap", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"data":{},"pad":"%s"}`, strings.Repeat("x", DefaultMaxBody))
		}, nil, true},
		{"slower than the timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			start := time.Now()
			got, err := New(srv.URL, srv.Client()).Prices(context.Background(), []string{"A", "B", "C"})
			if took := time.Since(start); took > DefaultTimeout+500*time.Millisecond {
				t.Errorf("took %v", took)
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("prices = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAssetsPricesChunksOf100(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		ids := strings.Split(r.URL.Query().Get("ids"), ",")
		if len(ids) > MaxIDs {
			t.Errorf("%d ids in one request", len(ids))
		}
		var parts []string
		for _, id := range ids {
			parts = append(parts, fmt.Sprintf(`%q:{"id":%q,"price":"1"}`, id, id))
		}
		fmt.Fprintf(w, `{"data":{%s}}`, strings.Join(parts, ","))
	}))
	defer srv.Close()
	var mints []string
	for i := range 250 {
		mints = append(mints, fmt.Sprintf("M%d", i))
	}
	got, err := New(srv.URL+"/price/v2?vsToken=USDC", nil).Prices(context.Background(), mints)
	if err != nil || len(got) != 250 || requests.Load() != 3 {
		t.Errorf("%d prices in %d requests, %v", len(got), requests.Load(), err)
	}
}

// TestPricesErrorKeepsTheKeyOut: a price API that cannot be reached gives an
// error naming its host, not the key in its URL (errors are logged).
func TestPricesErrorKeepsTheKeyOut(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err := New(srv.URL+"/price/v2?api-key=k3y", nil).Prices(context.Background(), []string{"A"})
	if err == nil || strings.Contains(err.Error(), "k3y") || !strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("err = %v", err)
	}
}
