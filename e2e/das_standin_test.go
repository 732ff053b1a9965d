package e2e

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// dasStandIn answers the DAS methods the service calls (getAssetsByOwner,
// getAsset, getAssetProof) for the compressed NFTs the tests minted, as an
// indexer would from the chain: it keeps every leaf of each tree, computes
// roots and proofs (canopy levels included) with Bubblegum's hashes, and
// checks its root against the tree account's current root after each change
// it learns of (checkRoot). It learns of mints and burns from the tests, not
// by reading transactions.
type dasStandIn struct {
	v   *harness.Validator
	srv *httptest.Server

	mu     sync.Mutex
	trees  map[solana.PublicKey]*standInTree
	assets map[solana.PublicKey]*standInLeaf
}

type standInTree struct {
	depth  int
	leaves [][32]byte
}

// standInLeaf is a minted leaf as DAS reports it.
type standInLeaf struct {
	id, tree, owner solana.PublicKey
	index           uint32
	v2              bool
	name, uri       string
	dataHash        [32]byte
	creatorHash     [32]byte
	// V2 only.
	collectionHash, assetDataHash [32]byte
	flags                         uint8
	collection                    *solana.PublicKey
	burnt                         bool
}

func newDASStandIn(t *testing.T, v *harness.Validator) *dasStandIn {
	d := &dasStandIn{v: v, trees: map[solana.PublicKey]*standInTree{}, assets: map[solana.PublicKey]*standInLeaf{}}
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(d.srv.Close)
	return d
}

// hash is the leaf's node: keccak256 of the schema version, id, owner,
// delegate (the owner), nonce (u64 LE), data and creator hashes, and for V2
// the collection and asset data hashes and the flags.
func (l *standInLeaf) hash() [32]byte {
	nonce := binary.LittleEndian.AppendUint64(nil, uint64(l.index))
	if !l.v2 {
		return bubblegum.Keccak([]byte{1}, l.id[:], l.owner[:], l.owner[:], nonce, l.dataHash[:], l.creatorHash[:])
	}
	return bubblegum.Keccak([]byte{2}, l.id[:], l.owner[:], l.owner[:], nonce, l.dataHash[:], l.creatorHash[:],
		l.collectionHash[:], l.assetDataHash[:], []byte{l.flags})
}

func (d *dasStandIn) addTree(tree solana.PublicKey, depth int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.trees[tree] = &standInTree{depth: depth}
}

// mint appends l to its tree; the leaf hash must be mpl-bubblegum's.
func (d *dasStandIn) mint(t *testing.T, l *standInLeaf, want [32]byte) {
	t.Helper()
	if got := l.hash(); got != want {
		t.Fatalf("leaf %d of %s: hash %s, mpl-bubblegum says %s", l.index, l.tree, solana.PublicKey(got), solana.PublicKey(want))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	tr := d.trees[l.tree]
	if int(l.index) != len(tr.leaves) {
		t.Fatalf("leaf %d of %s minted after %d leaves", l.index, l.tree, len(tr.leaves))
	}
	tr.leaves = append(tr.leaves, l.hash())
	d.assets[l.id] = l
}

// burn replaces the leaves of ids with empty nodes, as Bubblegum's burn did.
func (d *dasStandIn) burn(ids ...solana.PublicKey) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		l := d.assets[id]
		l.burnt = true
		d.trees[l.tree].leaves[l.index] = [32]byte{}
	}
}

// levels computes every level of tree, from the leaves (level 0) up to the
// root; a level holds the nodes of the leaves minted so far, the rest being
// empty subtrees.
func (tr *standInTree) levels() ([][][32]byte, [][32]byte) {
	empty := make([][32]byte, tr.depth+1)
	for i := 1; i <= tr.depth; i++ {
		empty[i] = bubblegum.Keccak(empty[i-1][:], empty[i-1][:])
	}
	levels := [][][32]byte{tr.leaves}
	for lvl := 0; lvl < tr.depth; lvl++ {
		cur := levels[lvl]
		next := make([][32]byte, (len(cur)+1)/2)
		for i := range next {
			right := empty[lvl]
			if 2*i+1 < len(cur) {
				right = cur[2*i+1]
			}
			next[i] = bubblegum.Keccak(cur[2*i][:], right[:])
		}
		if len(next) == 0 {
			next = [][32]byte{empty[lvl+1]}
		}
		levels = append(levels, next)
	}
	return levels, empty
}

