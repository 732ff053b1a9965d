// Command barestack is the ceiling Reclaim's per-request cost is measured
// against (BenchmarkStackSideBySide, e2e/stack_bench_test.go): the same
// generated ProjectService, served by Connect and transcoded to REST by
// vanguard as Reclaim serves it, over HTTP/1.1 and h2c, with a GetStats that
// does no work (no credentials, no limits, no storage, no observation). It
// speaks `reclaim serve`'s start line so the tests' reclaimd package runs it:
// `barestack serve` with RECLAIM_ADDR, a JSON "listening" line on stderr, and
// an exit on SIGINT or SIGTERM. Tests only.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/vanguard"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

type stats struct {
	reclaimv1connect.UnimplementedProjectServiceHandler
}

func (stats) GetStats(context.Context, *connect.Request[reclaimv1.GetStatsRequest]) (*connect.Response[reclaimv1.GetStatsResponse], error) {
	return connect.NewResponse(&reclaimv1.GetStatsResponse{
		TotalGrossRebate: 6117840, TotalNetRebate: 5501056, TotalTransactionCount: 3,
		TotalWallets: 1, TotalDonations: 1, TotalDonationAmount: 611784,
	}), nil
}

func main() {
	if err := run(); err != nil {
		line, _ := json.Marshal(map[string]string{"msg": "failed", "error": err.Error()})
		os.Stderr.Write(append(line, '\n'))
		os.Exit(1)
	}
}

func run() error {
	path, h := reclaimv1connect.NewProjectServiceHandler(stats{})
	transcoder, err := vanguard.NewTranscoder([]*vanguard.Service{vanguard.NewService(path, h)})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle(path, h)
	mux.Handle("/v1/", transcoder)
	addr := os.Getenv("RECLAIM_ADDR")
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: mux, Protocols: &protocols, ReadHeaderTimeout: 10 * time.Second}
	line, _ := json.Marshal(map[string]string{"msg": "listening", "addr": ln.Addr().String()})
	os.Stderr.Write(append(line, '\n'))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
