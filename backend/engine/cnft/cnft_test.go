package cnft

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/upstream/das"
)

var (
	owner   = solana.MustPublicKeyFromBase58("3GSXQm66NE2wDpw31q7uC9DDoMjG2c2LvHgVnjmTgkuv")
	assetID = solana.MustPublicKeyFromBase58("DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV")
)

// indexerServer replays das's recorded getAsset and getAssetProof.
func indexerServer(t *testing.T) *das.Client {
	t.Helper()
	files := map[string]string{"getAsset": "../../upstream/das/testdata/getAsset.json", "getAssetProof": "../../upstream/das/testdata/getAssetProof.json"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string            `json:"method"`
			Params map[string]string `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Params["id"] != assetID.String() {
			t.Errorf("request %+v: %v", req, err)
		}
		b, err := os.ReadFile(files[req.Method])
		if err != nil {
			t.Error(err)
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return das.New(srv.URL, nil, das.Options{})
}

// fakeRPC is a hand-written AccountReader.
type fakeRPC struct {
	get   func(key solana.PublicKey, opts *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error)
	calls int
}

func (f *fakeRPC) GetAccountInfoWithOpts(_ context.Context, key solana.PublicKey, opts *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
	f.calls++
	return f.get(key, opts)
}

// treeAccount is a tree account of the given shape; whole includes every byte.
func treeAccount(owner solana.PublicKey, depth, buffer, canopy int, whole bool) *rpc.GetAccountInfoResult {
	size := bubblegum.AccountSize(depth, buffer, canopy)
	data := make([]byte, bubblegum.TreeHeaderSize)
	if whole {
		data = make([]byte, size)
	}
	data[0], data[2], data[3], data[6] = 1, byte(buffer), byte(buffer>>8), byte(depth)
	acc := &rpc.Account{Owner: owner, Data: rpc.DataBytesOrJSONFromBytes(data)}
	if !whole {
		acc.Space = uint64(size)
	}
	return &rpc.GetAccountInfoResult{Value: acc}
}

func TestBubblegumPlannerBurn(t *testing.T) {
	t.Parallel()
	want := goldenBurn(t) // the same leaf, canopy 11 of depth 14
	tree := solana.MustPublicKeyFromBase58("4SdqgFcQzs6C5XrYF5SaPQrcsLKwip4CLEF8qDGnzsLG")
	t.Run("header and space", func(t *testing.T) {
		t.Parallel()
		f := &fakeRPC{get: func(key solana.PublicKey, opts *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
			if key != tree || opts.DataSlice == nil || *opts.DataSlice.Length != bubblegum.TreeHeaderSize {
				t.Errorf("read %s %+v", key, opts.DataSlice)
			}
			return treeAccount(bubblegum.CompressionProgramID, 14, 64, 11, false), nil
		}}
		ix, err := NewPlanner(indexerServer(t), f).BurnInstruction(context.Background(), owner, assetID)
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(ix); !reflect.DeepEqual(got, want) || f.calls != 1 {
			t.Errorf("got %+v in %d reads, want %+v", got, f.calls, want)
		}
	})
	t.Run("no space reported: whole account", func(t *testing.T) {
		t.Parallel()
		f := &fakeRPC{get: func(key solana.PublicKey, opts *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
			if opts.DataSlice != nil {
				return &rpc.GetAccountInfoResult{Value: &rpc.Account{Owner: bubblegum.CompressionProgramID, Data: rpc.DataBytesOrJSONFromBytes(make([]byte, bubblegum.TreeHeaderSize))}}, nil
			}
			return treeAccount(bubblegum.CompressionProgramID, 14, 64, 11, true), nil
		}}
		ix, err := NewPlanner(indexerServer(t), f).BurnInstruction(context.Background(), owner, assetID)
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(ix); !reflect.DeepEqual(got, want) || f.calls != 2 {
			t.Errorf("got %+v in %d reads, want %+v", got, f.calls, want)
		}
	})
}

// fakeIndexer is a hand-written Indexer.
type fakeIndexer struct {
	asset *das.Asset
	proof *das.AssetProof
	err   error
}

func (f fakeIndexer) Asset(context.Context, string) (*das.Asset, error) { return f.asset, f.err }
func (f fakeIndexer) AssetProof(context.Context, string) (*das.AssetProof, error) {
	return f.proof, f.err
}

// recorded is an indexer answering das's recorded getAsset and
// getAssetProof.
func recorded(t *testing.T) fakeIndexer {
	t.Helper()
	var a struct{ Result das.Asset }
	var p struct{ Result das.AssetProof }
	for file, v := range map[string]any{"../../upstream/das/testdata/getAsset.json": &a, "../../upstream/das/testdata/getAssetProof.json": &p} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	return fakeIndexer{asset: &a.Result, proof: &p.Result}
}

func TestBubblegumPlannerRefusals(t *testing.T) {
	t.Parallel()
	base := func() fakeIndexer { return recorded(t) }
	v1Tree := func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
		return treeAccount(bubblegum.CompressionProgramID, 14, 64, 11, false), nil
	}
	flags, frozenFlags := uint8(0), uint8(das.FlagFrozenByPermDelegate)
	v2Tree := func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
		return treeAccount(bubblegum.MPLCompressionProgramID, 14, 64, 11, false), nil
	}
	cases := []struct {
		name   string
		edit   func(f *fakeIndexer)
		tree   func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error)
		reason string // "" for an error that is not an *assets.ItemError
	}{
		{"unknown to the indexer", func(f *fakeIndexer) {
			f.err = &das.RPCError{Method: "getAsset", Code: -32000, Message: "Asset Not Found"}
		}, v1Tree, ReasonNotFound},
		{"indexer down", func(f *fakeIndexer) { f.err = errors.New("das getAsset: status 503") }, v1Tree, ""},
		{"not compressed", func(f *fakeIndexer) { f.asset.Compression.Compressed = false }, v1Tree, ReasonNotCNFT},
		{"burnt", func(f *fakeIndexer) { f.asset.Burnt = true }, v1Tree, ReasonBurnt},
		{"another wallet", func(f *fakeIndexer) { f.asset.Ownership.Owner = "8cSdR87JSzaqzYfCcJqgz213Xb5Y6ZGUsGqeYYBJEvNc" }, v1Tree, ReasonOtherWallet},
		{"frozen", func(f *fakeIndexer) { f.asset.Ownership.Frozen = true }, v1Tree, ReasonFrozen},
		{"V2 leaf frozen by its flags", func(f *fakeIndexer) { f.asset.Compression.Flags = &frozenFlags }, v2Tree, ReasonFrozen},
		{"V2 leaf in a V1 tree", func(f *fakeIndexer) { f.asset.Compression.Flags = &flags }, v1Tree, ""},
		{"V1 leaf in a V2 tree", func(*fakeIndexer) {}, v2Tree, ""},
		{"V2 leaf whose collection hash is not its grouping's", func(f *fakeIndexer) {
			h := "BwJjS7rpRDDUCUaFhZGndkY9TMBgGn1ag6VGBQzUcvis"
			f.asset.Compression.Flags, f.asset.Compression.CollectionHash = &flags, &h
		}, v2Tree, ""},
		{"tree gone", func(*fakeIndexer) {}, func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
			return nil, rpc.ErrNotFound
		}, "merkle tree 4SdqgFcQzs6C5XrYF5SaPQrcsLKwip4CLEF8qDGnzsLG not found"},
		{"cluster down", func(*fakeIndexer) {}, func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
			return nil, errors.New("connection refused")
		}, ""},
		{"tree of another program", func(*fakeIndexer) {}, func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
			return treeAccount(solana.SystemProgramID, 14, 64, 11, false), nil
		}, ""},
		{"proof shorter than the tree", func(*fakeIndexer) {}, func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
			return treeAccount(bubblegum.CompressionProgramID, 20, 64, 11, false), nil
		}, ""},
		{"proof of another tree", func(f *fakeIndexer) { f.proof.TreeID = "GYYLhQiU9Sjbo6ZmyD97U8f5tu8aDfrA91Ef5FJuCURF" }, v1Tree, ""},
		{"node index outside the leaves", func(f *fakeIndexer) { f.proof.NodeIndex = 5 }, v1Tree, ""},
		{"bad data hash", func(f *fakeIndexer) { f.asset.Compression.DataHash = "0OIl" }, v1Tree, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			idx := base()
			tc.edit(&idx)
			_, err := NewPlanner(idx, &fakeRPC{get: tc.tree}).BurnInstruction(context.Background(), owner, assetID)
			if err == nil {
				t.Fatal("no error")
			}
			var ie *assets.ItemError
			isItem := errors.As(err, &ie)
			if tc.reason == "" {
				if isItem {
					t.Errorf("err = %v, an *assets.ItemError", err)
				}
				return
			}
			if !isItem || ie.Reason != tc.reason || ie.Item() != assetID.String() {
				t.Errorf("err = %#v, want reason %q for %s", err, tc.reason, assetID)
			}
		})
	}
}

// TestBubblegumPlannerBurnV2 plans the burn of a V2 leaf: burn_v2 with the
// indexer's asset data hash and flags, the collection it is grouped in, and
// the proof below the canopy.
func TestBubblegumPlannerBurnV2(t *testing.T) {
	t.Parallel()
	idx := recorded(t)
	asset, proof := idx.asset, idx.proof
	collection := solana.MustPublicKeyFromBase58(asset.Grouping[0].Value)
	collectionHash := bubblegum.Keccak(collection[:])
	c := &asset.Compression
	nonTransferable, assetData, colHash := uint8(das.FlagNonTransferable), "EGcoh4Mz6wzxK2vqDdfu9rDJKsW6fzGS6wkc3BDqtGvW", solana.PublicKeyFromBytes(collectionHash[:]).String()
	c.Flags, c.AssetDataHash, c.CollectionHash = &nonTransferable, &assetData, &colHash
	tree := func(solana.PublicKey, *rpc.GetAccountInfoOpts) (*rpc.GetAccountInfoResult, error) {
		return treeAccount(bubblegum.MPLCompressionProgramID, 14, 64, 11, false), nil
	}
	ix, err := NewPlanner(idx, &fakeRPC{get: tree}).BurnInstruction(context.Background(), owner, assetID)
	if err != nil {
		t.Fatal(err)
	}
	want := bubblegum.BurnV2{
		LeafOwner: owner, LeafDelegate: owner, MerkleTree: solana.MustPublicKeyFromBase58(proof.TreeID), CoreCollection: &collection,
		Root: solana.MustPublicKeyFromBase58(proof.Root), DataHash: solana.MustPublicKeyFromBase58(c.DataHash),
		CreatorHash: solana.MustPublicKeyFromBase58(c.CreatorHash), AssetDataHash: solana.MustPublicKeyFromBase58(assetData),
		Flags: nonTransferable, Nonce: c.LeafID, Index: uint32(proof.NodeIndex - 1<<14),
	}
	for _, n := range proof.Proof[:3] {
		want.Proof = append(want.Proof, solana.MustPublicKeyFromBase58(n))
	}
	if got, exp := encode(ix), encode(want.Instruction()); !reflect.DeepEqual(got, exp) {
		t.Errorf("got %+v\nwant %+v", got, exp)
	}
}

// builtBurn is an instruction as e2e/bubblegumclient/burn.js prints it.
type builtBurn struct {
	ProgramID string `json:"programId"`
	Keys      []meta `json:"keys"`
	Data      string `json:"data"`
}

type meta struct {
	Pubkey     string `json:"pubkey"`
	IsSigner   bool   `json:"isSigner"`
	IsWritable bool   `json:"isWritable"`
}

func encode(ix solana.Instruction) builtBurn {
	data, _ := ix.Data()
	out := builtBurn{ProgramID: ix.ProgramID().String(), Data: base64.StdEncoding.EncodeToString(data), Keys: []meta{}}
	for _, a := range ix.Accounts() {
		out.Keys = append(out.Keys, meta{a.PublicKey.String(), a.IsSigner, a.IsWritable})
	}
	return out
}

// goldenBurn is the first burn mpl-bubblegum built in package bubblegum's
// testdata/burn.golden: the leaf of das's recorded getAsset, canopy 11 of
// depth 14.
func goldenBurn(t *testing.T) builtBurn {
	t.Helper()
	raw, err := os.ReadFile("../../chain/bubblegum/testdata/burn.golden")
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Burns []builtBurn `json:"burns"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Burns) == 0 {
		t.Fatalf("burn.golden: %v", err)
	}
	return out.Burns[0]
}
