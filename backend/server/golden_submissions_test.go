package server_test

import (
	"context"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

// submissions records the status route (issue 21): the owner's
// submissions in every state, another wallet's and a never-seen signature
// (unknown), the scopes that may call it, and the bad queries.
func (f *flow) submissions(g *golden) {
	t, owner, key := g.t, f.owner.String(), seeded("owner")
	sigOf := func(e entry) string {
		tx, err := solana.TransactionFromBase64(e.TransactionBase64)
		if err != nil {
			t.Fatal(err)
		}
		return tx.Signatures[0].String()
	}
	// The gRPC build's transactions stayed submitted: one lands at a slot,
	// one fails, one stays.
	issuer := ticket.NewIssuer(g.e.keys)
	grpc := f.built[grpcProto].GetTransactions()
	settle := func(i int, do func(jti string) (bool, error)) {
		c, err := issuer.Verify(grpc[i].GetSubmissionTicket())
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := do(c.ID); err != nil || !ok {
			t.Fatalf("settle %d: %v %v", i, ok, err)
		}
	}
	settle(0, func(jti string) (bool, error) {
		c, _ := issuer.Verify(grpc[0].GetSubmissionTicket())
		landed := ledger.Figures{GrossRebate: int64(c.GrossRebate), NetRebate: c.NetRebate - 10_000,
			DonationAmount: int64(c.DonationAmount), NetworkFee: int64(c.NetworkFee) + 10_000, ServiceFee: int64(c.ServiceFee)}
		return g.e.store.ConfirmEntry(context.Background(), jti, landed, 412_345_678, g.e.clock.Now())
	})
	settle(1, func(jti string) (bool, error) {
		return g.e.store.SetEntryStatus(context.Background(), jti, ledger.StatusFailed,
			"{InstructionError:[1 {Custom:11}]}", g.e.clock.Now())
	})
	g.out.WriteString("# The gRPC build's first transaction is confirmed at slot 412345678 with a\n" +
		"# 10000-lamport higher fee than promised, its second failed; the rest stay submitted.\n\n")

	sigs := func(es []entry) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = sigOf(e)
		}
		return out
	}
	grpcSigs := sigs(signedAll(t, f.built[grpcProto], key))
	restSig := sigOf(signedAll(t, f.built[restJSON], key)[0])
	otherSig := sigOf(signedAll(t, f.otherBuilt, seeded("other wallet"))[0])
	never := solana.SignatureFromBytes(make([]byte, 64)).String()
	query := func(sigs ...string) string { return "signature=" + strings.Join(sigs, "&signature=") }
	all := append([]string{restSig}, grpcSigs...)
	all = append(all, otherSig, never)

	g.send(call{name: "every state, another wallet's and a never-seen signature (unknown)", op: opSubmissions,
		address: owner, cred: f.key, wires: allWires, query: query(all...)})
	g.send(call{name: "a session with wallet:read alone", op: opSubmissions, address: owner,
		cred: f.lacking["transactions:submit"], wires: jsonWires, query: query(restSig)})
	g.send(call{name: "a session with transactions:submit and without wallet:read", op: opSubmissions, address: owner,
		cred: f.lacking["wallet:read"], wires: jsonWires, query: query(restSig)})
	neither := g.newSession("create a session with neither wallet:read nor transactions:submit", f.key,
		map[string]any{"walletAddress": owner, "scopes": []string{"transactions:build", "wallet:stream"}})
	g.send(call{name: "a session with neither scope", op: opSubmissions, address: owner, cred: neither,
		wires: allWires, query: query(restSig)})
	g.send(call{name: "another wallet's session on the owner's path", op: opSubmissions, address: owner,
		cred: f.otherSession, wires: jsonWires, query: query(restSig)})
	g.send(call{name: "the other wallet asks for the owner's signature: unknown", op: opSubmissions,
		address: f.other.String(), cred: f.otherSession, wires: jsonWires, query: query(restSig, otherSig)})
	g.send(call{name: "another project's API key: unknown", op: opSubmissions, address: owner, cred: f.noDonation,
		wires: jsonWires, query: query(restSig)})

	final := query(restSig, grpcSigs[0], grpcSigs[1], never)
	start := time.Now()
	g.send(call{name: "waitSeconds=30 when every one is final: answered at once", op: opSubmissions, address: owner,
		cred: f.key, wires: restJSON, query: final + "&waitSeconds=30"})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a wait for submissions all final took %s, want an answer at once", took)
	}
	start = time.Now()
	g.e.whileClockRuns(func() {
		g.send(call{name: "waitSeconds=1 with one still submitted: answered when the wait ends", op: opSubmissions,
			address: owner, cred: f.key, wires: restJSON, query: query(grpcSigs[len(grpcSigs)-1]) + "&waitSeconds=1"})
	})
	if took := time.Since(start); took < time.Second {
		t.Errorf("a wait of 1 s for a submission in flight took %s", took)
	}

	// The tracker finds the last one at confirmed commitment: landed, with
	// its slot and figures; a wait ends at landed unless it waits for final.
	settle(2, func(jti string) (bool, error) {
		c, _ := issuer.Verify(grpc[2].GetSubmissionTicket())
		landed := ledger.Figures{GrossRebate: int64(c.GrossRebate), NetRebate: c.NetRebate,
			DonationAmount: int64(c.DonationAmount), NetworkFee: int64(c.NetworkFee), ServiceFee: int64(c.ServiceFee)}
		return g.e.store.LandEntry(context.Background(), jti, landed, 412_345_700, g.e.clock.Now())
	})
	g.out.WriteString("# The gRPC build's last transaction is landed at slot 412345700 as promised.\n\n")
	start = time.Now()
	g.send(call{name: "waitSeconds=30 when every one is landed or final: answered at once", op: opSubmissions, address: owner,
		cred: f.key, wires: restJSON, query: query(grpcSigs...) + "&waitSeconds=30"})
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a wait for submissions all landed or final took %s, want an answer at once", took)
	}
	start = time.Now()
	g.e.whileClockRuns(func() {
		g.send(call{name: "waitSeconds=1&waitUntil=final with one landed: answered when the wait ends", op: opSubmissions,
			address: owner, cred: f.key, wires: restJSON, query: query(grpcSigs[len(grpcSigs)-1]) + "&waitSeconds=1&waitUntil=final"})
	})
	if took := time.Since(start); took < time.Second {
		t.Errorf("a wait of 1 s until final for a landed submission took %s", took)
	}

	many := make([]string, 101)
	for i := range many {
		many[i] = never
	}
	for _, c := range []struct{ name, query string }{
		{"no signature", ""},
		{"an empty signature", "signature="},
		{"a signature that is not base58", "signature=0OIl"},
		{"a signature of 32 bytes", "signature=" + solana.PublicKey{}.String()},
		{"101 signatures", query(many...)},
		{"waitSeconds=31", query(never) + "&waitSeconds=31"},
		{"waitSeconds=-1", query(never) + "&waitSeconds=-1"},
		{"waitUntil=confirmed", query(never) + "&waitSeconds=5&waitUntil=confirmed"},
		{"an unknown parameter", query(never) + "&wait=5"},
	} {
		w := jsonWires
		if strings.Contains(c.query, "=-1") || strings.Contains(c.query, "wait=") {
			w = restJSON // no Connect form
		}
		g.send(call{name: c.name, op: opSubmissions, address: owner, cred: f.key, wires: w, query: c.query})
	}
	g.send(call{name: "a wallet not an address", op: opSubmissions, address: "nope", cred: f.key, wires: jsonWires,
		query: query(never)})
}

// whileClockRuns runs f with the service's clock running as the machine's
// from where it stands, then sets it back: a status wait is timed by the
// service's clock, and the answers after it keep their times.
func (e *env) whileClockRuns(f func()) {
	base, started := e.clock.Now(), time.Now()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				e.clock.Set(base.Add(time.Since(started)))
			}
		}
	}()
	f()
	close(stop)
	<-done
	e.clock.Set(base)
}
