package txbuild

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"pgregory.net/rapid"

	"github.com/reclaim-sol/reclaim/backend/chain/txv1"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
)

// v1Params are the parameters of a v1 build of n closes with the options
// drawn: a donation, the service fee, a priority level, the guards'
// headroom.
func v1Params(n int, donation, fee bool, level string, headroom int) Params {
	p := Params{Wallet: wallet, Items: empties(n), PriorityLevel: level, HeadroomBytes: headroom, Version: Version1}
	if donation {
		p.DonationPercentage, p.DonationWallet = 0.1, &donee
	}
	if fee {
		p.ServiceFeeBPS, p.Treasury = 500, &treasury
	}
	return p
}

// phantomGuardsV1 are Phantom's four assertions (phantomGuards), the last
// on an account outside the message, as instructions.
func phantomGuardsV1() []solana.Instruction {
	var out []solana.Instruction
	for i, target := range []solana.PublicKey{wallet, wallet, wallet, key("not in the message")} {
		data := append([]byte{6 + byte(i), 0}, phantomGuards[i][2:]...)
		out = append(out, solana.NewInstruction(signedcheck.LighthouseProgramID, solana.AccountMetaSlice{solana.Meta(target)}, data))
	}
	return out
}

// decodeV1 reads a built v1 transaction from its base64 as a wallet would.
func decodeV1(t *rapid.T, tx Tx) *txv1.Transaction {
	raw, err := base64.StdEncoding.DecodeString(tx.Base64)
	if err != nil {
		t.Fatal(err)
	}
	var v txv1.Transaction
	if err := v.UnmarshalBinary(raw); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return &v
}

// TestV1BuildProperty: for any count of closes and any options, every v1
// transaction decodes with txv1, stays within 4,096 bytes less the
// headroom and 64 addresses less the guards', still fits once Phantom's
// guards are added, sets the guarded limit, 64 MiB of loaded data and the
// total priority fee in its config, and states its fees and net rebate to
// the lamport; the transactions cover every item once, in order.
func TestV1BuildProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(rt, "closes")
		level := rapid.SampledFrom([]string{PriorityNone, PriorityLow, PriorityHigh}).Draw(rt, "level")
		headroom := rapid.SampledFrom([]int{0, 200}).Draw(rt, "headroom")
		p := v1Params(n, rapid.Bool().Draw(rt, "donation"), rapid.Bool().Draw(rt, "fee"), level, headroom)
		f := newFake()
		price := rapid.Uint64Range(0, 10_000_000).Draw(rt, "price")
		f.fees = func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
			return []rpc.PriorizationFeeResult{{Slot: 1, PrioritizationFee: price}}, nil
		}
		res, err := NewBuilder(f, WithGuardHeadroomUnits(6_000)).Build(context.Background(), p)
		if err != nil {
			rt.Fatalf("build: %v", err)
		}
		at := 0
		for i, tx := range res.Txs {
			v := decodeV1(rt, tx)
			m := &v.Message
			if tx.Version != Version1 || tx.Transaction != nil {
				rt.Fatalf("tx %d: version %d, v0 transaction %v", i, tx.Version, tx.Transaction != nil)
			}
			if size := m.TransactionSize(); size > txv1.MaxTransactionSize-headroom || len(m.AccountKeys) > txv1.MaxAddresses-GuardAddressesV1 {
				rt.Fatalf("tx %d: %d bytes and %d addresses, over %d and %d", i, size, len(m.AccountKeys), txv1.MaxTransactionSize-headroom, txv1.MaxAddresses-GuardAddressesV1)
			}
			msg, _ := m.MarshalBinary()
			if string(msg) != string(tx.Message) || sha256.Sum256(msg) != tx.MessageHash {
				rt.Fatalf("tx %d: Message and MessageHash are not those of the bytes sent", i)
			}
			for _, s := range v.Signatures {
				if s != (solana.Signature{}) {
					rt.Fatalf("tx %d: a signature slot is not zeroed", i)
				}
			}
			checkV1Config(rt, i, tx, m, level)
			checkV1Money(rt, i, tx, m)
			if headroom == 200 {
				checkGuardsFit(rt, i, tx, m)
			}
			for _, s := range tx.Includes {
				if s.Item.Address != p.Items[at].Item.Address {
					rt.Fatalf("tx %d includes %s where item %d is expected", i, s.Item.Address, at)
				}
				at++
			}
		}
		if at != n {
			rt.Fatalf("the transactions cover %d items of %d", at, n)
		}
	})
}

