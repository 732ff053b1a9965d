package metaplex

import (
	"context"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/rent"
)

// Burn planning: which of a wallet's NFTs BurnV1 burns, with which accounts,
// for how many lamports, and whether the program would accept the burn from
// the holder now. An NFT whose mint has metadata and a master or print
// edition burns with BurnV1, which closes the token account, the metadata
// (all but its fee), the edition, a pNFT's token record and, when it
// empties, a print's edition marker, returning their rent to the holder.
// Its refund is computed from the accounts read now and the cluster's Rent
// sysvar, never from lamports alone.
//
// BurnV1 is accepted from the holder when: a pNFT's token record is
// Unlocked (its token account is frozen by design: BurnV1 thaws it); any
// other NFT's token account is not frozen; no other key is the account's
// close authority; a master edition has no prints; a print's master edition
// is held by the wallet too (BurnV1 needs the master's mint and token
// account, which the print does not name; a print whose master is elsewhere
// is not burnable); the metadata holds at least its rent-exempt minimum.
// NFTs without an edition account, or whose token standard is fungible, are
// not Metaplex NFTs here: the token program burns them.
//
// The caller does the reading: PlanBurns lists the keys, the caller reads
// them (with other keys of its own, in its own chunks), and Burns decides,
// reading print editions' masters and markers through a Reader.

// Holding is a token account of the wallet as discovery read it.
type Holding struct {
	Token, Mint, Owner solana.PublicKey
	// Lamports of the token account.
	Lamports uint64
	// Amount is the raw token balance.
	Amount uint64
	Frozen bool
	// ForeignCloseAuthority is set when a close authority other than the
	// owner is set: the holder cannot close the account.
	ForeignCloseAuthority bool
}

// NFT is a holding of an NFT whose burn to plan.
type NFT struct {
	Holding
	// Metadata is the mint's metadata account when the caller read it
	// already; nil when it did not, or the mint has none.
	Metadata *MetadataAccount
}

// Burn is the planned BurnV1 of one NFT.
type Burn struct {
	Accounts BurnAccounts
	// Refund is the lamports BurnV1 returns to the holder (see Refund);
	// Refundable is false when the metadata holds less than its rent-exempt
	// minimum: the program would fail the burn, and Refund is 0.
	Refund     uint64
	Refundable bool
	// Burnable reports that the program would accept the burn from the
	// holder now (which implies Refundable).
	Burnable bool
}

// Reader reads what planning prints needs beyond the planned keys.
type Reader interface {
	// Accounts reads keys; the result is aligned with keys, nil where an
	// account does not exist.
	Accounts(ctx context.Context, keys []solana.PublicKey) ([]*rpc.Account, error)
	// Holdings lists owner's token accounts: where a print's master edition
	// is looked for when the holdings given to Burns do not have it.
	Holdings(ctx context.Context, owner solana.PublicKey) ([]Holding, error)
}

// read is what one NFT needs read: positions in BurnPlan.Keys, -1 when not
// read.
type read struct {
	nft                          int
	metadataAt, editionAt, recAt int
}

// BurnPlan lists the keys that tell how BurnV1 burns some NFTs.
type BurnPlan struct {
	// Keys to read, the Rent sysvar first; nil when no NFT needs planning.
	Keys []solana.PublicKey
	// Together plans the NFTs as burned together, in order, as the selection
	// of a build is: prints sharing an edition marker then close it between
	// them when their burns clear its every bit, and the last of them returns
	// it (the transaction builder keeps them in one transaction). Without
	// it, as for a listing, each burn is planned alone: a print returns its
	// marker only when its bit is the marker's last.
	Together bool
	nfts     []NFT
	reads    []read
}

// PlanBurns lists what to read for nfts: the Rent sysvar, then per NFT its
// edition PDA, its metadata PDA unless metadataRead, and its token record
// PDA when it may be a pNFT. With metadataRead, the caller read every
// mint's metadata already: an NFT without Metadata has none and is left out.
func PlanBurns(nfts []NFT, metadataRead bool) BurnPlan {
	p := BurnPlan{Keys: []solana.PublicKey{rent.Address}, nfts: nfts}
	add := func(k solana.PublicKey) int { p.Keys = append(p.Keys, k); return len(p.Keys) - 1 }
	for i, n := range nfts {
		md := n.Metadata
		if metadataRead && md == nil {
			continue
		}
		r := read{nft: i, metadataAt: -1, recAt: -1}
		r.editionAt = add(EditionAddress(n.Mint))
		if !metadataRead {
			r.metadataAt = add(MetadataAddress(n.Mint))
		}
		if !metadataRead || md.Metadata.TokenStandard != nil && md.Metadata.TokenStandard.Programmable() {
			r.recAt = add(TokenRecordAddress(n.Mint, n.Token))
		}
		p.reads = append(p.reads, r)
	}
	if len(p.reads) == 0 {
		p.Keys = nil
	}
	return p
}

