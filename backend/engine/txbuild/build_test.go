package txbuild

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

func build(t *testing.T, f *fakeRPC, p Params, opts ...Option) Result {
	t.Helper()
	res, err := NewBuilder(f, opts...).Build(context.Background(), p)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return res
}

// computeBudget reads the limit and price a transaction sets (price 0: none).
func computeBudget(t *testing.T, tx *solana.Transaction) (limit uint32, price uint64) {
	t.Helper()
	for _, ix := range tx.Message.Instructions {
		program, err := tx.Message.Program(ix.ProgramIDIndex)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !program.Equals(solana.ComputeBudget):
		case ix.Data[0] == tagSetComputeUnitLimit:
			limit = binary.LittleEndian.Uint32(ix.Data[1:])
		case ix.Data[0] == tagSetComputeUnitPrice:
			price = binary.LittleEndian.Uint64(ix.Data[1:])
		}
	}
	return limit, price
}

// TestBuildMoney follows one transaction's money through the fake cluster: the
// 50th percentile of recent fees over its writable accounts, the compute
// table's units plus margin, and every amount to the lamport.
func TestBuildMoney(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.fees = func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
		return []rpc.PriorizationFeeResult{{Slot: 1, PrioritizationFee: 300}, {Slot: 2}, {Slot: 3, PrioritizationFee: 100}, {Slot: 4, PrioritizationFee: 200}}, nil
	}
	items := []Selected{empty("a"), empty("b"), empty22("c"), empty("d")}
	res := build(t, f, fullParams(items, 0))
	if len(res.Txs) != 1 {
		t.Fatalf("%d transactions, want 1", len(res.Txs))
	}
	tx := res.Txs[0]
	// 9 instructions: limit, price, reference, 4 closes, 2 transfers, which
	// the compute table knows: 5 x 150 for the frame, 4,000 per close (SPL
	// Token before p-token, Token-2022) = 16,750; the limit adds 10% and 1000.
	const gross = 3*tokenRent + token22Rent
	want := Tx{
		LedgerType: ledger.TypeTokenAccountClosure, GrossRebate: gross, RentRebate: gross, DonationAmount: gross / 10, ServiceFee: gross * 5 / 100,
		ComputeUnits: 19_425, ComputeUnitPrice: 100, PriorityFee: 2, NetworkFee: 5_002,
	}
	want.Fees = want.NetworkFee + want.ServiceFee
	want.NetRebate = int64(gross - want.Fees - want.DonationAmount)
	got := tx
	got.Transaction, got.Base64, got.Message, got.MessageHash, got.Includes, got.Summary = nil, "", nil, [32]byte{}, nil, ticket.TxSummary{}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("money\n got %+v\nwant %+v", got, want)
	}
	if limit, price := computeBudget(t, tx.Transaction); limit != 19_425 || price != 100 {
		t.Errorf("transaction sets limit %d price %d, want 19425 and 100", limit, price)
	}
	if len(f.simulated) != 0 {
		t.Errorf("%d simulations of closes, which the compute table knows", len(f.simulated))
	}
	writable := map[solana.PublicKey]bool{}
	for _, k := range f.feeAccounts[0] {
		writable[k] = true
	}
	for _, k := range []solana.PublicKey{wallet, key("a"), key("b"), key("c"), key("d"), donee, treasury} {
		if !writable[k] {
			t.Errorf("getRecentPrioritizationFees without writable account %s", k)
		}
	}
	if len(writable) != 7 {
		t.Errorf("getRecentPrioritizationFees with %d accounts, want the 7 writable ones", len(writable))
	}
	tot := res.Totals()
	if tot.ItemCount != 4 || tot.GrossRebate != gross || tot.NetRebate != want.NetRebate || tot.DonationAmount != want.DonationAmount || tot.Fees != want.Fees {
		t.Errorf("totals %+v", tot)
	}
}

