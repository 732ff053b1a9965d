package e2e

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// MPL Core assets made by the real program (CreateV1, CreateCollectionV1,
// built by mpl-core), burned through the service.

// coresPerTx keeps a fixture transaction of CreateV1s, each with its asset's
// signature, under 1232 bytes.
const coresPerTx = 4

// createCores creates an asset for each of reqs' extra fields (collection,
// frozen, ...), paid by payer and owned by owner, coresPerTx a transaction;
// it returns the assets.
func (e *burnEnv) createCores(t *testing.T, payer solana.PrivateKey, owner solana.PublicKey, extras ...map[string]any) []solana.PublicKey {
	t.Helper()
	keys := make([]solana.PrivateKey, len(extras))
	reqs := make([]map[string]any, len(extras))
	for i, extra := range extras {
		keys[i] = solana.NewWallet().PrivateKey
		reqs[i] = map[string]any{"kind": "coreCreateV1", "asset": keys[i].PublicKey().String(), "payer": payer.PublicKey().String(),
			"owner": owner.String(), "name": fmt.Sprintf("Core %d", i), "uri": "https://example.com/core.json"}
		for k, v := range extra {
			reqs[i][k] = v
		}
	}
	var batches []harness.Batch
	for i, ixs := range mplInstructions(t, reqs...) {
		if i%coresPerTx == 0 {
			batches = append(batches, harness.Batch{Payer: payer})
		}
		b := &batches[len(batches)-1]
		b.Ixs = append(b.Ixs, ixs...)
		b.Signers = append(b.Signers, keys[i])
	}
	for i := range batches {
		batches[i].Ixs = withUnits(batches[i].Ixs)
	}
	e.v.SendAll(t, batches)
	out := make([]solana.PublicKey, len(keys))
	for i, k := range keys {
		out[i] = k.PublicKey()
	}
	return out
}

// createCoreCollection creates a collection whose update authority is payer.
func (e *burnEnv) createCoreCollection(t *testing.T, payer solana.PrivateKey, extra map[string]any) solana.PublicKey {
	t.Helper()
	key := solana.NewWallet().PrivateKey
	req := map[string]any{"kind": "coreCreateCollectionV1", "collection": key.PublicKey().String(), "payer": payer.PublicKey().String(),
		"name": "Cores", "uri": "https://example.com/cores.json"}
	for k, v := range extra {
		req[k] = v
	}
	e.v.Send(t, payer, withUnits(mplInstructions(t, req)[0]), key)
	return key.PublicKey()
}

// coreWant is what Core's BurnV1 returns for asset, read from the chain: the
// rent-exempt minimum of its size less that of the 1-byte stub it leaves.
func (e *burnEnv) coreWant(t *testing.T, kind string, asset solana.PublicKey) burnWant {
	t.Helper()
	size := len(accountOf(t, e.v, asset).Data.GetBinary())
	lamports := minimumBalance(t, e.v, size) - minimumBalance(t, e.v, 1)
	return burnWant{kind: kind, address: asset, typ: "nft", lamports: lamports, accounts: []solana.PublicKey{asset}}
}

// checkCoreStubs checks that each burned asset is Core's 1-byte
// Uninitialized stub.
func (e *burnEnv) checkCoreStubs(t *testing.T, assets ...solana.PublicKey) {
	t.Helper()
	for _, a := range assets {
		if acc := accountOf(t, e.v, a); acc == nil || len(acc.Data.GetBinary()) != 1 || acc.Data.GetBinary()[0] != 0 {
			t.Errorf("asset %s after the burn: %+v, want Core's 1-byte Uninitialized stub", a, acc)
		}
	}
}

// landCore burns assets without a collection: enough to fill a transaction.
func landCore(t *testing.T, e *burnEnv) {
	holder := e.v.NewWallet(t, 5*solana.LAMPORTS_PER_SOL)
	assets := e.createCores(t, holder, holder.PublicKey(), make([]map[string]any, 24)...)
	var wants []burnWant
	for _, a := range assets {
		wants = append(wants, e.coreWant(t, "Core asset", a))
	}
	landed := e.landBurns(t, holder, wants, nil)
	measure("Core asset", mplcore.ProgramID, wants[0].lamports, landed)
	e.checkCoreStubs(t, assets...)
}

// landCoreCollection burns assets of a collection, enough to fill a
// transaction (its current size drops to 0), and lists without burn an
// asset whose FreezeDelegate is frozen and one of a collection whose
// PermanentFreezeDelegate is.
func landCoreCollection(t *testing.T, e *burnEnv) {
	holder := e.v.NewWallet(t, 5*solana.LAMPORTS_PER_SOL)
	col := e.createCoreCollection(t, holder, nil)
	frozenCol := e.createCoreCollection(t, holder, map[string]any{"frozen": true})
	const members = 22
	extras := make([]map[string]any, members, members+2)
	for i := range extras {
		extras[i] = map[string]any{"collection": col.String()}
	}
	extras = append(extras, map[string]any{"frozen": true}, map[string]any{"collection": frozenCol.String()})
	assets := e.createCores(t, holder, holder.PublicKey(), extras...)
	if c := e.coreCollection(t, col); c.CurrentSize != members {
		t.Fatalf("collection holds %d assets, want %d", c.CurrentSize, members)
	}
	s := e.s.in(t)
	listed := map[string]walletItem{}
	for _, it := range s.listAll(t, holder.PublicKey(), s.session(holder.PublicKey())) {
		listed[it.Address] = it
	}
	for i, a := range assets[members:] {
		if it := listed[a.String()]; it.Type != "nft" || len(it.Actions) != 0 || !it.IsFrozen {
			t.Errorf("frozen Core asset %s listed as %+v, want an nft without actions, frozen", a, it)
		}
		// The program agrees: it refuses the owner's burn.
		burn := mplcore.BurnAccounts{}
		if i == 1 {
			burn.Collection = &frozenCol
		}
		if err := simulate(t.Context(), e.v, holder, burn.BurnV1(a, holder.PublicKey()).Instruction()); err == nil {
			t.Errorf("Core accepts the burn of frozen asset %s", a)
		}
	}
	var wants []burnWant
	for _, a := range assets[:members] {
		wants = append(wants, e.coreWant(t, "Core asset in a collection", a))
	}
	landed := e.landBurns(t, holder, wants, nil)
	measure("Core asset in a collection", mplcore.ProgramID, wants[0].lamports, landed)
	e.checkCoreStubs(t, assets[:members]...)
	if c := e.coreCollection(t, col); c.CurrentSize != 0 || c.NumMinted != members {
		t.Errorf("collection after the burns: %d assets of %d minted, want 0 of %d", c.CurrentSize, c.NumMinted, members)
	}
	for _, a := range assets[members:] {
		if acc := accountOf(t, e.v, a); acc == nil || slices.Equal(acc.Data.GetBinary(), []byte{0}) {
			t.Errorf("frozen asset %s is gone", a)
		}
	}
}

func (e *burnEnv) coreCollection(t *testing.T, key solana.PublicKey) mplcore.Collection {
	t.Helper()
	c, err := mplcore.ParseCollection(accountOf(t, e.v, key).Data.GetBinary())
	if err != nil {
		t.Fatalf("collection %s: %v", key, err)
	}
	return c
}