// checkV1Config: the config states the limit, 64 MiB of loaded data and,
// with a level, the priority fee ceil(price × limit / 1e6).
func checkV1Config(t *rapid.T, i int, tx Tx, m *txv1.Message, level string) {
	c := m.Config
	want := txv1.MaskComputeUnitLimit | txv1.MaskLoadedAccountsDataSizeLimit
	if level != PriorityNone {
		want |= txv1.MaskPriorityFee
	}
	switch {
	case c.Mask != want:
		t.Fatalf("tx %d: config mask %05b, want %05b", i, c.Mask, want)
	case c.ComputeUnitLimit != tx.ComputeUnits || tx.ComputeUnits == 0:
		t.Fatalf("tx %d: config limit %d, Tx says %d", i, c.ComputeUnitLimit, tx.ComputeUnits)
	case c.LoadedAccountsDataSizeLimit != 64*1024*1024:
		t.Fatalf("tx %d: loaded data limit %d", i, c.LoadedAccountsDataSizeLimit)
	case c.PriorityFeeLamports != tx.PriorityFee || tx.PriorityFee != signedcheck.PriorityFee(tx.ComputeUnitPrice, tx.ComputeUnits):
		t.Fatalf("tx %d: config fee %d, Tx says %d, ceil(%d × %d / 1e6) is %d", i, c.PriorityFeeLamports, tx.PriorityFee,
			tx.ComputeUnitPrice, tx.ComputeUnits, signedcheck.PriorityFee(tx.ComputeUnitPrice, tx.ComputeUnits))
	}
	for _, ix := range m.Instructions {
		if m.AccountKeys[ix.ProgramIDIndex] == solana.ComputeBudget && (ix.Data[0] == tagSetComputeUnitLimit || ix.Data[0] == tagSetComputeUnitPrice) {
			t.Fatalf("tx %d: a compute budget instruction sets what the config states", i)
		}
	}
}

// checkV1Money: the network fee is 5,000 per signature plus the total
// priority fee, and the net rebate what is left to the wallet.
func checkV1Money(t *rapid.T, i int, tx Tx, m *txv1.Message) {
	var gross uint64
	for _, s := range tx.Includes {
		gross += s.Item.Lamports
	}
	network := 5_000*uint64(m.Header.NumRequiredSignatures) + m.Config.PriorityFeeLamports
	switch {
	case tx.GrossRebate != gross:
		t.Fatalf("tx %d: gross %d, items return %d", i, tx.GrossRebate, gross)
	case tx.NetworkFee != network || tx.Fees != network+tx.ServiceFee:
		t.Fatalf("tx %d: network fee %d and fees %d, want %d and %d", i, tx.NetworkFee, tx.Fees, network, network+tx.ServiceFee)
	case tx.NetRebate != int64(gross)-int64(network)-int64(tx.DonationAmount)-int64(tx.ServiceFee):
		t.Fatalf("tx %d: net %d is not gross - network fee - donation - service fee", i, tx.NetRebate)
	}
}

// checkGuardsFit: the message with Phantom's guards added compiles within
// both limits of a v1 transaction.
func checkGuardsFit(t *rapid.T, i int, tx Tx, m *txv1.Message) {
	ixs := make([]solana.Instruction, 0, len(m.Instructions)+4)
	for _, ix := range m.Instructions {
		metas := make(solana.AccountMetaSlice, len(ix.Accounts))
		for j, a := range ix.Accounts {
			metas[j] = &solana.AccountMeta{PublicKey: m.AccountKeys[a], IsSigner: m.IsSigner(int(a)), IsWritable: m.IsWritable(int(a))}
		}
		ixs = append(ixs, solana.NewInstruction(m.AccountKeys[ix.ProgramIDIndex], metas, ix.Data))
	}
	guarded, err := txv1.Compile(wallet, m.RecentBlockhash, m.Config, append(phantomGuardsV1(), ixs...)...)
	if err != nil {
		t.Fatalf("tx %d with guards: %v", i, err)
	}
	if guarded.TransactionSize() > txv1.MaxTransactionSize {
		t.Fatalf("tx %d with guards: %d bytes", i, guarded.TransactionSize())
	}
}

