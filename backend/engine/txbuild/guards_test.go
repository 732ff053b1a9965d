package txbuild

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
)

// phantomGuards are the data of the four assertions Phantom adds (x402 #3318:
// three before the dapp's instructions, one after), at the sizes
// lighthouse-sdk 2.1.0 encodes Phantom's kinds in the e2e suite: lamports and
// owner of the wallet (16 bytes), owner and amount of a token account (47),
// lamports range and owner of the wallet (26, twice).
var phantomGuards = [][]byte{make([]byte, 16), make([]byte, 47), make([]byte, 26), make([]byte, 26)}

// guard adds to tx's message the Lighthouse assertions of datas at the
// positions Phantom uses, the first three on existing accounts, the last on
// an account not in the message, as a wallet changing the message would:
// new keys go last, read-only and unsigned, so no index moves.
func guard(t *testing.T, tx *solana.Transaction, datas [][]byte) *solana.Transaction {
	t.Helper()
	m := tx.Message
	m.AccountKeys = append(append(solana.PublicKeySlice{}, m.AccountKeys...), signedcheck.LighthouseProgramID, key("not in the message"))
	m.Header.NumReadonlyUnsignedAccounts += 2
	program, stranger := uint16(len(m.AccountKeys)-2), uint16(len(m.AccountKeys)-1)
	ixs := append([]solana.CompiledInstruction{}, m.Instructions...)
	for i, d := range datas {
		d = append([]byte{6 + byte(i%4), 0}, d[2:]...)
		target := []uint16{0, 1, 0, stranger}[i%4]
		at := min(2+i, len(ixs))
		if i == 3 {
			at = len(ixs)
		}
		ix := solana.CompiledInstruction{ProgramIDIndex: program, Accounts: []uint16{target}, Data: d}
		ixs = append(ixs[:at:at], append([]solana.CompiledInstruction{ix}, ixs[at:]...)...)
	}
	m.Instructions = ixs
	return &solana.Transaction{Signatures: tx.Signatures, Message: m}
}

// TestGuardedTransactionsFit packs transactions to the limit with the
// default headroom, adds Phantom's four guards (one naming an account not in
// the message) to each: every one stays within 1232 bytes and passes the
// submit check against its ticket's digest. Without the headroom they do not
// fit.
func TestGuardedTransactionsFit(t *testing.T) {
	t.Parallel()
	const headroom = 200 // the default RECLAIM_GUARD_HEADROOM_BYTES
	for _, c := range []struct {
		headroom int
		fit      bool
	}{{headroom, true}, {0, false}} {
		res := build(t, newFake(), fullParams(empties(60), c.headroom))
		fits := true
		for i, tx := range res.Txs {
			g := guard(t, tx.Transaction, phantomGuards)
			raw, err := g.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			msg, err := g.Message.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := signedcheck.Check(tx.Summary.Digest, wallet, msg); err != nil {
				t.Fatalf("headroom %d, transaction %d: %v", c.headroom, i, err)
			}
			fits = fits && len(raw) <= MaxTransactionSize
			if c.fit && len(raw) > MaxTransactionSize {
				t.Errorf("transaction %d of %d items: %d bytes with guards", i, len(tx.Includes), len(raw))
			}
		}
		if fits != c.fit {
			t.Errorf("headroom %d: guarded transactions fit: %t, want %t", c.headroom, fits, c.fit)
		}
	}
}

// TestGuardHeadroomUnits: the headroom is added to the simulated need and
// its margin, packing leaves room for it under the maximum, and the ticket's
// digest and recipients describe the transaction.
func TestGuardHeadroomUnits(t *testing.T) {
	t.Parallel()
	p := fullParams(empties(4), 0)
	plain := build(t, newFake(), p).Txs[0]
	res, err := NewBuilder(newFake(), WithGuardHeadroomUnits(6_000)).Build(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	guarded := res.Txs[0]
	if guarded.ComputeUnits != plain.ComputeUnits+6_000 {
		t.Fatalf("limit %d, want %d + 6000", guarded.ComputeUnits, plain.ComputeUnits)
	}
	if limit, _ := computeBudget(t, guarded.Transaction); limit != guarded.ComputeUnits {
		t.Fatalf("transaction sets %d units, Tx says %d", limit, guarded.ComputeUnits)
	}
	if guarded.PriorityFee != signedcheck.PriorityFee(guarded.ComputeUnitPrice, guarded.ComputeUnits) {
		t.Fatal("the priority fee is not charged on the guarded limit")
	}
	b := NewBuilder(nil, WithGuardHeadroomUnits(6_000))
	if lim := b.limits(&request{}); uint64(b.guardedLimit(lim.units)) > MaxComputeUnits {
		t.Fatalf("packing allows %d estimated units, whose limit %d exceeds the maximum", lim.units, b.guardedLimit(lim.units))
	}
	d, err := signedcheck.DigestOf(guarded.Message)
	if err != nil {
		t.Fatal(err)
	}
	if guarded.Summary.Sum != d.Sum || guarded.Summary.Blockhash != res.Blockhash.String() || len(guarded.Summary.Instructions) != 1+4+2 {
		t.Fatalf("built %+v, digest %+v", guarded.Summary, d)
	}
	if guarded.Summary.DonationWallet != donee.String() || guarded.Summary.Treasury != treasury.String() {
		t.Fatalf("recipients %+v", guarded.Summary)
	}
	noFee := fullParams(empties(4), 0)
	noFee.DonationPercentage, noFee.ServiceFeeBPS = 0, 0
	if b := build(t, newFake(), noFee).Txs[0].Summary; b.DonationWallet != "" || b.Treasury != "" {
		t.Fatalf("recipients without transfers: %+v", b)
	}
}

// TestBuiltBounds: each ticket states what a wallet may set of the compute
// budget: the limit plus the guard headroom, the price up to the configured
// cap, the priority fee at most half the net rebate beyond the built one;
// a signed message past them is refused against the ticket's digest.
func TestBuiltBounds(t *testing.T) {
	t.Parallel()
	p := fullParams(empties(4), 0)
	for _, maxPrice := range []uint64{signedcheck.DefaultMaxPrice, 0} {
		res, err := NewBuilder(newFake(), WithGuardHeadroomUnits(6_000), WithMaxComputeUnitPrice(maxPrice)).Build(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		tx := res.Txs[0]
		units := tx.ComputeUnits + 6_000
		fee := min(signedcheck.PriorityFee(max(tx.ComputeUnitPrice, maxPrice), units), tx.PriorityFee+uint64(tx.NetRebate)/2)
		want := signedcheck.Bounds{MaxUnits: units, MaxPrice: max(tx.ComputeUnitPrice, maxPrice), MaxPriorityFee: fee}
		if tx.Summary.Bounds != want {
			t.Fatalf("cap %d: bounds %+v, want %+v", maxPrice, tx.Summary.Bounds, want)
		}
		raised := *tx.Transaction
		raised.Message.Instructions = append([]solana.CompiledInstruction{}, tx.Transaction.Message.Instructions...)
		raised.Message.Instructions[1].Data = binary.LittleEndian.AppendUint64([]byte{3}, want.MaxPrice+1)
		msg, err := raised.Message.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := signedcheck.Check(tx.Summary.Digest, wallet, msg); err == nil || !strings.Contains(err.Error(), "compute unit price") {
			t.Fatalf("cap %d: a price past the bound: %v", maxPrice, err)
		}
	}
}
