package assets

import (
	"context"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// BenchmarkList10000 lists a wallet of 10,000 empty token accounts (half
// SPL Token, half Token-2022, each of its own mint, as the latency
// benchmark's) from a cluster served over JSON-RPC on loopback, through
// solana-go's client as the service does: B/op is everything the process
// allocates for one listing, the cluster's answers included, so discovery's
// peak memory is less; live-B is what the listing's items hold once it
// returns.
//
//	go test -run '^$' -bench List10000 -benchmem ./backend/engine/assets/
func BenchmarkList10000(b *testing.B) {
	w := newWorld(b)
	for i := range 10_000 {
		program, decimals := solana.TokenProgramID, uint8(6)
		if i%2 == 1 {
			program, decimals = solana.Token2022ProgramID, 2
		}
		w.account(program, tokenRent, acct{mint: w.mint(program, decimals, 0, nil), token2022: program.Equals(solana.Token2022ProgramID)})
	}
	srv := httptest.NewServer(&jsonCluster{c: w.c})
	defer srv.Close()
	d := NewDiscoverer(rpc.New(srv.URL), nil)
	ctx := rpclimit.With(context.Background(), rpclimit.New(rpclimit.Default))
	var before, after runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		l, err := d.List(ctx, w.wallet)
		if err != nil || len(l.Items) != 10_000 {
			b.Fatalf("%d items, %v", len(l.Items), err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "live-B")
		runtime.KeepAlive(l)
	}
}
