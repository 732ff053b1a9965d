// Package cnft plans the burn of a compressed NFT (cNFT): it reads the leaf
// and its proof from a DAS indexer (package das) and the tree's header from
// the cluster, and encodes Bubblegum's `burn` or `burn_v2` (package
// bubblegum).
//
// An indexer's proof always has maxDepth nodes; the tree keeps the top
// canopy-depth levels on chain, so Planner reads the canopy depth from the
// tree account's header and size and passes only the first maxDepth -
// canopyDepth siblings, exactly as mpl-bubblegum's
// getAssetWithProof({truncateCanopy: true}). A V2 leaf's burn_v2 is built
// from the indexer's V2 fields (flags, asset data hash) and the MPL Core
// collection it is grouped in.
package cnft

import (
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/upstream/das"
)

// Indexer is the part of a DAS client a burn needs; *das.Client is one.
type Indexer interface {
	Asset(ctx context.Context, id string) (*das.Asset, error)
	AssetProof(ctx context.Context, id string) (*das.AssetProof, error)
}

// AccountReader reads the tree account; solana-go's *rpc.Client is one.
type AccountReader interface {
	GetAccountInfoWithOpts(ctx context.Context, account solana.PublicKey, opts *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error)
}

// Planner builds cNFT burns from an indexer's view of the leaf and the tree's
// canopy read from the cluster.
type Planner struct {
	indexer Indexer
	rpc     AccountReader
}

// NewPlanner reads assets and proofs from indexer and tree accounts from rpc.
func NewPlanner(indexer Indexer, rpc AccountReader) *Planner {
	return &Planner{indexer: indexer, rpc: rpc}
}

// Reasons of the *assets.ItemError BurnInstruction returns (a cNFT
// selection the wallet cannot burn; its Address is the asset id).
const (
	ReasonNotFound    = "asset not found"
	ReasonNotCNFT     = "not a compressed NFT"
	ReasonBurnt       = "compressed NFT is already burnt"
	ReasonOtherWallet = "compressed NFT is owned by another wallet"
	ReasonFrozen      = "compressed NFT is frozen"
)

// BurnInstruction builds the burn of wallet's cNFT assetID: `burn` for a
// leaf of a V1 tree (owned by SPL Account Compression), `burn_v2` for one of
// a V2 tree (MPL Account Compression). A selection the wallet cannot burn
// (unknown, not compressed, burnt, another wallet's, frozen) is an *assets.ItemError;
// an indexer or cluster failing, or an indexer whose leaf does not fit the
// tree, is any other error. The proof is only as fresh as the indexer: a
// leaf changed since makes the program refuse the root when the tree's
// change-log buffer has moved past it.
func (p *Planner) BurnInstruction(ctx context.Context, wallet, assetID solana.PublicKey) (*solana.GenericInstruction, error) {
	asset, proof, err := p.read(ctx, assetID.String())
	if err != nil {
		return nil, err
	}
	if reason := refuse(asset, wallet); reason != "" {
		return nil, &assets.ItemError{Address: assetID.String(), Reason: reason}
	}
	b, err := burnOf(asset, proof, wallet)
	if err != nil {
		return nil, fmt.Errorf("cnft %s: %w", assetID, err)
	}
	tree, err := p.tree(ctx, b.MerkleTree)
	if err != nil {
		var e *assets.ItemError
		if errors.As(err, &e) {
			e.Address = assetID.String()
		}
		return nil, err
	}
	if tree.MaxDepth != len(b.Proof) {
		return nil, fmt.Errorf("cnft %s: proof of %d nodes for a tree of depth %d", assetID, len(b.Proof), tree.MaxDepth)
	}
	b.Proof = b.Proof[:tree.MaxDepth-tree.CanopyDepth]
	if v2 := asset.Compression.IsV2(); v2 != tree.V2 {
		return nil, fmt.Errorf("cnft %s: the indexer reports a leaf of schema %s in a %s tree", assetID, version(v2), version(tree.V2))
	}
	if !tree.V2 {
		return b.Instruction(), nil
	}
	b2, err := burnV2Of(b, asset)
	if err != nil {
		return nil, fmt.Errorf("cnft %s: %w", assetID, err)
	}
	return b2.Instruction(), nil
}

