package txbuild

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/signedcheck"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/cnft"
)

// fakePlanner is a hand-written CNFTPlanner: each asset's burn carries
// proof[asset] distinct proof nodes (default 3) in one tree; refuse and fail
// make it answer a *assets.ItemError or another error.
type fakePlanner struct {
	mu     sync.Mutex
	proof  map[solana.PublicKey]int
	refuse map[solana.PublicKey]string
	fail   map[solana.PublicKey]error
	asked  []solana.PublicKey
}

func (p *fakePlanner) BurnInstruction(_ context.Context, w, asset solana.PublicKey) (*solana.GenericInstruction, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, asset)
	if reason, ok := p.refuse[asset]; ok {
		return nil, &assets.ItemError{Address: asset.String(), Reason: reason}
	}
	if err, ok := p.fail[asset]; ok {
		return nil, err
	}
	n, ok := p.proof[asset]
	if !ok {
		n = 3
	}
	b := bubblegum.Burn{LeafOwner: w, LeafDelegate: w, MerkleTree: key("tree"), Nonce: 7, Index: 7}
	for i := range n {
		b.Proof = append(b.Proof, key(fmt.Sprintf("proof %s %d", asset, i)))
	}
	return b.Instruction(), nil
}

// cnftSelected is a compressed NFT of wallet, as the server resolves a selection.
func cnftSelected(name string) Selected {
	return Selected{Action: assets.ActionBurn, Item: assets.Item{
		Type: assets.TypeCNFT, Address: key(name), Owner: wallet, Actions: []assets.Action{assets.ActionBurn},
	}}
}

func programsOf(t *testing.T, tx *solana.Transaction) map[solana.PublicKey]int {
	t.Helper()
	out := map[solana.PublicKey]int{}
	for _, ix := range tx.Message.Instructions {
		p, err := tx.Message.Program(ix.ProgramIDIndex)
		if err != nil {
			t.Fatal(err)
		}
		out[p]++
	}
	return out
}

// TestBuildCNFTOnly: burns of cNFTs alone return nothing, so the transaction
// has no donation or service fee transfer, and the wallet pays exactly its
// network fee: net = -networkFee.
func TestBuildCNFTOnly(t *testing.T) {
	t.Parallel()
	f := newFake()
	f.fees = func(solana.PublicKeySlice) ([]rpc.PriorizationFeeResult, error) {
		return []rpc.PriorizationFeeResult{{PrioritizationFee: 300}, {PrioritizationFee: 100}}, nil
	}
	pl := &fakePlanner{}
	items := []Selected{cnftSelected("c1"), cnftSelected("c2")}
	p := fullParams(items, 0) // donation 10%, service fee 5%, medium priority
	res, err := NewBuilder(f, WithCNFTPlanner(pl)).Build(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Txs) != 1 || len(pl.asked) != 2 {
		t.Fatalf("%d transactions, %d planner calls; want 1 and 2", len(res.Txs), len(pl.asked))
	}
	tx := res.Txs[0]
	// limit, price, reference, 2 burns: 1000 + 5*300 = 2500 consumed, limit
	// 2500+250+1000.
	const units = 3_750
	wantFee := uint64(SignatureFee) + signedcheck.PriorityFee(100, units)
	if tx.LedgerType != ledger.TypeNFTBurn || tx.GrossRebate != 0 || tx.DonationAmount != 0 || tx.ServiceFee != 0 ||
		tx.ComputeUnits != units || tx.NetworkFee != wantFee || tx.Fees != wantFee || tx.NetRebate != -int64(wantFee) {
		t.Errorf("money %+v, want gross 0, no donation or service fee, net -%d", tx, wantFee)
	}
	progs := programsOf(t, tx.Transaction)
	if progs[bubblegum.ProgramID] != 2 || progs[solana.SystemProgramID] != 0 || progs[solana.ComputeBudget] != 3 || len(progs) != 2 {
		t.Errorf("instructions per program %v: want 3 compute budget (limit, price, reference) and 2 Bubblegum burns, no transfers", progs)
	}
	tot := res.Totals()
	if tot.ItemCount != 2 || tot.GrossRebate != 0 || tot.NetRebate != -int64(wantFee) || tot.Fees != wantFee || tot.DonationAmount != 0 {
		t.Errorf("totals %+v", tot)
	}
	if items[0].burn != nil || res.Txs[0].Includes[0].burn == nil {
		t.Error("the planned burn should travel with the built items, not change the caller's")
	}
}