// pendingPrint is a print edition waiting for its master edition.
type pendingPrint struct {
	nft      int
	accounts *BurnAccounts
	closed   Closed
	ok       bool
	number   uint64
	parent   solana.PublicKey
}

// Burns decides the burn of each planned NFT from accs (aligned with Keys):
// the result is aligned with the nfts given to PlanBurns, nil for an NFT
// that BurnV1 does not burn. A print's master edition is looked for among
// holdings (the wallet's token accounts known to the caller), then among
// all of the wallet's through r; masters and edition markers are read
// through r in one more call.
func (p BurnPlan) Burns(ctx context.Context, accs []*rpc.Account, holdings []Holding, r Reader) ([]*Burn, error) {
	out := make([]*Burn, len(p.nfts))
	if len(p.reads) == 0 {
		return out, nil
	}
	sysvar := rent.Parse(accs[0])
	at := func(i int) *rpc.Account {
		if i < 0 {
			return nil
		}
		return accs[i]
	}
	var prints []pendingPrint
	for _, rd := range p.reads {
		n := p.nfts[rd.nft]
		md := n.Metadata
		if rd.metadataAt >= 0 {
			md = ReadMetadataAccount(accs[rd.metadataAt], n.Mint)
		}
		b, pp := planBurn(n.Holding, md, at(rd.editionAt), at(rd.recAt), sysvar)
		out[rd.nft] = b
		if pp != nil {
			pp.nft = rd.nft
			prints = append(prints, *pp)
		}
	}
	if len(prints) == 0 {
		return out, nil
	}
	return out, p.burnPrints(ctx, out, prints, holdings, r, sysvar)
}

// planBurn plans h's burn when md and edition make it a Metaplex NFT. A
// print edition is returned pending: its refund and acceptance need its
// master edition.
func planBurn(h Holding, md *MetadataAccount, edition, record *rpc.Account, sysvar rent.Sysvar) (*Burn, *pendingPrint) {
	if md == nil || edition == nil || !edition.Owner.Equals(ProgramID) {
		return nil, nil
	}
	ed := accountData(edition)
	var standard TokenStandard
	switch {
	case md.Metadata.TokenStandard != nil:
		standard = *md.Metadata.TokenStandard
	case len(ed) > 0 && Key(ed[0]) == KeyEditionV1:
		standard = NonFungibleEdition
	default:
		standard = NonFungible
	}
	if standard == Fungible || standard == FungibleAsset {
		return nil, nil
	}
	b := &Burn{Accounts: BurnAccounts{Standard: standard, Metadata: md.Address, Edition: EditionAddress(h.Mint)}}
	if c := md.Metadata.Collection; c != nil && c.Verified {
		cm := MetadataAddress(c.Key)
		b.Accounts.CollectionMetadata = &cm
	}
	closed := Closed{Token: h.Lamports, Edition: edition.Lamports, MetadataLamports: md.Lamports, MetadataSize: md.Size}
	ok := !h.ForeignCloseAuthority
	if standard.Programmable() {
		rec := TokenRecordAddress(h.Mint, h.Token)
		b.Accounts.TokenRecord = &rec
		ok = ok && record != nil && record.Owner.Equals(ProgramID)
		if ok {
			tr, err := ParseTokenRecord(accountData(record))
			ok = err == nil && tr.State == Unlocked
			closed.TokenRecord = record.Lamports
		}
	} else {
		ok = ok && !h.Frozen
	}
	if standard.Edition() {
		e, err := ParseEdition(ed)
		return b, &pendingPrint{accounts: &b.Accounts, closed: closed, ok: ok && err == nil, number: e.Number, parent: e.Parent}
	}
	me, err := ParseMasterEdition(ed)
	b.settle(closed, ok && err == nil && me.Supply == 0, sysvar)
	return b, nil
}

