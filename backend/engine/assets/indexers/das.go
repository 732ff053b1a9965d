package indexers

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/bubblegum"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/upstream/das"
)

// DASOwners lists a wallet's assets; *das.Client is one.
type DASOwners interface {
	AssetsByOwner(ctx context.Context, owner string) ([]das.Asset, error)
}

// DASSource is the assets.Source of a DAS indexer: cnft and fungible_asset
// items (see the package comment for what is listed and why).
type DASSource struct {
	owners DASOwners
	listed map[solana.PublicKey]bool
}

// NewDASSource lists through owners. listedTokenPrograms are the programs
// whose token accounts another discovery lists already; none given means SPL
// Token and Token-2022.
func NewDASSource(owners DASOwners, listedTokenPrograms ...solana.PublicKey) *DASSource {
	if len(listedTokenPrograms) == 0 {
		listedTokenPrograms = []solana.PublicKey{solana.TokenProgramID, solana.Token2022ProgramID}
	}
	listed := make(map[solana.PublicKey]bool, len(listedTokenPrograms))
	for _, p := range listedTokenPrograms {
		listed[p] = true
	}
	return &DASSource{owners: owners, listed: listed}
}

// Name implements assets.Source.
func (s *DASSource) Name() string { return "das" }

// Items implements assets.Source. Assets with an id or address that is not a
// public key are skipped: one malformed entry must not hide the rest.
func (s *DASSource) Items(ctx context.Context, wallet solana.PublicKey) ([]assets.Item, error) {
	all, err := s.owners.AssetsByOwner(ctx, wallet.String())
	if err != nil {
		return nil, err
	}
	var items []assets.Item
	for i := range all {
		a := &all[i]
		if a.Burnt || a.Ownership.Owner != wallet.String() {
			continue
		}
		var it assets.Item
		var ok bool
		switch {
		case a.Compression.Compressed:
			it, ok = cnftItem(a, wallet)
		case isFungible(a):
			it, ok = s.fungibleItem(a, wallet)
		}
		if ok {
			items = append(items, it)
		}
	}
	return items, nil
}

// cnftItem maps a compressed NFT, of a Bubblegum V1 or V2 tree. Its action is
// burn unless the leaf is frozen (DAS's ownership.frozen, or a V2 leaf's
// flags).
func cnftItem(a *das.Asset, wallet solana.PublicKey) (assets.Item, bool) {
	id, err := solana.PublicKeyFromBase58(a.ID)
	if err != nil {
		return assets.Item{}, false
	}
	it := assets.Item{
		Type: assets.TypeCNFT, Address: id, Owner: wallet, Mint: id, TokenProgram: bubblegum.ProgramID,
		Name: a.Content.Metadata.Name, Symbol: a.Content.Metadata.Symbol, URI: a.Content.JSONURI,
		ImageURI: Image(a.Content), Collection: collection(a.Grouping), IsFrozen: a.Ownership.Frozen || a.Compression.Frozen(),
		Actions: []assets.Action{},
	}
	if !it.IsFrozen {
		it.Actions = []assets.Action{assets.ActionBurn}
	}
	return it, true
}

func isFungible(a *das.Asset) bool {
	return (a.Interface == "FungibleAsset" || a.Interface == "FungibleToken") && a.TokenInfo != nil
}

// fungibleItem maps a fungible held in a token account no other discovery
// lists; it has no actions.
func (s *DASSource) fungibleItem(a *das.Asset, wallet solana.PublicKey) (assets.Item, bool) {
	ti := a.TokenInfo
	program, err1 := solana.PublicKeyFromBase58(ti.TokenProgram)
	account, err2 := solana.PublicKeyFromBase58(ti.AssociatedTokenAddress)
	mint, err3 := solana.PublicKeyFromBase58(a.ID)
	if err1 != nil || err2 != nil || err3 != nil || s.listed[program] {
		return assets.Item{}, false
	}
	amount, _ := strconv.ParseUint(ti.Balance.String(), 10, 64)
	symbol := a.Content.Metadata.Symbol
	if symbol == "" {
		symbol = ti.Symbol
	}
	return assets.Item{
		Type: assets.TypeFungibleAsset, Address: account, Owner: wallet, Mint: mint, TokenProgram: program,
		Name: a.Content.Metadata.Name, Symbol: symbol, URI: a.Content.JSONURI, ImageURI: Image(a.Content),
		Decimals: ti.Decimals, Amount: amount, UIBalance: float64(amount) / math.Pow10(int(ti.Decimals)),
		IsFrozen: a.Ownership.Frozen, Actions: []assets.Action{},
	}, true
}

// Image picks an asset's image: content.links.image, else the first file
// whose MIME type is an image, each only if assets.ImageURI lets it through
// (http, https, ipfs, ar), else "".
func Image(c das.Content) string {
	if img := assets.ImageURI(c.Links.Image); img != "" {
		return img
	}
	for _, f := range c.Files {
		if img := assets.ImageURI(f.URI); strings.HasPrefix(f.MIME, "image/") && img != "" {
			return img
		}
	}
	return ""
}

// collection is the asset's collection group. DAS leaves unverified
// collections out unless asked (and then marks them verified: false): those
// are skipped, as package assets does, since anyone can claim one.
func collection(groups []das.Group) *assets.Collection {
	for _, g := range groups {
		if g.Key != "collection" || (g.Verified != nil && !*g.Verified) {
			continue
		}
		c := &assets.Collection{Address: g.Value}
		if g.CollectionMetadata != nil {
			c.Name = g.CollectionMetadata.Name
		}
		return c
	}
	return nil
}
