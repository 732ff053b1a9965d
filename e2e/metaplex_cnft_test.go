package e2e

import (
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// Compressed NFTs minted by the real Bubblegum on real trees (V1: SPL
// Account Compression and SPL Noop; V2: MPL Account Compression and MPL
// Noop), listed from the DAS stand-in and burned through the service.

// The trees of the tests: depth 14 (16,384 leaves), a change-log buffer of
// 64, and a canopy of 10 levels, so a burn carries 4 proof nodes.
const (
	treeDepth   = 14
	treeBuffer  = 64
	treeCanopy  = 10
	leavesPerTx = 4
)

// createTree creates a tree owned by the V1 or V2 compression program and
// its Bubblegum tree config (createTreeConfig, createTreeConfigV2, built by
// mpl-bubblegum), creator paying; the stand-in learns of it.
func (e *burnEnv) createTree(t *testing.T, creator solana.PrivateKey, v2 bool) solana.PublicKey {
	t.Helper()
	key := solana.NewWallet().PrivateKey
	size := bubblegum.AccountSize(treeDepth, treeBuffer, treeCanopy)
	owner := bubblegum.CompressionProgramID
	if v2 {
		owner = bubblegum.MPLCompressionProgramID
	}
	var res []struct{ Instructions []jsInstruction }
	runNode(t, "bubblegumclient", "fixtures.js", []map[string]any{{"kind": "createTreeConfig", "v2": v2, "merkleTree": key.PublicKey().String(),
		"payer": creator.PublicKey().String(), "maxDepth": treeDepth, "maxBufferSize": treeBuffer}}, &res)
	ixs := append([]solana.Instruction{system.NewCreateAccountInstruction(minimumBalance(t, e.v, size), uint64(size), owner,
		creator.PublicKey(), key.PublicKey()).Build()}, decodeInstructions(res[0].Instructions)...)
	e.v.Send(t, creator, withUnits(ixs), key)
	e.das.addTree(key.PublicKey(), treeDepth)
	e.das.checkRoot(t, key.PublicKey())
	return key.PublicKey()
}

// mintLeaves mints a leaf to each of owners (mintV1 or mintV2, built by
// mpl-bubblegum, creator paying), leavesPerTx a transaction, after minted
// leaves, into a V2 leaf's Core collection when not nil (creator its update
// authority); the stand-in keeps each leaf, whose hash must be
// mpl-bubblegum's, and its root must be the tree's. It returns the asset ids.
func (e *burnEnv) mintLeaves(t *testing.T, creator solana.PrivateKey, tree solana.PublicKey, v2 bool, collection *solana.PublicKey, minted int, owners ...solana.PublicKey) []solana.PublicKey {
	t.Helper()
	reqs := make([]map[string]any, len(owners))
	for i, o := range owners {
		reqs[i] = map[string]any{"kind": "mint", "v2": v2, "merkleTree": tree.String(), "payer": creator.PublicKey().String(),
			"leafOwner": o.String(), "index": minted + i, "name": fmt.Sprintf("Leaf %d", minted+i), "uri": "https://example.com/leaf.json"}
		if collection != nil {
			reqs[i]["coreCollection"] = collection.String()
		}
	}
	var res []struct {
		Instructions []jsInstruction
		Leaf         struct {
			AssetID, LeafHash, DataHash, CreatorHash, CollectionHash, AssetDataHash string
			Flags                                                                   uint8
		}
	}
	runNode(t, "bubblegumclient", "fixtures.js", reqs, &res)
	var batches []harness.Batch
	for i, r := range res {
		if i%leavesPerTx == 0 {
			batches = append(batches, harness.Batch{Payer: creator})
		}
		b := &batches[len(batches)-1]
		b.Ixs = append(b.Ixs, decodeInstructions(r.Instructions)...)
	}
	for i := range batches {
		batches[i].Ixs = withUnits(batches[i].Ixs)
	}
	e.v.SendAll(t, batches)
	ids := make([]solana.PublicKey, len(res))
	hash := func(s string) [32]byte {
		if s == "" {
			return [32]byte{}
		}
		return solana.MustPublicKeyFromBase58(s)
	}
	for i, r := range res {
		ids[i] = solana.MustPublicKeyFromBase58(r.Leaf.AssetID)
		e.das.mint(t, &standInLeaf{
			id: ids[i], tree: tree, owner: owners[i], index: uint32(minted + i), v2: v2, name: fmt.Sprintf("Leaf %d", minted+i),
			uri: "https://example.com/leaf.json", dataHash: hash(r.Leaf.DataHash), creatorHash: hash(r.Leaf.CreatorHash),
			collectionHash: hash(r.Leaf.CollectionHash), assetDataHash: hash(r.Leaf.AssetDataHash), flags: r.Leaf.Flags,
			collection: collection,
		}, hash(r.Leaf.LeafHash))
	}
	e.das.checkRoot(t, tree)
	return ids
}

// landCNFTs burns a wallet's leaves of a V1 or V2 tree that holds another
// wallet's leaves too: enough to fill a transaction. The stand-in then
// empties them, and its root must be the tree's. On the V2 tree, leaves of
// a Core collection (with the BubblegumV2 plugin) burn too, and the
// collection's size drops.
func landCNFTs(v2 bool) func(t *testing.T, e *burnEnv) {
	return func(t *testing.T, e *burnEnv) {
		creator := e.v.NewWallet(t, 2*solana.LAMPORTS_PER_SOL)
		holder := e.v.NewWallet(t, solana.LAMPORTS_PER_SOL)
		other := e.v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
		tree := e.createTree(t, creator, v2)
		h := holder.PublicKey()
		e.mintLeaves(t, creator, tree, v2, nil, 0, other)
		ids := e.mintLeaves(t, creator, tree, v2, nil, 1, h, h, h, h, h, h)
		e.mintLeaves(t, creator, tree, v2, nil, 7, other)
		kind := fmt.Sprintf("cNFT, Bubblegum V1 (depth %d, canopy %d)", treeDepth, treeCanopy)
		if v2 {
			kind = fmt.Sprintf("cNFT, Bubblegum V2 (depth %d, canopy %d)", treeDepth, treeCanopy)
		}
		landed := e.landBurns(t, holder, cnftWants(kind, ids), func() {
			e.das.burn(ids...)
			e.das.checkRoot(t, tree)
		})
		measure(kind, bubblegum.ProgramID, 0, landed)
		if !v2 {
			return
		}
		col := e.createCoreCollection(t, creator, map[string]any{"bubblegumV2": true})
		inCol := e.mintLeaves(t, creator, tree, v2, &col, 8, h, h, other)
		if c := e.coreCollection(t, col); c.CurrentSize != 3 {
			t.Fatalf("collection holds %d leaves, want 3", c.CurrentSize)
		}
		e.landBurns(t, holder, cnftWants("cNFT, Bubblegum V2, in a Core collection", inCol[:2]), func() {
			e.das.burn(inCol[:2]...)
			e.das.checkRoot(t, tree)
		})
		if c := e.coreCollection(t, col); c.CurrentSize != 1 {
			t.Errorf("collection holds %d leaves after the holder's 2 burned, want 1", c.CurrentSize)
		}
	}
}

func cnftWants(kind string, ids []solana.PublicKey) []burnWant {
	wants := make([]burnWant, len(ids))
	for i, id := range ids {
		wants[i] = burnWant{kind: kind, address: id, typ: "cnft"}
	}
	return wants
}
