package e2e

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// rebroadcasts are the sends of sig after the submit's: without preflight.
func rebroadcasts(p *harness.FaultProxy, sig string) []harness.Send {
	var out []harness.Send
	for _, s := range p.SendsOf(sig) {
		if s.SkipPreflight {
			out = append(out, s)
		}
	}
	return out
}

// submitAll prepares and submits a reclaim of each wallet through s, all
// of which must be answered submitted.
func (s *service) submitAll(t *testing.T, ws []landingWallet) []reclaim {
	t.Helper()
	rs := make([]reclaim, len(ws))
	for i, w := range ws {
		rs[i] = s.prepare(t, w)
		if res := s.submitOne(t, rs[i]); res.Status != "submitted" || res.Signature == nil || *res.Signature != rs[i].sig {
			t.Fatalf("submit %d: %v", i, res)
		}
	}
	return rs
}

// waitLanded waits until every one of sigs is confirmed at the validator.
func waitLanded(t *testing.T, v *harness.Validator, timeout time.Duration, sigs ...string) {
	t.Helper()
	parsed := make([]solana.Signature, len(sigs))
	for i, s := range sigs {
		parsed[i] = solana.MustSignatureFromBase58(s)
	}
	waitFor(t, "transactions confirmed", timeout, func() bool {
		st, err := v.RPC.GetSignatureStatuses(context.Background(), true, parsed...)
		if err != nil {
			return false
		}
		for i, s := range st.Value {
			if s == nil || s.ConfirmationStatus == rpc.ConfirmationStatusProcessed {
				return false
			}
			if s.Err != nil {
				t.Fatalf("%s failed on chain: %v", sigs[i], s.Err)
			}
		}
		return true
	})
}

// TestRebroadcastAcrossARestart: every send is lost (the proxy answers the
// signature and forwards nothing) while five reclaims are submitted and
// rebroadcast; the instance is killed (SIGKILL) with all of them in flight.
// Restarted on the same ledger, it sends them again from the bytes the
// ledger kept: the three whose sends now get through land and are counted;
// the two whose sends are still lost are sent until their blockhash
// expires and never after (every send arrived at a block height within
// their life), end expired, and their ticket answers the expiry, not
// `duplicate`. Nothing is forgotten: all five are settled.
func TestRebroadcastAcrossARestart(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	proxy := v.NewFaultProxy(t)
	proxy.Set("sendTransaction", harness.Always(harness.Fault{Kind: harness.Drop}))
	s := startService(t, v, "SOLANA_RPC_URL="+proxy.URL)
	rs := s.submitAll(t, landingWallets(t, v, 5))
	waitFor(t, "each reclaim rebroadcast", 20*time.Second, func() bool {
		for _, r := range rs {
			if len(rebroadcasts(proxy, r.sig)) == 0 {
				return false
			}
		}
		return true
	})
	s.server.Stop(syscall.SIGKILL)
	before := len(proxy.Sends())

	lost, landing := rs[:2], rs[2:]
	lostSigs := map[string]bool{lost[0].sig: true, lost[1].sig: true}
	proxy.Set("sendTransaction", func(c harness.FaultCall) harness.Fault {
		if lostSigs[c.Signature] {
			return harness.Fault{Kind: harness.Drop}
		}
		return harness.Fault{Kind: harness.Forward}
	})
	s.server = s.serve()
	s.url = s.server.URL
	var landingSigs []string
	for _, r := range landing {
		landingSigs = append(landingSigs, r.sig)
	}
	// A lease of the killed instance's last pass may hold its entries 30 s.
	waitLanded(t, v, 60*time.Second, landingSigs...)
	waitFor(t, "stats count the landed reclaims", 60*time.Second, func() bool { return s.transactions(t) == int64(len(landing)) })

	last := max(lost[0].lastValid, lost[1].lastValid)
	waitFor(t, "the lost reclaims' blockhashes expire", 90*time.Second, func() bool {
		h, err := v.RPC.GetBlockHeight(context.Background(), rpc.CommitmentProcessed)
		return err == nil && h > last
	})
	for _, r := range lost {
		if res := s.submitOne(t, r); res.Status != "failed" || res.Error == nil || res.Error.Code != "TICKET_EXPIRED" {
			t.Fatalf("the expired reclaim's ticket answered %v, want its expiry", res)
		}
	}
	waitFor(t, "the tracker settles the lost reclaims expired", 30*time.Second, func() bool {
		return metric(t, s, `reclaim_tracker_settled_total{status="expired"}`) == 2
	})
	for _, r := range lost {
		sends := proxy.SendsOf(r.sig)
		for _, sd := range sends {
			if sd.Height > r.lastValid {
				t.Errorf("%s sent at block height %d, past its last valid %d", r.sig, sd.Height, r.lastValid)
			}
		}
		t.Logf("lost %s: %d sends, the last at block height %d of %d", r.sig[:8], len(sends), sends[len(sends)-1].Height, r.lastValid)
	}
	for _, r := range landing {
		after := 0
		for _, sd := range proxy.SendsOf(r.sig) {
			if sd.Fault == harness.Forward {
				after++
			}
		}
		if after == 0 {
			t.Errorf("%s landed without a send after the restart", r.sig)
		}
	}
	t.Logf("%d sends before the kill, %d after", before, len(proxy.Sends())-before)
	if got := s.transactions(t); got != int64(len(landing)) {
		t.Fatalf("stats count %d, want %d", got, len(landing))
	}
}

// TestRebroadcastSharedByInstances: two instances on one ledger, each
// calling the cluster through its own path of the proxy, rebroadcast the
// reclaims one of them took between them: each transaction is sent again
// once per interval, by one instance at a time, never by both.
func TestRebroadcastSharedByInstances(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	proxy := v.NewFaultProxy(t)
	proxy.Set("sendTransaction", harness.Always(harness.Fault{Kind: harness.Drop}))
	a := startService(t, v, "SOLANA_RPC_URL="+proxy.URL+"/a")
	b := a.another("SOLANA_RPC_URL=" + proxy.URL + "/b")
	rs := a.submitAll(t, landingWallets(t, v, 4))
	const rounds = 6
	waitFor(t, "rebroadcasts by both instances", 45*time.Second, func() bool {
		paths := map[string]bool{}
		for _, r := range rs {
			rb := rebroadcasts(proxy, r.sig)
			if len(rb) < rounds {
				return false
			}
			for _, sd := range rb {
				paths[sd.Path] = true
			}
		}
		return paths["/a"] && paths["/b"]
	})
	byPath := map[string]int{}
	for _, r := range rs {
		rb := rebroadcasts(proxy, r.sig)
		slices.SortFunc(rb, func(x, y harness.Send) int { return x.At.Compare(y.At) })
		span := rb[len(rb)-1].At.Sub(rb[0].At)
		// Once every 2 s: both instances sending each would make it twice.
		if most := int(span/(2*time.Second)) + 2; len(rb) > most {
			t.Errorf("%s rebroadcast %d times in %s, at most %d once per interval", r.sig, len(rb), span.Round(time.Millisecond), most)
		}
		for _, sd := range rb {
			byPath[sd.Path]++
		}
	}
	t.Logf("rebroadcasts by instance: %v", byPath)
	proxy.Set("sendTransaction", nil)
	var sigs []string
	for _, r := range rs {
		sigs = append(sigs, r.sig)
	}
	waitLanded(t, v, 30*time.Second, sigs...)
	waitFor(t, "stats count each once", 60*time.Second, func() bool { return b.transactions(t) == int64(len(rs)) })
}