// TestV1SameFeeLevelAsV0: a v1 build pays the price a v0 build of the same
// items pays, as a total fee on its own limit, and the ticket's digest of
// the v1 message binds its instructions and its version.
func TestV1SameFeeLevelAsV0(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.fees = func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
		return []rpc.PriorizationFeeResult{{Slot: 1, PrioritizationFee: 123_457}}, nil
	}
	p := fullParams(empties(3), 200)
	v0 := build(t, f, p).Txs[0]
	p.Version = Version1
	v1 := build(t, f, p).Txs[0]
	if v1.ComputeUnitPrice != v0.ComputeUnitPrice || v1.ComputeUnitPrice != 123_457 {
		t.Fatalf("v1 price %d, v0 %d", v1.ComputeUnitPrice, v0.ComputeUnitPrice)
	}
	if want := (123_457*uint64(v1.ComputeUnits) + 999_999) / 1_000_000; v1.PriorityFee != want {
		t.Fatalf("v1 priority fee %d, want ceil(123457 × %d / 1e6) = %d", v1.PriorityFee, v1.ComputeUnits, want)
	}
	// The reference key rides on the donation's transfer: one instruction
	// less than v0's, the same closes.
	if v1.Summary.Sum == "" || v1.Summary.Sum == v0.Summary.Sum || len(v1.Summary.Instructions) != len(v0.Summary.Instructions)-1 ||
		v1.Summary.Instructions[0] != v0.Summary.Instructions[1] {
		t.Fatalf("v1 digest %+v against v0 %+v", v1.Summary.Digest, v0.Summary.Digest)
	}
	if v1.Summary.MaxUnits < v1.ComputeUnits || v1.Summary.MaxPriorityFee < v1.PriorityFee {
		t.Fatalf("v1 bounds %+v below the built budget", v1.Summary.Bounds)
	}
	if _, err := NewBuilder(f).Build(context.Background(), Params{Wallet: wallet, Items: empties(1), Version: 2}); err == nil {
		t.Fatal("a build of version 2 passed")
	}
}

// TestClosesPerTransaction logs how many closes of empty token accounts
// one transaction takes, v0 and v1, with and without a donation, a
// priority fee and the service fee: v0 without guard headroom and with the
// default (200 bytes), v1 with it (and its two addresses):
//
//	go test ./backend/engine/txbuild -run TestClosesPerTransaction -v
func TestClosesPerTransaction(t *testing.T) {
	t.Parallel()
	cases := []struct {
		donation, fee bool
		level         string
		want          [3]int // v0 without headroom, v0, v1
	}{
		{false, false, PriorityNone, [3]int{25, 20, 58}},
		{true, false, PriorityNone, [3]int{23, 18, 57}},
		{false, false, PriorityMedium, [3]int{24, 19, 58}},
		{true, false, PriorityMedium, [3]int{22, 17, 57}},
		{true, true, PriorityMedium, [3]int{21, 16, 56}},
	}
	t.Log("donation  service fee  priority  v0 (no headroom)  v0  v1")
	for _, c := range cases {
		var got [3]int
		for i, v := range []struct {
			version  uint32
			headroom int
		}{{Version0, 0}, {Version0, 200}, {Version1, 200}} {
			p := v1Params(300, c.donation, c.fee, c.level, v.headroom)
			p.Version = v.version
			r := mustCheck(t, p)
			bs, err := r.pack(NewBuilder(nil, WithGuardHeadroomUnits(6_000)).limits(r))
			if err != nil {
				t.Fatal(err)
			}
			got[i] = len(bs[0].items)
		}
		t.Logf("%-9v %-12v %-9s %16d %3d %3d", c.donation, c.fee, c.level, got[0], got[1], got[2])
		if got != c.want {
			t.Errorf("%+v: %v closes per transaction, want %v", c, got, c.want)
		}
	}
}
