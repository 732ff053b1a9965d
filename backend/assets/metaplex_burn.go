package assets

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/metaplex"
	"github.com/reclaim-sol/reclaim/backend/rent"
)

// Metaplex NFTs. An nft item whose mint has Metaplex metadata and a master or
// print edition is burned with Token Metadata's BurnV1, which closes the
// token account, the metadata (all but its fee), the edition, a pNFT's token
// record and, when it empties, a print's edition marker, returning their
// rent to the wallet (see package metaplex). Such items get Metaplex set and
// Lamports is that whole refund, computed from the accounts read now and the
// cluster's Rent sysvar, never from lamports alone.
//
// BurnV1 is offered (action burn) when the program would accept it from the
// holder: a pNFT's token record is Unlocked (its token account is frozen by
// design: BurnV1 thaws it); any other NFT's token account is not frozen; no
// other key is the account's close authority; a master edition has no
// prints; a print's master edition is held by the wallet too (BurnV1 needs
// the master's mint and token account, which the print does not name; a
// print whose master is elsewhere is listed without actions); the metadata
// holds at least its rent-exempt minimum. NFTs without an edition account,
// or whose token standard is fungible, keep the token program's burn.

// metaplexAccount is a Metaplex metadata account as read.
type metaplexAccount struct {
	address  solana.PublicKey
	md       metaplex.Metadata
	lamports uint64
	size     uint64
}

// readMetaplexAccount parses a metadata account of mint owned by Token
// Metadata; nil otherwise.
func readMetaplexAccount(a *rpc.Account, mint solana.PublicKey) *metaplexAccount {
	if a == nil || !a.Owner.Equals(metaplex.ProgramID) {
		return nil
	}
	md, err := metaplex.ParseMetadata(data(a))
	if err != nil || md.Mint != mint {
		return nil
	}
	return &metaplexAccount{address: metaplex.MetadataAddress(mint), md: md, lamports: a.Lamports, size: uint64(len(data(a)))}
}

// burnRead is what one nft item needs read: positions in burnPlan.keys, -1
// when not read.
type burnRead struct {
	item                         int
	metadataAt, editionAt, recAt int
}

// burnPlan lists the keys that tell how Token Metadata burns items' NFTs:
// the Rent sysvar first, then per NFT its edition PDA, its metadata PDA
// unless the mints' read had it, and its token record PDA when it may be a
// pNFT.
type burnPlan struct {
	keys  []solana.PublicKey
	reads []burnRead
}

func planBurns(items []Item, mints map[solana.PublicKey]mintInfo, metadataRead bool) burnPlan {
	p := burnPlan{keys: []solana.PublicKey{solana.SysVarRentPubkey}}
	add := func(k solana.PublicKey) int { p.keys = append(p.keys, k); return len(p.keys) - 1 }
	for i, it := range items {
		mp := mints[it.Mint].metaplex
		if it.Type != TypeNFT || it.Core != nil || metadataRead && mp == nil {
			continue
		}
		r := burnRead{item: i, metadataAt: -1, recAt: -1}
		r.editionAt = add(metaplex.EditionAddress(it.Mint))
		if !metadataRead {
			r.metadataAt = add(metaplex.MetadataAddress(it.Mint))
		}
		if !metadataRead || mp.md.TokenStandard != nil && mp.md.TokenStandard.Programmable() {
			r.recAt = add(metaplex.TokenRecordAddress(it.Mint, it.Address))
		}
		p.reads = append(p.reads, r)
	}
	if len(p.reads) == 0 {
		p.keys = nil
	}
	return p
}

// pendingPrint is a print edition waiting for its master edition.
type pendingPrint struct {
	item   int
	nft    *MetaplexNFT
	closed metaplex.Closed
	ok     bool
	number uint64
	parent solana.PublicKey
}

// applyBurns sets Metaplex, Lamports and Actions on the items of p from accs
// (aligned with p.keys), reading print editions' masters and markers in one
// more chunked read.
func (d *Discoverer) applyBurns(ctx context.Context, p burnPlan, accs []*rpc.Account, items []Item, mints map[solana.PublicKey]mintInfo) error {
	if len(p.reads) == 0 {
		return nil
	}
	sysvar := rent.Parse(accs[0])
	at := func(i int) *rpc.Account {
		if i < 0 {
			return nil
		}
		return accs[i]
	}
	var prints []pendingPrint
	for _, r := range p.reads {
		it := &items[r.item]
		mp := mints[it.Mint].metaplex
		if r.metadataAt >= 0 {
			mp = readMetaplexAccount(accs[r.metadataAt], it.Mint)
		}
		if pp := metaplexBurn(it, mp, at(r.editionAt), at(r.recAt), sysvar); pp != nil {
			pp.item = r.item
			prints = append(prints, *pp)
		}
	}
	if len(prints) == 0 {
		return nil
	}
	return d.burnPrints(ctx, prints, items, sysvar)
}

