package relay_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// v1Build is a v1 build of the fixture's wallet: a donation transfer, the
// limit and a total priority fee in the config mask, and its ticket as the
// build side issues it (the hash and digest of the message alone).
type v1Build struct {
	ixs    []solana.Instruction
	config txv1.Config
	ticket string
}

func (f *fixture) buildV1(t *testing.T, donation solana.PublicKey) v1Build {
	t.Helper()
	b := v1Build{ixs: []solana.Instruction{system.NewTransferInstruction(203_928, f.wallet.PublicKey(), donation).Build()}}
	b.config.SetComputeUnitLimit(20_000)
	b.config.SetPriorityFee(100)
	m := f.compileV1(t, b.config, b.ixs...)
	msg, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b.ticket = f.guardedTicket(t, msg, donation)
	return b
}

func (f *fixture) compileV1(t *testing.T, c txv1.Config, ixs ...solana.Instruction) *txv1.Message {
	t.Helper()
	m, err := txv1.Compile(f.wallet.PublicKey(), solana.Hash{1}, c, ixs...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// signedV1 is the v1 transaction of c and ixs signed by key, raw.
func (f *fixture) signedV1(t *testing.T, key solana.PrivateKey, c txv1.Config, ixs ...solana.Instruction) []byte {
	t.Helper()
	m := f.compileV1(t, c, ixs...)
	tx := txv1.Transaction{Message: *m}
	var err error
	if key.PublicKey() == f.wallet.PublicKey() {
		err = tx.Sign(key)
	} else {
		// Another key's signature over the same message in the wallet's slot.
		tx.Signatures = make([]solana.Signature, 1)
		var msg []byte
		if msg, err = m.MarshalBinary(); err == nil {
			tx.Signatures[0], err = key.Sign(msg)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestSubmitV1: a wallet-signed v1 transaction is checked and sent as a v0
// one is. As built, and with a guard appended and the mask's limit and fee
// raised within the ticket's bounds, it is sent once, the exact signed
// bytes, and its signature (the one after the message) is the entry's. A
// tampered transfer, a raised heap size in the mask, a fee beyond the
// bound, another key's signature in the wallet's slot and bytes cut short
// are refused with the v0 codes, and nothing is sent.
func TestSubmitV1(t *testing.T) {
	t.Parallel()
	donation := solana.NewWallet().PublicKey()
	accepted := []struct {
		name   string
		config func(*txv1.Config)
		guard  bool
	}{
		{"as built", func(*txv1.Config) {}, false},
		{"a guard appended, the limit and fee raised", func(c *txv1.Config) { c.SetComputeUnitLimit(26_000); c.SetPriorityFee(50_000) }, true},
	}
	for _, a := range accepted {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var sent [][]byte
			var mu sync.Mutex
			f.rpc.send = func(raw []byte) error { mu.Lock(); defer mu.Unlock(); sent = append(sent, raw); return nil }
			b := f.buildV1(t, donation)
			c, ixs := b.config, b.ixs
			a.config(&c)
			if a.guard {
				ixs = append(ixs, f.assertion())
			}
			raw := f.signedV1(t, f.wallet, c, ixs...)
			res := f.submit(t, base64.StdEncoding.EncodeToString(raw), b.ticket)
			want := solana.SignatureFromBytes(raw[len(raw)-64:]).String()
			if res.Status != relay.StatusSubmitted || res.Signature != want {
				t.Fatalf("got %+v, want submitted as %s", res, want)
			}
			if len(sent) != 1 || !bytes.Equal(sent[0], raw) {
				t.Fatalf("sent %d transactions, want the signed bytes once", len(sent))
			}
			e, err := f.store.EntryByTicketJTI(context.Background(), mustJTI(t, f, b.ticket))
			if err != nil || e.Signature != want || !bytes.Equal(e.Raw, raw) || e.DonationWallet != donation.String() {
				t.Fatalf("entry %+v %v", e, err)
			}
		})
	}

	f := newFixture(t)
	log := &attemptLog{Store: f.store}
	f.relay = relay.New(f.rpc, log, f.issuer, func() time.Time { return f.now })
	b := f.buildV1(t, donation)
	stranger := solana.NewWallet().PrivateKey
	tampered := system.NewTransferInstruction(203_927, f.wallet.PublicKey(), donation).Build()
	with := func(edit func(*txv1.Config)) txv1.Config {
		c := b.config
		edit(&c)
		return c
	}
	asBuilt := f.signedV1(t, f.wallet, b.config, b.ixs...)
	refused := []struct {
		name string
		raw  []byte
		code relay.Code
		want string
	}{
		{"a tampered transfer", f.signedV1(t, f.wallet, b.config, tampered, f.assertion()), relay.CodeHashMismatch, "instruction 0 (System transfer) changed its data"},
		{"a heap size in the mask", f.signedV1(t, f.wallet, with(func(c *txv1.Config) { c.SetHeapSize(256 * 1024) }), b.ixs...), relay.CodeHashMismatch,
			"the config mask's heap size changed: 262,144 bytes instead of the built unset"},
		{"a fee beyond the bound", f.signedV1(t, f.wallet, with(func(c *txv1.Config) { c.SetPriorityFee(100_001) }), b.ixs...), relay.CodeHashMismatch,
			"priority fee of 100,001 lamports on a limit of 20,000 units"},
		{"another key's signature", f.signedV1(t, stranger, b.config, b.ixs...), relay.CodeSignatureInvalid, "is not signed by wallet"},
		{"cut short", asBuilt[:len(asBuilt)-1], relay.CodeInvalidTransaction, "it starts as a v1 transaction (first byte 0x81) but is not one"},
	}
	for _, c := range refused {
		res := f.submit(t, base64.StdEncoding.EncodeToString(c.raw), b.ticket)
		if res.Status != relay.StatusFailed || res.Code != c.code || !strings.Contains(res.Message, c.want) {
			t.Fatalf("%s: %+v, want %s saying %q", c.name, res, c.code, c.want)
		}
	}
	if n := f.rpc.sends.Load(); n != 0 {
		t.Fatalf("%d refused transactions were sent", n)
	}
	// The ticket was not consumed: the transaction as built lands.
	if res := f.submit(t, base64.StdEncoding.EncodeToString(asBuilt), b.ticket); res.Status != relay.StatusSubmitted {
		t.Fatalf("as built after the refusals: %+v", res)
	}
	// The submission log has a line per entry, with its code, and the sent
	// one's signature is the one after the message.
	jti := mustJTI(t, f, b.ticket)
	if len(log.lines) != len(refused)+1 {
		t.Fatalf("%d lines in the submission log, want %d", len(log.lines), len(refused)+1)
	}
	for i, l := range log.lines[:len(refused)] {
		if l.Code != string(refused[i].code) || l.TicketJTI != jti || l.Signature != "" {
			t.Fatalf("line %d: %+v", i, l)
		}
	}
	if l := log.lines[len(refused)]; l.Status != string(relay.StatusSubmitted) || l.Signature != solana.SignatureFromBytes(asBuilt[len(asBuilt)-64:]).String() {
		t.Fatalf("the sent entry's line: %+v", l)
	}
}

// TestReportV1: a v1 transaction the wallet sent itself and reports by its
// signature is read back from the cluster (getTransaction, version 1,
// base64) and checked against the ticket as a v0 one: another project's
// ticket of another build is HASH_MISMATCH and records nothing (the
// front-run), the ticket it was built for is submitted.
func TestReportV1(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	donation := solana.NewWallet().PublicKey()
	b := f.buildV1(t, donation)
	other := f.buildV1(t, solana.NewWallet().PublicKey())
	raw := f.signedV1(t, f.wallet, b.config, append(b.ixs, f.assertion())...)
	sig := solana.SignatureFromBytes(raw[len(raw)-64:])
	f.rpc.mu.Lock()
	f.rpc.landed = map[solana.Signature][]byte{sig: raw}
	f.rpc.mu.Unlock()
	report := func(tok string) relay.Result {
		res, err := f.relay.Submit(context.Background(), f.project.ID, f.wallet.PublicKey(), []relay.Signed{{Signature: sig.String(), Ticket: tok}})
		if err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	if res := report(other.ticket); res.Status != relay.StatusFailed || res.Code != relay.CodeHashMismatch || !strings.Contains(res.Message, "changed its accounts") {
		t.Fatalf("another build's ticket: %+v", res)
	}
	if res := report(b.ticket); res.Status != relay.StatusSubmitted || res.Signature != sig.String() {
		t.Fatalf("its own ticket: %+v", res)
	}
}
