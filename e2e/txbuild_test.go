package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// reclaimWallet is a wallet fixture grown to the size packing matters at: 40 empty
// accounts under both token programs, token balances under both (one with withheld
// transfer fees), wrapped SOL and four NFTs.
type reclaimWallet struct {
	*harness.WalletFixture
	empties []solana.PublicKey // all 40, fixture's Empty and Empty22 included
	tokens  []solana.PublicKey // balances to burn
	nfts    []solana.PublicKey
}

func newReclaimWallet(t *testing.T, v *harness.Validator) *reclaimWallet {
	t.Helper()
	f := v.NewWalletFixture(t)
	owner := f.Owner.PublicKey()
	tok := v.CreateMints(t, f.Issuer, harness.MintSpec{Decimals: 6}, 26)
	t22 := v.CreateMints(t, f.Issuer, harness.MintSpec{Program: solana.Token2022ProgramID, Decimals: 9}, 13)
	nft := v.CreateMints(t, f.Issuer, harness.MintSpec{Decimals: 0}, 3)
	mints := append(append(append([]harness.Mint{}, tok...), t22...), nft...)
	atas := v.CreateATAs(t, f.Owner, owner, mints)
	tokATAs, t22ATAs, nftATAs := atas[:26], atas[26:39], atas[39:]
	v.MintToEach(t, []harness.Mint{tok[0], t22[0]}, []solana.PublicKey{tokATAs[0], t22ATAs[0]}, 777_000)
	v.MintToEach(t, nft, nftATAs, 1)

	w := &reclaimWallet{WalletFixture: f}
	w.empties = append(append([]solana.PublicKey{f.Empty, f.Empty22}, tokATAs[1:]...), t22ATAs[1:]...)
	w.tokens = []solana.PublicKey{f.Funded, tokATAs[0], t22ATAs[0], f.Withheld}
	w.nfts = append([]solana.PublicKey{f.NFTAccount}, nftATAs...)
	return w
}

// selectAll resolves addresses through asset discovery and selects each item with
// the action discovery offers.
func selectAll(t *testing.T, v *harness.Validator, wallet solana.PublicKey, addresses []solana.PublicKey) []txbuild.Selected {
	t.Helper()
	items, err := assets.NewDiscoverer(v.RPC, nil).Resolve(context.Background(), wallet, addresses)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	sel := make([]txbuild.Selected, len(items))
	for i, it := range items {
		if len(it.Actions) != 1 {
			t.Fatalf("item %s (%s) offers actions %v", it.Address, it.Type, it.Actions)
		}
		sel[i] = txbuild.Selected{Item: it, Action: it.Actions[0]}
	}
	return sel
}