// proof is the root and the siblings of leaf index, from the leaf up.
func (tr *standInTree) proof(index uint32) ([32]byte, [][32]byte) {
	levels, empty := tr.levels()
	out := make([][32]byte, tr.depth)
	i := int(index)
	for lvl := 0; lvl < tr.depth; lvl++ {
		sib := i ^ 1
		out[lvl] = empty[lvl]
		if sib < len(levels[lvl]) {
			out[lvl] = levels[lvl][sib]
		}
		i /= 2
	}
	return levels[tr.depth][0], out
}

// checkRoot compares the stand-in's root of tree with the tree account's
// current root: change_logs[active_index].root of the ConcurrentMerkleTree
// after the 56-byte header (sequence number, active index and buffer size,
// u64 each, then the change logs of 32 + 32 * depth + 8 bytes).
func (d *dasStandIn) checkRoot(t *testing.T, tree solana.PublicKey) {
	t.Helper()
	d.mu.Lock()
	tr := d.trees[tree]
	root, _ := tr.proof(0)
	depth := tr.depth
	d.mu.Unlock()
	data := accountOf(t, d.v, tree).Data.GetBinary()
	active := binary.LittleEndian.Uint64(data[bubblegum.TreeHeaderSize+8:])
	at := bubblegum.TreeHeaderSize + 24 + int(active)*(32+32*depth+8)
	if onChain := solana.PublicKeyFromBytes(data[at : at+32]); onChain != solana.PublicKey(root) {
		t.Fatalf("tree %s: root %s on chain, the stand-in computes %s", tree, onChain, solana.PublicKey(root))
	}
}

// serve answers one JSON-RPC request.
func (d *dasStandIn) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID           string `json:"id"`
			OwnerAddress string `json:"ownerAddress"`
			Page         int    `json:"page"`
			Limit        int    `json:"limit"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	d.mu.Lock()
	result, rpcErr := d.answer(req.Method, req.Params.ID, req.Params.OwnerAddress, req.Params.Page, req.Params.Limit)
	d.mu.Unlock()
	out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != "" {
		out["error"] = map[string]any{"code": -32000, "message": rpcErr}
	} else {
		out["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (d *dasStandIn) answer(method, id, owner string, page, limit int) (any, string) {
	switch method {
	case "getAssetsByOwner":
		var items []any
		var ids []solana.PublicKey
		for k, l := range d.assets {
			if l.owner.String() == owner && !l.burnt {
				ids = append(ids, k)
			}
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i].String() < ids[j].String() })
		if page < 1 {
			page = 1
		}
		for i, k := range ids {
			if i >= (page-1)*limit && i < page*limit {
				items = append(items, d.assets[k].asset())
			}
		}
		return map[string]any{"total": len(ids), "limit": limit, "page": page, "items": items}, ""
	case "getAsset", "getAssetProof":
		key, err := solana.PublicKeyFromBase58(id)
		l := d.assets[key]
		if err != nil || l == nil {
			return nil, "Asset Not Found"
		}
		if method == "getAsset" {
			return l.asset(), ""
		}
		tr := d.trees[l.tree]
		root, proof := tr.proof(l.index)
		nodes := make([]string, len(proof))
		for i, p := range proof {
			nodes[i] = solana.PublicKey(p).String()
		}
		return map[string]any{"root": solana.PublicKey(root).String(), "proof": nodes, "node_index": 1<<tr.depth + int(l.index),
			"leaf": solana.PublicKey(tr.leaves[l.index]).String(), "tree_id": l.tree.String()}, ""
	}
	return nil, "method not found"
}

// asset is the leaf as DAS's getAsset reports it.
func (l *standInLeaf) asset() map[string]any {
	compression := map[string]any{
		"eligible": false, "compressed": true, "data_hash": solana.PublicKey(l.dataHash).String(),
		"creator_hash": solana.PublicKey(l.creatorHash).String(), "asset_hash": solana.PublicKey(l.hash()).String(),
		"tree": l.tree.String(), "seq": l.index + 1, "leaf_id": l.index,
	}
	grouping := []any{}
	if l.v2 {
		compression["collection_hash"] = solana.PublicKey(l.collectionHash).String()
		compression["asset_data_hash"] = solana.PublicKey(l.assetDataHash).String()
		compression["flags"] = l.flags
		if l.collection != nil {
			grouping = append(grouping, map[string]any{"group_key": "collection", "group_value": l.collection.String()})
		}
	}
	return map[string]any{
		"interface": "V1_NFT", "id": l.id.String(), "burnt": l.burnt, "mutable": true,
		"content":     map[string]any{"json_uri": l.uri, "files": []any{}, "metadata": map[string]any{"name": l.name, "symbol": ""}, "links": map[string]any{}},
		"compression": compression, "grouping": grouping,
		"ownership": map[string]any{"frozen": false, "delegated": false, "delegate": nil, "owner": l.owner.String(), "ownership_model": "single"},
	}
}