// TestBuildPriorityLevels maps each level to its percentile, with a floor of one
// micro-lamport; none sets no price and asks the cluster nothing.
func TestBuildPriorityLevels(t *testing.T) {
	t.Parallel()
	recent := []rpc.PriorizationFeeResult{{PrioritizationFee: 40}, {PrioritizationFee: 10}, {PrioritizationFee: 30}, {PrioritizationFee: 20}}
	cases := []struct {
		level string
		fees  []rpc.PriorizationFeeResult
		price uint64
	}{
		{PriorityNone, recent, 0},
		{PriorityLow, recent, 10},
		{PriorityMedium, recent, 20},
		{"", recent, 20},
		{PriorityHigh, recent, 30},
		{PriorityHigh, nil, 1},
		{PriorityLow, []rpc.PriorizationFeeResult{{}, {}, {PrioritizationFee: 9}}, 1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q %d fees", tc.level, len(tc.fees)), func(t *testing.T) {
			t.Parallel()
			f := newFake()
			f.fees = func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) { return tc.fees, nil }
			p := fullParams([]Selected{empty("a")}, 0)
			p.PriorityLevel = tc.level
			tx := build(t, f, p).Txs[0]
			_, price := computeBudget(t, tx.Transaction)
			if tx.ComputeUnitPrice != tc.price || price != tc.price {
				t.Errorf("price %d (instruction %d), want %d", tx.ComputeUnitPrice, price, tc.price)
			}
			if tx.PriorityFee != signedcheck.PriorityFee(tc.price, tx.ComputeUnits) || tx.NetworkFee != SignatureFee+tx.PriorityFee {
				t.Errorf("priority fee %d, network fee %d", tx.PriorityFee, tx.NetworkFee)
			}
			if asked := f.calls["getRecentPrioritizationFees"]; (tc.price == 0) != (asked == 0) {
				t.Errorf("getRecentPrioritizationFees called %d times", asked)
			}
			if tc.price == 0 && len(tx.Transaction.Message.Instructions) != 5 {
				t.Errorf("%d instructions, want limit, reference, close, two transfers", len(tx.Transaction.Message.Instructions))
			}
		})
	}
}

// TestBuildSharesOneBlockhash: one getLatestBlockhash (confirmed) for all
// transactions, one getMultipleAccounts for the recipients, one simulation
// for the Core asset's transaction (the compute table knows the closes'),
// and two fee queries: one over the selected accounts (the closes'
// transactions write nothing else), one for the Core asset's transaction
// after packing (its burn writes the collection).
func TestBuildSharesOneBlockhash(t *testing.T) {
	t.Parallel()
	f := newFake()
	var commitment rpc.CommitmentType
	inner := f.blockhash
	f.blockhash = func(c rpc.CommitmentType) (*rpc.GetLatestBlockhashResult, error) { commitment = c; return inner(c) }
	var simOpts *rpc.SimulateTransactionOpts
	innerSim := f.simulate
	f.simulate = func(tx *solana.Transaction, o *rpc.SimulateTransactionOpts) (*rpc.SimulateTransactionResponse, error) {
		simOpts = o
		return innerSim(tx, o)
	}
	res := build(t, f, fullParams(append(empties(30), core("n", 2_900_000)), 0))
	if len(res.Txs) != 3 || res.Blockhash != solana.Hash(key("blockhash")) || res.LastValidBlockHeight != 1_000_150 {
		t.Fatalf("%d transactions, blockhash %s, last valid %d", len(res.Txs), res.Blockhash, res.LastValidBlockHeight)
	}
	for i, tx := range res.Txs {
		if tx.Transaction.Message.RecentBlockhash != res.Blockhash {
			t.Errorf("transaction %d has blockhash %s", i, tx.Transaction.Message.RecentBlockhash)
		}
	}
	if commitment != rpc.CommitmentConfirmed {
		t.Errorf("blockhash at commitment %q", commitment)
	}
	if simOpts.SigVerify || !simOpts.ReplaceRecentBlockhash || simOpts.Commitment != rpc.CommitmentProcessed {
		t.Errorf("simulation options %+v", simOpts)
	}
	want := map[string]int{"getLatestBlockhash": 1, "getMultipleAccounts": 1, "simulateTransaction": 1, "getRecentPrioritizationFees": 2}
	if fmt.Sprint(f.calls) != fmt.Sprint(want) {
		t.Errorf("calls %v, want %v", f.calls, want)
	}
}