// TestTxBuildReclaimEverything builds every reclaimable item of a large wallet with a
// 10% donation, a 500 bps service fee and a medium priority fee, signs and sends the
// transactions, and checks the money to the lamport on all three balances.
func TestTxBuildReclaimEverything(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	ctx := context.Background()
	w := newReclaimWallet(t, v)
	owner := w.Owner.PublicKey()
	donation := v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
	treasury := v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()

	// Request order mixes the types: an NFT first, then wrapped SOL, empties and
	// balances interleaved; grouping keeps first-appearance order.
	var addrs []solana.PublicKey
	addrs = append(addrs, w.nfts[0], w.WrappedSOL)
	addrs = append(addrs, w.empties[:20]...)
	addrs = append(addrs, w.tokens...)
	addrs = append(addrs, w.empties[20:]...)
	addrs = append(addrs, w.nfts[1:]...)
	sel := selectAll(t, v, owner, addrs)

	b := txbuild.NewBuilder(v.RPC)
	params := txbuild.Params{
		Wallet: owner, Items: sel, DonationPercentage: 0.1, DonationWallet: &donation,
		ServiceFeeBPS: 500, Treasury: &treasury, PriorityLevel: txbuild.PriorityMedium,
	}
	res, err := b.Build(ctx, params)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	checkPacking(t, res, len(sel))

	before := map[solana.PublicKey]uint64{owner: v.Balance(t, owner), donation: v.Balance(t, donation), treasury: v.Balance(t, treasury)}
	sendAll(t, v, w.Owner, res)
	var net, donated, fees uint64
	for i, tx := range res.Txs {
		t.Logf("tx %d %-21s items %2d gross %9d net %9d donation %8d service %7d network %5d (priority %d: %d CU at %d µL)",
			i, tx.LedgerType, len(tx.Includes), tx.GrossRebate, tx.NetRebate, tx.DonationAmount, tx.ServiceFee, tx.NetworkFee,
			tx.PriorityFee, tx.ComputeUnits, tx.ComputeUnitPrice)
		net, donated, fees = net+uint64(tx.NetRebate), donated+tx.DonationAmount, fees+tx.ServiceFee
	}
	for _, c := range []struct {
		name string
		key  solana.PublicKey
		want uint64
	}{{"wallet", owner, net}, {"donation wallet", donation, donated}, {"treasury", treasury, fees}} {
		got := v.Balance(t, c.key) - before[c.key]
		t.Logf("%s rose by %d lamports (want %d)", c.name, got, c.want)
		if got != c.want {
			t.Errorf("%s rose by %d lamports, want %d", c.name, got, c.want)
		}
	}
	tot := res.Totals()
	t.Logf("totals: %+v", tot)

	accs, err := v.RPC.GetMultipleAccountsWithOpts(ctx, addrs, &rpc.GetMultipleAccountsOpts{Commitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range accs.Value {
		if a != nil {
			t.Errorf("account %s still exists with %d lamports", addrs[i], a.Lamports)
		}
	}
}

// checkPacking checks sizes, grouping order and that closures filled their space.
func checkPacking(t *testing.T, res txbuild.Result, items int) {
	t.Helper()
	var order []ledger.Type
	closures, count := 0, 0
	for i, tx := range res.Txs {
		raw := len(tx.Transaction.Signatures)*64 + 1 + len(tx.Message)
		if raw > txbuild.MaxTransactionSize {
			t.Errorf("tx %d is %d bytes", i, raw)
		}
		if len(order) == 0 || order[len(order)-1] != tx.LedgerType {
			order = append(order, tx.LedgerType)
		}
		count += len(tx.Includes)
		if tx.LedgerType == ledger.TypeTokenAccountClosure {
			closures++
			last := i+1 == len(res.Txs) || res.Txs[i+1].LedgerType != tx.LedgerType
			// 20 closes fill a transaction beside its reference key (41
			// bytes, about one close).
			if !last && len(tx.Includes) < 20 {
				t.Errorf("closure tx %d holds %d items (%d bytes), want 20 at least", i, len(tx.Includes), raw)
			}
		}
		t.Logf("tx %d: %s, %d items, %d bytes, %d CU", i, tx.LedgerType, len(tx.Includes), raw, tx.ComputeUnits)
	}
	want := []ledger.Type{ledger.TypeNFTBurn, ledger.TypeTokenAccountClosure, ledger.TypeTokenBurn}
	if len(order) != len(want) || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Errorf("ledger types in order %v, want %v", order, want)
	}
	if count != items || closures < 2 {
		t.Errorf("%d items in %d closure transactions; want %d items and at least 2 closure transactions", count, closures, items)
	}
}

// TestTxBuildEdgeCases: a donation too small to create a missing donation wallet is
// refused; an item whose account changed after it was read builds (closes are not
// simulated) and the cluster refuses it; an empty frozen account (discovery offers close: CloseAccount does not
// check the frozen state) closes, to the lamport.
func TestTxBuildEdgeCases(t *testing.T) {
	t.Parallel()
	v := harness.Shared(t)
	ctx := context.Background()
	f := v.NewWalletFixture(t)
	owner := f.Owner.PublicKey()
	b := txbuild.NewBuilder(v.RPC)

	missing := solana.NewWallet().PublicKey()
	_, err := b.Build(ctx, txbuild.Params{
		Wallet: owner, Items: selectAll(t, v, owner, []solana.PublicKey{f.Empty}), DonationPercentage: 0.1, DonationWallet: &missing,
		PriorityLevel: txbuild.PriorityNone,
	})
	var te *assets.ItemError
	if !errors.As(err, &te) || !strings.Contains(te.Reason, "rent-exempt minimum") {
		t.Errorf("donation to a missing account: %v, want *assets.ItemError about the rent-exempt minimum", err)
	}
	t.Logf("donation to a missing account: %v", err)

	// Closes are not simulated (the compute table knows them), so a stale
	// selection builds; the cluster refuses it. The service reads the
	// items in the build's own request, and refuses one that changed.
	stale := selectAll(t, v, owner, []solana.PublicKey{f.Empty, f.Empty22})
	v.MintTo(t, f.Token22, f.Empty22, 5)
	res, err := b.Build(ctx, txbuild.Params{Wallet: owner, Items: stale, PriorityLevel: txbuild.PriorityLow})
	if err != nil {
		t.Fatalf("build a stale selection: %v", err)
	}
	signed, err := solana.TransactionFromBase64(res.Txs[0].Base64)
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.Sign(signed, f.Owner); err != nil {
		t.Fatal(err)
	}
	_, err = v.RPC.SendTransactionWithOpts(ctx, signed, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err == nil || !strings.Contains(err.Error(), "Non-native account can only be closed if its balance is zero") {
		t.Errorf("closing an account that received tokens: %v, want the token program's refusal", err)
	}
	t.Logf("stale item: %v", err)

	res, err = b.Build(ctx, txbuild.Params{Wallet: owner, Items: selectAll(t, v, owner, []solana.PublicKey{f.Frozen}), PriorityLevel: txbuild.PriorityHigh})
	if err != nil {
		t.Fatalf("build frozen empty account: %v", err)
	}
	before := v.Balance(t, owner)
	sendAll(t, v, f.Owner, res)
	if got, want := v.Balance(t, owner)-before, uint64(res.Txs[0].NetRebate); got != want {
		t.Errorf("closing the frozen account raised the balance by %d, want %d", got, want)
	}
}

// sendAll signs the built transactions as a wallet would (from their Base64), sends
// them all, waits for each and checks the fee the cluster charged.
func sendAll(t *testing.T, v *harness.Validator, owner solana.PrivateKey, res txbuild.Result) {
	t.Helper()
	ctx := context.Background()
	var sigs []solana.Signature
	for i, tx := range res.Txs {
		signed, err := solana.TransactionFromBase64(tx.Base64)
		if err != nil {
			t.Fatalf("tx %d: decode: %v", i, err)
		}
		if err := harness.Sign(signed, owner); err != nil {
			t.Fatal(err)
		}
		sig, err := v.RPC.SendTransactionWithOpts(ctx, signed, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
		if err != nil {
			t.Fatalf("tx %d (%s, %d items): send: %v", i, tx.LedgerType, len(tx.Includes), err)
		}
		sigs = append(sigs, sig)
	}
	for i, sig := range sigs {
		if _, err := v.WaitConfirmed(ctx, sig); err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
		paid, err := v.FeePaid(ctx, sig)
		if err != nil {
			t.Fatal(err)
		}
		if tx := res.Txs[i]; paid != tx.NetworkFee {
			t.Errorf("tx %d: the cluster charged %d, NetworkFee is %d", i, paid, tx.NetworkFee)
		}
	}
}
