package txbuild

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// slowRPC answers as the fake cluster after a fixed delay per request, as
// a remote provider would; calls counts the requests.
type slowRPC struct {
	*fakeRPC
	delay time.Duration
	calls atomic.Int64
}

// wait stands for the request's round trip.
func (s *slowRPC) wait() {
	s.calls.Add(1)
	time.Sleep(s.delay) // the provider's latency, not synchronisation
}

func (s *slowRPC) GetLatestBlockhash(ctx context.Context, c rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error) {
	s.wait()
	return s.fakeRPC.GetLatestBlockhash(ctx, c)
}

func (s *slowRPC) GetMultipleAccountsWithOpts(ctx context.Context, keys []solana.PublicKey, o *rpc.GetMultipleAccountsOpts) (*rpc.GetMultipleAccountsResult, error) {
	s.wait()
	return s.fakeRPC.GetMultipleAccountsWithOpts(ctx, keys, o)
}

func (s *slowRPC) GetMinimumBalanceForRentExemption(ctx context.Context, size uint64, c rpc.CommitmentType) (uint64, error) {
	s.wait()
	return s.fakeRPC.GetMinimumBalanceForRentExemption(ctx, size, c)
}

func (s *slowRPC) GetRecentPrioritizationFees(ctx context.Context, accounts solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
	s.wait()
	return s.fakeRPC.GetRecentPrioritizationFees(ctx, accounts)
}

func (s *slowRPC) SimulateTransactionWithOpts(ctx context.Context, tx *solana.Transaction, o *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
	s.wait()
	return s.fakeRPC.SimulateTransactionWithOpts(ctx, tx, o)
}

// BenchmarkBuild500At100ms builds 500 closes (half SPL Token, half
// Token-2022) with a donation and the medium priority, v0 and v1, against
// a cluster that answers each request after 100 ms, without a Poller (every
// build asks the blockhash and fees itself): ms/op is the build's time,
// requests/op its requests, txs/op its transactions.
//
//	go test ./backend/engine/txbuild -run '^$' -bench Build500At100ms -benchtime 5x
func BenchmarkBuild500At100ms(b *testing.B) {
	items := make([]Selected, 500)
	for i := range items {
		items[i] = empty(fmt.Sprint("bench ", i))
		if i%2 == 1 {
			items[i] = empty22(fmt.Sprint("bench ", i))
		}
	}
	for _, version := range []uint32{Version0, Version1} {
		b.Run(fmt.Sprintf("v%d", version), func(b *testing.B) {
			f := newFake()
			f.fees = func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
				return []rpc.PriorizationFeeResult{{Slot: 1, PrioritizationFee: 10_000}}, nil
			}
			slow := &slowRPC{fakeRPC: f, delay: 100 * time.Millisecond}
			builder := NewBuilder(slow, WithGuardHeadroomUnits(6_000))
			p := Params{Wallet: wallet, Items: items, DonationPercentage: 0.1, DonationWallet: &donee,
				PriorityLevel: PriorityMedium, HeadroomBytes: 200, Version: version}
			var txs int
			b.ResetTimer()
			for b.Loop() {
				res, err := builder.Build(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				txs = len(res.Txs)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
			b.ReportMetric(float64(slow.calls.Load())/float64(b.N), "requests/op")
			b.ReportMetric(float64(txs), "txs/op")
		})
	}
}