// metaplexBurn fills it for a Token Metadata burn when mp and edition make it
// a Metaplex NFT. A print edition is returned pending: its refund and
// actions need its master edition.
func metaplexBurn(it *Item, mp *metaplexAccount, edition, record *rpc.Account, sysvar rent.Sysvar) *pendingPrint {
	if mp == nil || edition == nil || !edition.Owner.Equals(metaplex.ProgramID) {
		return nil
	}
	ed := data(edition)
	var standard metaplex.TokenStandard
	switch {
	case mp.md.TokenStandard != nil:
		standard = *mp.md.TokenStandard
	case len(ed) > 0 && metaplex.Key(ed[0]) == metaplex.KeyEditionV1:
		standard = metaplex.NonFungibleEdition
	default:
		standard = metaplex.NonFungible
	}
	if standard == metaplex.Fungible || standard == metaplex.FungibleAsset {
		return nil
	}
	nft := &MetaplexNFT{Standard: standard, Metadata: mp.address, Edition: metaplex.EditionAddress(it.Mint)}
	if c := mp.md.Collection; c != nil && c.Verified {
		cm := metaplex.MetadataAddress(c.Key)
		nft.CollectionMetadata = &cm
	}
	closed := metaplex.Closed{Token: it.Lamports, Edition: edition.Lamports, MetadataLamports: mp.lamports, MetadataSize: mp.size}
	ok := !it.HasCloseAuthority
	if standard.Programmable() {
		rec := metaplex.TokenRecordAddress(it.Mint, it.Address)
		nft.TokenRecord = &rec
		ok = ok && record != nil && record.Owner.Equals(metaplex.ProgramID)
		if ok {
			tr, err := metaplex.ParseTokenRecord(data(record))
			ok = err == nil && tr.State == metaplex.Unlocked
			closed.TokenRecord = record.Lamports
		}
	} else {
		ok = ok && !it.IsFrozen
	}
	if standard.Edition() {
		e, err := metaplex.ParseEdition(ed)
		return &pendingPrint{nft: nft, closed: closed, ok: ok && err == nil, number: e.Number, parent: e.Parent}
	}
	me, err := metaplex.ParseMasterEdition(ed)
	finishBurn(it, nft, closed, ok && err == nil && me.Supply == 0, sysvar)
	return nil
}

// finishBurn records the Token Metadata burn on it: Lamports is the refund,
// and burn its one action when ok and the metadata can pay its rent back.
func finishBurn(it *Item, nft *MetaplexNFT, closed metaplex.Closed, ok bool, sysvar rent.Sysvar) {
	it.Metaplex = nft
	it.Actions = []string{}
	refund, fits := metaplex.Refund(closed, sysvar.MinimumBalance)
	if !fits {
		return
	}
	it.Lamports = refund
	if ok {
		it.Actions = append(it.Actions, ActionBurn)
	}
}

// burnPrints finds each print's master edition among the wallet's token
// accounts (items first, then the wallet's whole list when one is missing),
// reads the masters and edition markers, and finishes the prints.
func (d *Discoverer) burnPrints(ctx context.Context, prints []pendingPrint, items []Item, sysvar rent.Sysvar) error {
	type holding struct{ mint, token solana.PublicKey }
	masters := map[solana.PublicKey]holding{}
	for _, it := range items {
		if it.Amount >= 1 {
			masters[metaplex.EditionAddress(it.Mint)] = holding{it.Mint, it.Address}
		}
	}
	for _, pp := range prints {
		if _, found := masters[pp.parent]; !found {
			owned, err := d.ownedTokenAccounts(ctx, items[pp.item].Owner)
			if err != nil {
				return err
			}
			for _, a := range owned {
				if a.state.Amount >= 1 {
					masters[metaplex.EditionAddress(a.state.Mint)] = holding{a.state.Mint, a.address}
				}
			}
			break
		}
	}
	var keys []solana.PublicKey
	for _, pp := range prints {
		if h, found := masters[pp.parent]; found {
			marker := metaplex.EditionMarkerAddress(h.mint, pp.number)
			if pp.nft.Standard.Programmable() {
				marker = metaplex.EditionMarkerV2Address(h.mint)
			}
			keys = append(keys, pp.parent, marker)
		}
	}
	accs, err := d.accounts(ctx, keys)
	if err != nil {
		return err
	}
	next := 0
	for _, pp := range prints {
		it := &items[pp.item]
		h, found := masters[pp.parent]
		if !found {
			finishBurn(it, pp.nft, pp.closed, false, sysvar)
			continue
		}
		master, marker := accs[next], accs[next+1]
		next += 2
		markerKey := keys[next-1]
		pp.nft.MasterEdition, pp.nft.MasterEditionMint, pp.nft.MasterEditionToken = &pp.parent, &h.mint, &h.token
		pp.nft.EditionMarker = &markerKey
		ok := pp.ok && master != nil && master.Owner.Equals(metaplex.ProgramID) &&
			marker != nil && marker.Owner.Equals(metaplex.ProgramID)
		if ok {
			_, err := metaplex.ParseMasterEdition(data(master))
			ok = err == nil
			if metaplex.MarkerClosesOnBurn(data(marker), pp.number, true) {
				pp.closed.EditionMarker = marker.Lamports
			}
		}
		finishBurn(it, pp.nft, pp.closed, ok, sysvar)
	}
	return nil
}