// TestBuildSerialization checks what the client and the ticket see: Base64 is
// the unsigned transaction, Message its message, MessageHash the message's
// SHA-256.
func TestBuildSerialization(t *testing.T) {
	t.Parallel()
	tx := build(t, newFake(), fullParams(empties(3), 0)).Txs[0]
	msg, err := tx.Transaction.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tx.Transaction.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if string(msg) != string(tx.Message) || tx.MessageHash != sha256.Sum256(msg) {
		t.Error("Message or MessageHash differ from the transaction's message")
	}
	if len(raw) != 1+64+len(msg) || string(raw[65:]) != string(msg) {
		t.Errorf("transaction is %d bytes, message %d", len(raw), len(msg))
	}
	for _, b := range raw[1:65] {
		if b != 0 {
			t.Fatal("signature slot is not zeroed")
		}
	}
}

// TestBuildAtTheLimit: the built transaction, with its final compute limit,
// price and amounts, is exactly as large as packing measured.
func TestBuildAtTheLimit(t *testing.T) {
	t.Parallel()
	items := empties(21)
	size, err := mustCheck(t, fullParams(items, 0)).size(items[:20])
	if err != nil {
		t.Fatal(err)
	}
	headroom := MaxTransactionSize - size
	res := build(t, newFake(), fullParams(items, headroom))
	if len(res.Txs) != 2 || len(res.Txs[0].Includes) != 20 {
		t.Fatalf("%d transactions, the first with %d items; want 2, 20", len(res.Txs), len(res.Txs[0].Includes))
	}
	raw, err := base64.StdEncoding.DecodeString(res.Txs[0].Base64)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != MaxTransactionSize-headroom {
		t.Errorf("%d bytes, want exactly %d (1232 - %d headroom)", len(raw), MaxTransactionSize-headroom, headroom)
	}
}

// TestBuildDonationOnRentOnly: the donation and the service fee are
// fractions of the rent alone. Wrapped SOL's balance and a stake account's
// principal come back whole to the wallet: in the gross and the net, not
// in what the donation and the fee are taken of.
func TestBuildDonationOnRentOnly(t *testing.T) {
	t.Parallel()
	const own = 50_000_000 // 0.05 wrapped SOL
	wsol := empty("wsol")
	wsol.Item.Type, wsol.Item.Mint, wsol.Item.IsNative, wsol.Item.Amount, wsol.Item.Lamports = assets.TypeToken, solana.WrappedSol, true, own, tokenRent+own
	res := build(t, newFake(), fullParams([]Selected{wsol, empty("e"), whole("stake", assets.TypeStakeAccount, stakeWhole)}, 0))
	var gross, rent, donation, fee uint64
	var net int64
	for _, tx := range res.Txs {
		if tx.DonationAmount != tx.RentRebate/10 || tx.ServiceFee != tx.RentRebate*5/100 ||
			tx.NetRebate != int64(tx.GrossRebate-tx.NetworkFee-tx.ServiceFee-tx.DonationAmount) || tx.OwnBalance() != tx.GrossRebate-tx.RentRebate {
			t.Errorf("%s: %+v", tx.LedgerType, tx)
		}
		gross, rent, donation, fee, net = gross+tx.GrossRebate, rent+tx.RentRebate, donation+tx.DonationAmount, fee+tx.ServiceFee, net+tx.NetRebate
	}
	if wantRent := uint64(2*tokenRent + stakeRent); rent != wantRent || gross != wantRent+own+(stakeWhole-stakeRent) {
		t.Errorf("rent %d of gross %d, want %d of %d", rent, gross, wantRent, wantRent+own+(stakeWhole-stakeRent))
	}
	// 10% and 5% of 2 x 2,039,280 (one transaction) and of 2,282,880.
	if donation != 407_856+228_288 || fee != 203_928+114_144 {
		t.Errorf("donation %d, service fee %d: not of the rent alone", donation, fee)
	}
	tot := res.Totals()
	if tot.GrossRebate != gross || tot.RentRebate != rent || tot.OwnBalance() != gross-rent || tot.NetRebate != net {
		t.Errorf("totals %+v", tot)
	}
}
