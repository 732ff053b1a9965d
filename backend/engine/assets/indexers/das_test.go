package indexers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/upstream/das"
)

var _ assets.Source = (*DASSource)(nil)

// ownersFunc is a hand-written fake of DASOwners.
type ownersFunc func(ctx context.Context, owner string) ([]das.Asset, error)

func (f ownersFunc) AssetsByOwner(ctx context.Context, owner string) ([]das.Asset, error) {
	return f(ctx, owner)
}

// recorded is dir/testdata/file, an indexer's answer recorded beside its
// client (backend/upstream/dir).
func recorded(t *testing.T, dir, file string) []byte {
	t.Helper()
	b, err := os.ReadFile("../../../upstream/" + dir + "/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serve replays dir/testdata/file for every request of method.
func serve(t *testing.T, dir, method, file string) *httptest.Server {
	t.Helper()
	body := recorded(t, dir, file)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c struct {
			Method string `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil || c.Method != method {
			t.Errorf("method = %q (%v), want %q", c.Method, err, method)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var wallet = solana.MustPublicKeyFromBase58("3GSXQm66NE2wDpw31q7uC9DDoMjG2c2LvHgVnjmTgkuv")

func key(s string) solana.PublicKey { return solana.MustPublicKeyFromBase58(s) }

// TestDASSourceItems maps the recorded getAssetsByOwner page, served over
// HTTP, to items exactly.
func TestDASSourceItems(t *testing.T) {
	t.Parallel()
	srv := serve(t, "das", "getAssetsByOwner", "getAssetsByOwner.json")
	src := NewDASSource(das.New(srv.URL, nil, das.Options{}))
	if src.Name() != "das" {
		t.Errorf("name = %q", src.Name())
	}
	got, err := src.Items(context.Background(), wallet)
	if err != nil {
		t.Fatal(err)
	}
	want := []assets.Item{
		{
			Type: assets.TypeCNFT, Address: key("DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV"), Owner: wallet,
			Mint: key("DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV"), TokenProgram: bubblegum.ProgramID,
			Name: "Drip #1234", Symbol: "DRIP", URI: "https://arweave.net/7Fj1rG9mQ2tXbGm9c3Yx1nYw0Zq0Q2Zr7Kk1Vb8Y2aE",
			ImageURI:   "https://arweave.net/Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s",
			Collection: &assets.Collection{Address: "CGeqAKLUJsajD7oV4eAnZwHNyxFSC5W6JLZou9bSEACH", Name: "Drip Season 2"},
			Actions:    []assets.Action{assets.ActionBurn},
		},
		{
			// Delegated, with an unverified collection (dropped), image only in files.
			Type: assets.TypeCNFT, Address: key("ACca8i3zzQHqoKU6NMaQ17gPWPpV8SeEJ6rD59zBhHf3"), Owner: wallet,
			Mint: key("ACca8i3zzQHqoKU6NMaQ17gPWPpV8SeEJ6rD59zBhHf3"), TokenProgram: bubblegum.ProgramID,
			Name: "Claim 500 USDC", URI: "https://example-airdrop.xyz/meta/88.json",
			ImageURI: "https://example-airdrop.xyz/img/88.gif", Actions: []assets.Action{assets.ActionBurn},
		},
		{
			// Bubblegum V2, frozen: listed, no action.
			Type: assets.TypeCNFT, Address: key("G89wu1dRG3jPj6gNdVcZycRQmCZ4crrLFgnBEDYVZSgr"), Owner: wallet,
			Mint: key("G89wu1dRG3jPj6gNdVcZycRQmCZ4crrLFgnBEDYVZSgr"), TokenProgram: bubblegum.ProgramID,
			Name: "Frozen Pass", Symbol: "PASS", URI: "https://example.com/v2/7.json",
			ImageURI: "https://example.com/v2/7.png", IsFrozen: true, Actions: []assets.Action{},
		},
		// The burnt cnft, the pNFT and USDC (an SPL Token account) are not listed.
		{
			Type: assets.TypeFungibleAsset, Address: key("7ti8Srg7snwDaMmFDJPnJV4PAyGPAdkdUJNWQAxvwatb"), Owner: wallet,
			Mint: key("6osUjF1mAfzWy7eeGnV8PbvarnEcuMHTxJ8pZppKXcx3"), TokenProgram: key("CAL4hdAbE55h9NmgjajhYTxeUBWvz8bW4rfHKGa8xVzY"),
			Name: "Health Potion", Symbol: "POT", URI: "https://game.example/items/potion.json",
			ImageURI: "https://game.example/items/potion.png", Amount: 12, UIBalance: 12, Actions: []assets.Action{},
		},
	}
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w assets.Item
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("item %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	}
}

func TestDASSourceFungibles(t *testing.T) {
	t.Parallel()
	usdc := das.Asset{
		Interface: "FungibleToken", ID: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		Ownership: das.Ownership{Owner: wallet.String()},
		TokenInfo: &das.TokenInfo{
			Symbol: "USDC", Balance: "1250000", Decimals: 6, TokenProgram: solana.TokenProgramID.String(),
			AssociatedTokenAddress: "BhsQwMjga5X9UKR6a7q6dGZy5bixPaJYwWJTpkCSGf4y",
		},
	}
	owners := ownersFunc(func(context.Context, string) ([]das.Asset, error) { return []das.Asset{usdc}, nil })
	if got, err := NewDASSource(owners).Items(context.Background(), wallet); err != nil || len(got) != 0 {
		t.Errorf("default: %v, %v (an SPL Token account is listed by package assets)", got, err)
	}
	got, err := NewDASSource(owners, solana.Token2022ProgramID).Items(context.Background(), wallet)
	if err != nil || len(got) != 1 {
		t.Fatalf("only Token-2022 listed elsewhere: %v, %v", got, err)
	}
	if it := got[0]; it.Type != assets.TypeFungibleAsset || it.Amount != 1250000 || it.UIBalance != 1.25 || it.Symbol != "USDC" || it.Name != "" {
		t.Errorf("item = %+v", it)
	}
}

func TestDASSourceSkips(t *testing.T) {
	t.Parallel()
	cnft := func(id, owner string) das.Asset {
		return das.Asset{ID: id, Compression: das.Compression{Compressed: true}, Ownership: das.Ownership{Owner: owner}}
	}
	list := []das.Asset{
		cnft("not-a-key", wallet.String()),
		cnft("DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV", "8cSdR87JSzaqzYfCcJqgz213Xb5Y6ZGUsGqeYYBJEvNc"),
		{Interface: "FungibleAsset", ID: "6osUjF1mAfzWy7eeGnV8PbvarnEcuMHTxJ8pZppKXcx3", Ownership: das.Ownership{Owner: wallet.String()}},
	}
	owners := ownersFunc(func(context.Context, string) ([]das.Asset, error) { return list, nil })
	if got, err := NewDASSource(owners).Items(context.Background(), wallet); err != nil || len(got) != 0 {
		t.Errorf("got %+v, %v", got, err)
	}
	boom := errors.New("boom")
	failing := ownersFunc(func(context.Context, string) ([]das.Asset, error) { return nil, boom })
	if _, err := NewDASSource(failing).Items(context.Background(), wallet); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

// TestDASSourceV2Leaves: a Bubblegum V2 leaf burns (burn_v2) unless its flags
// or DAS's ownership freeze it; a non-transferable leaf still burns.
func TestDASSourceV2Leaves(t *testing.T) {
	t.Parallel()
	leaf := func(id string, flags uint8, frozen bool) das.Asset {
		h := "BwJjS7rpRDDUCUaFhZGndkY9TMBgGn1ag6VGBQzUcvis"
		return das.Asset{ID: id, Compression: das.Compression{Compressed: true, Flags: &flags, AssetDataHash: &h, CollectionHash: &h},
			Ownership: das.Ownership{Owner: wallet.String(), Frozen: frozen}}
	}
	list := []das.Asset{
		leaf("DBDmGn3wxTy6sCTxcqufhH2RyZvPzUH4WQ4VqFovETcV", 0, false),
		leaf("ACca8i3zzQHqoKU6NMaQ17gPWPpV8SeEJ6rD59zBhHf3", das.FlagNonTransferable, false),
		leaf("G89wu1dRG3jPj6gNdVcZycRQmCZ4crrLFgnBEDYVZSgr", das.FlagFrozenByPermDelegate, false),
		leaf("7ti8Srg7snwDaMmFDJPnJV4PAyGPAdkdUJNWQAxvwatb", 0, true),
	}
	owners := ownersFunc(func(context.Context, string) ([]das.Asset, error) { return list, nil })
	got, err := NewDASSource(owners).Items(context.Background(), wallet)
	if err != nil || len(got) != len(list) {
		t.Fatalf("got %+v, %v", got, err)
	}
	for i, burns := range []bool{true, true, false, false} {
		if it := got[i]; (len(it.Actions) == 1) != burns || it.IsFrozen == burns {
			t.Errorf("%s: actions %v, frozen %v; want burn %v", it.Address, it.Actions, it.IsFrozen, burns)
		}
	}
}

// TestDASImage: an indexer relays whatever the metadata says; only http(s),
// ipfs and ar images reach a listing, the first such of links.image and the
// image files.
func TestDASImage(t *testing.T) {
	t.Parallel()
	content := func(link string, files ...das.File) das.Content {
		var c das.Content
		c.Links.Image, c.Files = link, files
		return c
	}
	cases := []struct {
		name string
		c    das.Content
		want string
	}{
		{"links.image", content("https://cdn.example/1.png"), "https://cdn.example/1.png"},
		{"ipfs as it is", content("ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.png"), "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.png"},
		{"javascript: dropped for the image file", content("javascript:alert(1)", das.File{URI: "https://cdn.example/2.png", MIME: "image/png"}), "https://cdn.example/2.png"},
		{"data: files skipped", content("", das.File{URI: "data:image/svg+xml,<svg onload=alert(1)>", MIME: "image/svg+xml"}, das.File{URI: "ar://tx", MIME: "image/png"}), "ar://tx"},
		{"nothing usable", content("file:///etc/passwd", das.File{URI: "vbscript:x", MIME: "image/png"}), ""},
	}
	for _, c := range cases {
		if got := Image(c.c); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