func version(v2 bool) string {
	if v2 {
		return "V2"
	}
	return "V1"
}

// read asks for the asset and its proof at once.
func (p *Planner) read(ctx context.Context, id string) (*das.Asset, *das.AssetProof, error) {
	type proofResult struct {
		proof *das.AssetProof
		err   error
	}
	ch := make(chan proofResult, 1)
	go func() {
		pr, err := p.indexer.AssetProof(ctx, id)
		ch <- proofResult{pr, err}
	}()
	asset, err := p.indexer.Asset(ctx, id)
	pr := <-ch
	if err == nil {
		err = pr.err
	}
	if errors.Is(err, das.ErrNotFound) {
		return nil, nil, &assets.ItemError{Address: id, Reason: ReasonNotFound}
	}
	if err != nil {
		return nil, nil, err
	}
	return asset, pr.proof, nil
}

func refuse(a *das.Asset, wallet solana.PublicKey) string {
	switch {
	case !a.Compression.Compressed:
		return ReasonNotCNFT
	case a.Burnt:
		return ReasonBurnt
	case a.Ownership.Owner != wallet.String():
		return ReasonOtherWallet
	case a.Ownership.Frozen || a.Compression.Frozen():
		return ReasonFrozen
	}
	return ""
}

// burnOf decodes the indexer's answer into a bubblegum.Burn with the full
// proof. The index is node_index - 2^depth, as mpl-bubblegum computes it.
func burnOf(a *das.Asset, pr *das.AssetProof, wallet solana.PublicKey) (bubblegum.Burn, error) {
	b := bubblegum.Burn{LeafOwner: wallet, LeafDelegate: wallet, Nonce: a.Compression.LeafID}
	if a.Ownership.Delegate != nil && *a.Ownership.Delegate != "" {
		d, err := solana.PublicKeyFromBase58(*a.Ownership.Delegate)
		if err != nil {
			return bubblegum.Burn{}, fmt.Errorf("delegate: %w", err)
		}
		b.LeafDelegate = d
	}
	if pr.TreeID != a.Compression.Tree {
		return bubblegum.Burn{}, fmt.Errorf("proof of tree %s for a leaf of tree %s", pr.TreeID, a.Compression.Tree)
	}
	depth := len(pr.Proof)
	if depth < 1 || depth > bubblegum.MaxTreeDepth || pr.NodeIndex < 1<<depth || pr.NodeIndex >= 2<<depth {
		return bubblegum.Burn{}, fmt.Errorf("proof of %d nodes with node index %d", depth, pr.NodeIndex)
	}
	b.Index = uint32(pr.NodeIndex - 1<<depth)
	var err error
	fields := []struct {
		name string
		in   string
		out  *[32]byte
	}{{"tree", pr.TreeID, (*[32]byte)(&b.MerkleTree)}, {"root", pr.Root, &b.Root}, {"data_hash", a.Compression.DataHash, &b.DataHash}, {"creator_hash", a.Compression.CreatorHash, &b.CreatorHash}}
	for _, f := range fields {
		if *f.out, err = solana.PublicKeyFromBase58(f.in); err != nil {
			return bubblegum.Burn{}, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	b.Proof = make([]solana.PublicKey, depth)
	for i, s := range pr.Proof {
		if b.Proof[i], err = solana.PublicKeyFromBase58(s); err != nil {
			return bubblegum.Burn{}, fmt.Errorf("proof node %d: %w", i, err)
		}
	}
	return b, nil
}

// tree reads the tree's header and size. With the size known (the cluster
// reports "space") only the header is read; otherwise the whole account.
func (p *Planner) tree(ctx context.Context, key solana.PublicKey) (bubblegum.Tree, error) {
	length := uint64(bubblegum.TreeHeaderSize)
	opts := &rpc.GetAccountInfoOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed,
		DataSlice: &rpc.DataSlice{Offset: new(uint64), Length: &length}}
	res, err := p.rpc.GetAccountInfoWithOpts(ctx, key, opts)
	if errors.Is(err, rpc.ErrNotFound) || (err == nil && (res == nil || res.Value == nil)) {
		return bubblegum.Tree{}, &assets.ItemError{Reason: fmt.Sprintf("merkle tree %s not found", key)}
	}
	if err != nil {
		return bubblegum.Tree{}, fmt.Errorf("read merkle tree %s: %w", key, err)
	}
	acc := res.Value
	size := int(acc.Space)
	if size == 0 {
		full := &rpc.GetAccountInfoOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed}
		if res, err = p.rpc.GetAccountInfoWithOpts(ctx, key, full); err != nil {
			return bubblegum.Tree{}, fmt.Errorf("read merkle tree %s: %w", key, err)
		}
		if res == nil || res.Value == nil {
			return bubblegum.Tree{}, fmt.Errorf("read merkle tree %s: gone between two reads", key)
		}
		acc = res.Value
		size = len(acc.Data.GetBinary())
	}
	if acc.Owner != bubblegum.CompressionProgramID && acc.Owner != bubblegum.MPLCompressionProgramID {
		return bubblegum.Tree{}, fmt.Errorf("merkle tree %s is owned by %s", key, acc.Owner)
	}
	t, err := bubblegum.ParseTree(acc.Data.GetBinary(), size)
	if err != nil {
		return bubblegum.Tree{}, fmt.Errorf("merkle tree %s: %w", key, err)
	}
	t.V2 = acc.Owner == bubblegum.MPLCompressionProgramID
	return t, nil
}