// settle records the refund, and burnable when ok and the metadata can pay
// its rent back.
func (b *Burn) settle(closed Closed, ok bool, sysvar rent.Sysvar) {
	refund, fits := Refund(closed, sysvar.MinimumBalance)
	if !fits {
		return
	}
	b.Refund, b.Refundable, b.Burnable = refund, true, ok
}

// burnPrints finds each print's master edition among holdings (then the
// owner's whole list when one is missing), reads the masters and edition
// markers, and settles the prints.
func (p BurnPlan) burnPrints(ctx context.Context, out []*Burn, prints []pendingPrint, holdings []Holding, r Reader, sysvar rent.Sysvar) error {
	type holding struct{ mint, token solana.PublicKey }
	masters := map[solana.PublicKey]holding{}
	addMasters := func(hs []Holding) {
		for _, h := range hs {
			if h.Amount >= 1 {
				masters[EditionAddress(h.Mint)] = holding{h.Mint, h.Token}
			}
		}
	}
	addMasters(holdings)
	for _, pp := range prints {
		if _, found := masters[pp.parent]; !found {
			all, err := r.Holdings(ctx, p.nfts[pp.nft].Owner)
			if err != nil {
				return err
			}
			addMasters(all)
			break
		}
	}
	var keys []solana.PublicKey
	for _, pp := range prints {
		if h, found := masters[pp.parent]; found {
			marker := EditionMarkerAddress(h.mint, pp.number)
			if pp.accounts.Standard.Programmable() {
				marker = EditionMarkerV2Address(h.mint)
			}
			keys = append(keys, pp.parent, marker)
		}
	}
	var accs []*rpc.Account
	if len(keys) > 0 {
		var err error
		if accs, err = r.Accounts(ctx, keys); err != nil {
			return err
		}
	}
	// Each print's master and marker, and which prints of the plan share a
	// marker (in plan order).
	type printRead struct {
		master, marker *rpc.Account
		markerKey      solana.PublicKey
	}
	reads := make([]*printRead, len(prints))
	sharing := map[solana.PublicKey][]int{}
	next := 0
	for i, pp := range prints {
		if _, found := masters[pp.parent]; !found {
			continue
		}
		reads[i] = &printRead{master: accs[next], marker: accs[next+1], markerKey: keys[next+1]}
		next += 2
		sharing[reads[i].markerKey] = append(sharing[reads[i].markerKey], i)
	}
	for i, pp := range prints {
		b, rd := out[pp.nft], reads[i]
		if rd == nil {
			b.settle(pp.closed, false, sysvar)
			continue
		}
		h := masters[pp.parent]
		parent, markerKey := pp.parent, rd.markerKey
		b.Accounts.MasterEdition, b.Accounts.MasterEditionMint, b.Accounts.MasterEditionToken = &parent, &h.mint, &h.token
		b.Accounts.EditionMarker = &markerKey
		ok := pp.ok && rd.master != nil && rd.master.Owner.Equals(ProgramID) &&
			rd.marker != nil && rd.marker.Owner.Equals(ProgramID)
		if ok {
			_, err := ParseMasterEdition(accountData(rd.master))
			ok = err == nil
			if p.closesMarker(prints, sharing[markerKey], i, accountData(rd.marker)) {
				pp.closed.EditionMarker = rd.marker.Lamports
			}
		}
		b.settle(pp.closed, ok, sysvar)
	}
	return nil
}

// closesMarker reports whether the burn of prints[i] returns its marker
// (data): alone, when its bit is the marker's last; with Together, when it
// is the last of the plan's prints sharing the marker (sharing, in plan
// order) and their burns clear every bit.
func (p BurnPlan) closesMarker(prints []pendingPrint, sharing []int, i int, data []byte) bool {
	if !p.Together {
		return MarkerClosesOnBurns(data, prints[i].number)
	}
	if sharing[len(sharing)-1] != i {
		return false
	}
	numbers := make([]uint64, len(sharing))
	for k, j := range sharing {
		numbers[k] = prints[j].number
	}
	return MarkerClosesOnBurns(data, numbers...)
}

// accountData is an account's bytes (nil for a missing account).
func accountData(a *rpc.Account) []byte {
	if a == nil || a.Data == nil {
		return nil
	}
	return a.Data.GetBinary()
}