// TestBuildCNFTWithNFTs: cNFTs share nft_burn transactions with NFTs, packed
// greedily in request order by serialized size, so long proofs (32 bytes a
// node) fit fewer items in a transaction; a transaction holding an NFT must
// still have a positive net.
func TestBuildCNFTWithNFTs(t *testing.T) {
	t.Parallel()
	pl := &fakePlanner{proof: map[solana.PublicKey]int{}}
	var items []Selected
	for i := range 8 {
		if i%2 == 0 {
			items = append(items, nft(fmt.Sprintf("n%d", i)))
			continue
		}
		c := cnftSelected(fmt.Sprintf("c%d", i))
		pl.proof[c.Item.Address] = 14 // a depth-14 tree without canopy: 448 bytes of proof
		items = append(items, c)
	}
	f := newFake()
	b := NewBuilder(f, WithCNFTPlanner(pl))
	res, err := b.Build(context.Background(), fullParams(items, 0))
	if err != nil {
		t.Fatal(err)
	}
	// Pack again from the planned items, to check the packing against size.
	r := mustCheck(t, fullParams(items, 0))
	if err := b.planCNFTs(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	var order []Selected
	mixed := false
	for i, tx := range res.Txs {
		if tx.LedgerType != ledger.TypeNFTBurn {
			t.Errorf("tx %d is %s", i, tx.LedgerType)
		}
		raw, _ := tx.Transaction.MarshalBinary()
		if len(raw) > MaxTransactionSize {
			t.Errorf("tx %d: %d bytes", i, len(raw))
		}
		if i+1 < len(res.Txs) {
			// Greedy: the next transaction's first item did not fit here.
			next := append(append([]Selected{}, tx.Includes...), res.Txs[i+1].Includes[0])
			n, err := r.size(next)
			if err != nil {
				t.Fatal(err)
			}
			if n <= MaxTransactionSize {
				t.Errorf("tx %d: %d bytes with the next item, which would have fitted", i, n)
			}
		}
		types := map[assets.ItemType]bool{}
		var gross uint64
		for _, in := range tx.Includes {
			types[in.Item.Type] = true
			gross += in.Item.Lamports
		}
		mixed = mixed || (types[assets.TypeCNFT] && types[assets.TypeNFT])
		if tx.GrossRebate != gross || tx.NetRebate != int64(gross-tx.Fees-tx.DonationAmount) || tx.NetRebate <= 0 && types[assets.TypeNFT] {
			t.Errorf("tx %d money %+v for gross %d", i, tx, gross)
		}
		order = append(order, tx.Includes...)
	}
	if len(res.Txs) < 2 || !mixed {
		t.Errorf("%d transactions, mixed %v: want NFTs and cNFTs sharing transactions over several", len(res.Txs), mixed)
	}
	for i := range items {
		if order[i].Item.Address != items[i].Item.Address {
			t.Fatalf("item %d out of request order", i)
		}
	}

	// The same items with short proofs pack into fewer transactions.
	for k := range pl.proof {
		pl.proof[k] = 1
	}
	short, err := b.Build(context.Background(), fullParams(items, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(short.Txs) >= len(res.Txs) {
		t.Errorf("short proofs: %d transactions, long: %d", len(short.Txs), len(res.Txs))
	}
}

// TestBuildCNFTMixedNetMustBePositive: an NFT whose refund does not cover the
// fee makes its transaction refused, cNFTs or not.
func TestBuildCNFTMixedNetMustBePositive(t *testing.T) {
	t.Parallel()
	n := nft("cheap")
	n.Item.Lamports = 1_000
	_, err := NewBuilder(newFake(), WithCNFTPlanner(&fakePlanner{})).Build(context.Background(),
		Params{Wallet: wallet, Items: []Selected{n, cnftSelected("c")}, PriorityLevel: PriorityNone})
	var e *assets.ItemError
	if !errors.As(err, &e) || !strings.Contains(e.Reason, "cost more than it returns") {
		t.Fatalf("err = %v, want a refusal of the negative net", err)
	}
}

// TestBuildCNFTRefusals maps the planner's answers: a refusal is an *assets.ItemError
// naming the item (the server's 400 items[i]); an indexer failing is not.
func TestBuildCNFTRefusals(t *testing.T) {
	t.Parallel()
	down := errors.New("das getAsset: status 503")
	cases := []struct {
		name    string
		planner CNFTPlanner
		item    string // "-": not an *assets.ItemError
		message string
	}{
		{"refused", &fakePlanner{refuse: map[solana.PublicKey]string{key("c2"): cnft.ReasonFrozen}}, key("c2").String(), cnft.ReasonFrozen},
		{"first refusal in request order", &fakePlanner{refuse: map[solana.PublicKey]string{key("c2"): cnft.ReasonBurnt, key("c1"): cnft.ReasonOtherWallet}}, key("c1").String(), cnft.ReasonOtherWallet},
		{"indexer down", &fakePlanner{fail: map[solana.PublicKey]error{key("c1"): down}}, "-", "503"},
		{"no planner", nil, key("c1").String(), "no DAS indexer"},
		{"proof too long to fit", &fakePlanner{proof: map[solana.PublicKey]int{key("c2"): 30}}, key("c2").String(), "does not fit alone"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []Option
			if tc.planner != nil {
				opts = append(opts, WithCNFTPlanner(tc.planner))
			}
			f := newFake()
			_, err := NewBuilder(f, opts...).Build(context.Background(), fullParams([]Selected{cnftSelected("c1"), cnftSelected("c2")}, 0))
			var e *assets.ItemError
			if err == nil || errors.As(err, &e) != (tc.item != "-") {
				t.Fatalf("err = %T %v", err, err)
			}
			if e != nil && e.Item() != tc.item {
				t.Errorf("Item = %q, want %q (%v)", e.Item(), tc.item, err)
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Errorf("error %q does not say %q", err, tc.message)
			}
			if tc.item == "-" && !errors.Is(err, down) {
				t.Errorf("indexer error not wrapped: %v", err)
			}
			if f.calls["simulateTransaction"] != 0 {
				t.Error("simulated a refused build")
			}
		})
	}
}