// burnV2Of is the burn_v2 of the V2 leaf b was decoded from: with the
// indexer's asset data hash and flags, and the collection the indexer
// groups it in, which must hash to the leaf's collection hash (the program
// hashes the account it is given into the leaf it proves).
func burnV2Of(b bubblegum.Burn, a *das.Asset) (bubblegum.BurnV2, error) {
	c := a.Compression
	out := bubblegum.BurnV2{
		LeafOwner: b.LeafOwner, LeafDelegate: b.LeafDelegate, MerkleTree: b.MerkleTree, Root: b.Root,
		DataHash: b.DataHash, CreatorHash: b.CreatorHash, AssetDataHash: bubblegum.DefaultAssetDataHash,
		Nonce: b.Nonce, Index: b.Index, Proof: b.Proof,
	}
	if c.Flags != nil {
		out.Flags = *c.Flags
	}
	if c.AssetDataHash != nil {
		h, err := solana.PublicKeyFromBase58(*c.AssetDataHash)
		if err != nil {
			return bubblegum.BurnV2{}, fmt.Errorf("asset_data_hash: %w", err)
		}
		out.AssetDataHash = h
	}
	collectionHash := bubblegum.DefaultCollectionHash
	for _, g := range a.Grouping {
		if g.Key != "collection" {
			continue
		}
		key, err := solana.PublicKeyFromBase58(g.Value)
		if err != nil {
			return bubblegum.BurnV2{}, fmt.Errorf("collection: %w", err)
		}
		out.CoreCollection, collectionHash = &key, bubblegum.Keccak(key[:])
		break
	}
	if c.CollectionHash != nil && *c.CollectionHash != solana.PublicKeyFromBytes(collectionHash[:]).String() {
		return bubblegum.BurnV2{}, fmt.Errorf("collection_hash %s is not the hash of the collection grouped (%v)", *c.CollectionHash, out.CoreCollection)
	}
	return out, nil
}
