package assets

import (
	"context"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// mints reads the distinct mints of owned, and with withMetadata their Metaplex
// metadata PDAs in the same chunked reads: 50 mints and their 50 PDAs a
// chunk, each chunk read as soon as its PDAs are derived. A mint that no
// longer exists (Token-2022 mints with a close authority can be closed once their
// supply is zero) reads as the zero spltoken.Mint: its accounts are empty and close.
func (d *Discoverer) mints(ctx context.Context, owned []ownedAccount, withMetadata bool) (map[solana.PublicKey]mintInfo, error) {
	var mints []solana.PublicKey
	seen := map[solana.PublicKey]bool{}
	for _, a := range owned {
		if !seen[a.state.Mint] {
			seen[a.state.Mint] = true
			mints = append(mints, a.state.Mint)
		}
	}
	var accs []*rpc.Account
	var err error
	if withMetadata {
		accs, err = d.mintsAndMetadata(ctx, mints)
	} else {
		accs, err = d.accounts(ctx, mints)
	}
	if err != nil {
		return nil, err
	}
	out := make(map[solana.PublicKey]mintInfo, len(mints))
	for i, mint := range mints {
		var mi mintInfo
		if a := accs[i]; a != nil && spltoken.IsProgram(a.Owner) {
			mi.state, _ = spltoken.ParseMint(data(a))
			mi.meta = displayMetadata(mi.state.Metadata)
		}
		if withMetadata {
			a := accs[len(mints)+i]
			if mp := metaplex.ReadMetadataAccount(a, mint); mp != nil {
				mi.meta = metaplexDisplay(mp.Metadata)
				mi.metaplex = mp
			}
		}
		out[mint] = mi
	}
	return out, nil
}

// mintsAndMetadata reads mints and their metadata PDAs, half a chunk of each
// per call, issuing each call before deriving the next chunk's PDAs; the
// result is the mints' accounts, then the PDAs'.
func (d *Discoverer) mintsAndMetadata(ctx context.Context, mints []solana.PublicKey) ([]*rpc.Account, error) {
	const half = maxKeysPerCall / 2
	r := d.reader(ctx, 2*len(mints))
	for b := 0; b < len(mints); b += half {
		group := mints[b:min(b+half, len(mints))]
		keys := slices.Clone(group)
		for _, m := range group {
			keys = append(keys, metaplex.MetadataAddress(m))
		}
		r.read(2*b, keys)
	}
	accs, err := r.wait()
	if err != nil {
		return nil, err
	}
	out := make([]*rpc.Account, 0, len(accs))
	for b := 0; b < len(mints); b += half { // the mints
		g := min(half, len(mints)-b)
		out = append(out, accs[2*b:2*b+g]...)
	}
	for b := 0; b < len(mints); b += half { // then the PDAs
		g := min(half, len(mints)-b)
		out = append(out, accs[2*b+g:2*b+2*g]...)
	}
	return out, nil
}

// metaplexOf is the display metadata of mint from its Metaplex metadata
// account a; nil unless the Token Metadata program owns it and it is mint's.
func metaplexOf(a *rpc.Account, mint solana.PublicKey) *tokenMetadata {
	mp := metaplex.ReadMetadataAccount(a, mint)
	if mp == nil {
		return nil
	}
	return metaplexDisplay(mp.Metadata)
}

// nameCollections sets Collection on NFT items whose Metaplex metadata names a
// verified collection, and prepares the Token Metadata burn of Metaplex NFTs
// (metaplex.go): the collections' metadata, the NFTs' editions and token
// records and the Rent sysvar come in one more chunked read (print editions
// need one more for their masters). A collection without readable metadata
// keeps an empty name.
func (d *Discoverer) nameCollections(ctx context.Context, items []Item, mints map[solana.PublicKey]mintInfo) error {
	var cols []solana.PublicKey
	seen := map[solana.PublicKey]bool{}
	for _, it := range items {
		md := mints[it.Mint].meta
		if it.Type != TypeNFT || md == nil || md.collection == nil || seen[*md.collection] {
			continue
		}
		seen[*md.collection] = true
		cols = append(cols, *md.collection)
	}
	plan, at := planMetaplex(items, mints, true)
	if len(cols) == 0 && len(plan.Keys) == 0 {
		return nil
	}
	keys := make([]solana.PublicKey, len(cols), len(cols)+len(plan.Keys))
	for i, c := range cols {
		keys[i] = metaplex.MetadataAddress(c)
	}
	accs, err := d.accounts(ctx, append(keys, plan.Keys...))
	if err != nil {
		return err
	}
	names := make(map[solana.PublicKey]string, len(cols))
	for i, c := range cols {
		if md := metaplexOf(accs[i], c); md != nil {
			names[c] = md.name
		}
	}
	for i := range items {
		md := mints[items[i].Mint].meta
		if items[i].Type == TypeNFT && md != nil && md.collection != nil {
			c := *md.collection
			items[i].Collection = &Collection{Address: c.String(), Name: names[c]}
		}
	}
	return d.applyBurns(ctx, plan, at, accs[len(cols):], items)
}
