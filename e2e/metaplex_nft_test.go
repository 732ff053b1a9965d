package e2e

import (
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/borsh"
	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// Token Metadata NFTs made by the real program (CreateV1 and MintV1, built by
// mpl-token-metadata), burned through the service.

// tmNFT is an NFT to create: CreateV1 by an authority, then MintV1 of its one
// token to an owner's associated token account.
type tmNFT struct {
	mint     solana.PrivateKey
	standard string // NonFungible, ProgrammableNonFungible
	// extra request fields: printSupply, ruleSet, collectionMint,
	// sizedCollection, splTokenProgram (see e2e/mplclients/instructions.js).
	extra map[string]any
}

func newNFTs(n int, standard string, extra map[string]any) []tmNFT {
	out := make([]tmNFT, n)
	for i := range out {
		out[i] = tmNFT{mint: solana.NewWallet().PrivateKey, standard: standard, extra: extra}
	}
	return out
}

// createNFTs creates nfts, authority paying, each minted to owner, one
// transaction each, sent together.
func (e *burnEnv) createNFTs(t *testing.T, authority solana.PrivateKey, owner solana.PublicKey, nfts ...tmNFT) {
	t.Helper()
	reqs := make([]map[string]any, len(nfts))
	for i, n := range nfts {
		r := map[string]any{"kind": "tmCreateNft", "authority": authority.PublicKey().String(), "mint": n.mint.PublicKey().String(),
			"tokenStandard": n.standard, "name": fmt.Sprintf("NFT %d", i), "uri": "https://example.com/nft.json", "tokenOwner": owner.String()}
		for k, v := range n.extra {
			r[k] = v
		}
		reqs[i] = r
	}
	batches := make([]harness.Batch, len(nfts))
	for i, ixs := range mplInstructions(t, reqs...) {
		batches[i] = harness.Batch{Payer: authority, Ixs: withUnits(ixs), Signers: []solana.PrivateKey{nfts[i].mint}}
	}
	e.v.SendAll(t, batches)
}

// tmWant is what BurnV1 returns to owner for its NFT of mint, read from the
// chain: the token account, the edition and a pNFT's token record in full,
// the metadata's rent-exempt minimum (the creation fee stays in its 1-byte
// remainder), and the marker when given (a print whose burn empties it).
func (e *burnEnv) tmWant(t *testing.T, kind string, owner, mint, tokenProgram solana.PublicKey, programmable bool, marker *solana.PublicKey) burnWant {
	t.Helper()
	token := spltoken.AssociatedTokenAddress(owner, mint, tokenProgram)
	md := accountOf(t, e.v, metaplex.MetadataAddress(mint))
	w := burnWant{kind: kind, address: token, typ: "nft",
		accounts: []solana.PublicKey{token, metaplex.MetadataAddress(mint), metaplex.EditionAddress(mint)}}
	w.lamports = e.v.Balance(t, token) + e.v.Balance(t, metaplex.EditionAddress(mint)) + minimumBalance(t, e.v, len(md.Data.GetBinary()))
	if programmable {
		rec := metaplex.TokenRecordAddress(mint, token)
		w.lamports += e.v.Balance(t, rec)
		w.accounts = append(w.accounts, rec)
	}
	if marker != nil {
		w.lamports += e.v.Balance(t, *marker)
		w.accounts = append(w.accounts, *marker)
	}
	w.built = w.lamports
	return w
}

// checkStubs checks that each burned NFT's metadata is the 1-byte stub
// holding what Metaplex's fee left, and its edition is gone.
func (e *burnEnv) checkStubs(t *testing.T, mints ...solana.PublicKey) {
	t.Helper()
	for _, m := range mints {
		if a := accountOf(t, e.v, metaplex.MetadataAddress(m)); a != nil && len(a.Data.GetBinary()) != 1 {
			t.Errorf("metadata of %s after the burn: %d bytes, want the 1-byte stub holding Metaplex's fee (or none)", m, len(a.Data.GetBinary()))
		}
		if a := accountOf(t, e.v, metaplex.EditionAddress(m)); a != nil {
			t.Errorf("edition of %s still exists after the burn", m)
		}
	}
}

func keysOf(nfts []tmNFT) []solana.PublicKey {
	out := make([]solana.PublicKey, len(nfts))
	for i, n := range nfts {
		out[i] = n.mint.PublicKey()
	}
	return out
}

// landOwn creates nfts, minted to a new wallet that pays for them, burns
// them all and measures the kind.
func (e *burnEnv) landOwn(t *testing.T, kind string, programmable bool, nfts []tmNFT) []burnWant {
	t.Helper()
	holder := e.v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	e.createNFTs(t, holder, holder.PublicKey(), nfts...)
	var wants []burnWant
	for _, m := range keysOf(nfts) {
		wants = append(wants, e.tmWant(t, kind, holder.PublicKey(), m, solana.TokenProgramID, programmable, nil))
	}
	landed := e.landBurns(t, holder, wants, nil)
	measure(kind, metaplex.ProgramID, wants[0].lamports, landed)
	e.checkStubs(t, keysOf(nfts)...)
	return wants
}

// landNFTs burns NFTs with master editions of max supply 0 and one of max
// supply 10 (no prints): enough to fill a transaction.
func landNFTs(t *testing.T, e *burnEnv) {
	nfts := append(newNFTs(5, "NonFungible", nil), newNFTs(1, "NonFungible", map[string]any{"printSupply": 10})...)
	e.landOwn(t, "NFT, master edition", false, nfts)
}

// landProgrammable burns pNFTs, thawed and closed with their token records,
// one of them with a rule set (which neither MintV1 nor BurnV1 consults).
func landProgrammable(t *testing.T, e *burnEnv) {
	// Metaplex's default rule set on mainnet; it need not exist here.
	ruleSet := "eBJLFYPxJmMGKuFwpDWkzxZeUrad92kZRC5BJLpzyT9"
	nfts := append(newNFTs(4, "ProgrammableNonFungible", nil), newNFTs(1, "ProgrammableNonFungible", map[string]any{"ruleSet": ruleSet})...)
	wants := e.landOwn(t, "pNFT, token record", true, nfts)
	for i, m := range keysOf(nfts) {
		if accountOf(t, e.v, metaplex.TokenRecordAddress(m, wants[i].address)) != nil {
			t.Errorf("token record of %s survived its burn", m)
		}
	}
}

// landSizedCollection burns a verified and an unverified member of a sized
// collection the issuer keeps: the collection's size goes from 1 to 0.
func landSizedCollection(t *testing.T, e *burnEnv) {
	issuer := e.v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	holder := e.v.NewWallet(t, solana.LAMPORTS_PER_SOL)
	col := newNFTs(1, "NonFungible", map[string]any{"sizedCollection": true})
	e.createNFTs(t, issuer, issuer.PublicKey(), col...)
	colMint := col[0].mint.PublicKey()
	members := newNFTs(2, "NonFungible", map[string]any{"collectionMint": colMint.String()})
	e.createNFTs(t, issuer, holder.PublicKey(), members...)
	verify := mplInstructions(t, map[string]any{"kind": "tmVerifyCollection", "authority": issuer.PublicKey().String(),
		"mint": members[0].mint.PublicKey().String(), "collectionMint": colMint.String()})
	e.v.Send(t, issuer, withUnits(verify[0]))
	if n := e.collectionSize(t, colMint); n != 1 {
		t.Fatalf("collection size %d after one verification, want 1", n)
	}
	wants := []burnWant{
		e.tmWant(t, "NFT, verified member of a sized collection", holder.PublicKey(), members[0].mint.PublicKey(), solana.TokenProgramID, false, nil),
		e.tmWant(t, "NFT, unverified member of a sized collection", holder.PublicKey(), members[1].mint.PublicKey(), solana.TokenProgramID, false, nil),
	}
	e.landBurns(t, holder, wants, nil)
	if n := e.collectionSize(t, colMint); n != 0 {
		t.Errorf("collection size %d after its verified member burned, want 0", n)
	}
	e.checkStubs(t, keysOf(members)...)
}

// collectionSize reads CollectionDetails::V1's size from a collection's
// metadata: after the fields metaplex.ParseMetadata reads come uses
// Option<{u8, u64, u64}> and collection_details Option<enum V1 {size u64}>.
func (e *burnEnv) collectionSize(t *testing.T, mint solana.PublicKey) uint64 {
	t.Helper()
	r := borsh.NewReader(accountOf(t, e.v, metaplex.MetadataAddress(mint)).Data.GetBinary())
	r.Skip(1 + 32 + 32)
	r.Str()
	r.Str()
	r.Str()
	r.Skip(2)
	if r.U8() == 1 {
		r.Skip(34 * int(r.U32()))
	}
	r.Skip(2)
	for _, size := range []int{1, 1, 33, 17} { // edition_nonce, token_standard, collection, uses
		if r.U8() == 1 {
			r.Skip(size)
		}
	}
	if r.U8() != 1 || r.U8() != 0 {
		t.Fatalf("collection %s has no sized CollectionDetails", mint)
	}
	size := r.U64()
	if r.Err() != nil {
		t.Fatalf("collection %s: %v", mint, r.Err())
	}
	return size
}

// landPrints burns print editions of one master the wallet holds: #1 and #2
// share a marker, which closes with the last of them (in one transaction);
// #248 and #496 each empty a marker of their own.
func landPrints(t *testing.T, e *burnEnv) {
	holder := e.v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	master := newNFTs(1, "NonFungible", map[string]any{"printSupply": "Unlimited"})
	e.createNFTs(t, holder, holder.PublicKey(), master...)
	masterMint := master[0].mint.PublicKey()
	numbers := []uint64{1, 2, 248, 496}
	prints := e.print(t, holder, masterMint, holder.PublicKey(), numbers...)
	var wants []burnWant
	for i, n := range numbers {
		marker := metaplex.EditionMarkerAddress(masterMint, n)
		w := e.tmWant(t, "print edition, master held", holder.PublicKey(), prints[i], solana.TokenProgramID, false, &marker)
		if n == 1 {
			// Alone, #1 leaves #2's bit: listed without the marker.
			w = e.tmWant(t, "print edition, master held", holder.PublicKey(), prints[i], solana.TokenProgramID, false, nil)
		}
		if n == 2 {
			// Alone, #2 leaves #1's bit: listed without the marker; burned
			// after #1, it closes it.
			w.lamports -= e.v.Balance(t, marker)
		}
		wants = append(wants, w)
	}
	landed := e.landBurns(t, holder, wants, nil)
	measure("print edition (one master)", metaplex.ProgramID, wants[2].built, landed)
	for _, n := range numbers {
		if accountOf(t, e.v, metaplex.EditionMarkerAddress(masterMint, n)) != nil {
			t.Errorf("the edition marker of print %d survived the burn of its last print", n)
		}
	}
	e.checkStubs(t, prints...)
}

// landPrintKeepsMarker burns print #1 of a master the wallet holds while
// print #2 is held by another wallet: the marker stays, holding #2's bit.
func landPrintKeepsMarker(t *testing.T, e *burnEnv) {
	holder := e.v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	other := e.v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
	master := newNFTs(1, "NonFungible", map[string]any{"printSupply": 10})
	e.createNFTs(t, holder, holder.PublicKey(), master...)
	masterMint := master[0].mint.PublicKey()
	mine := e.print(t, holder, masterMint, holder.PublicKey(), 1)
	e.print(t, holder, masterMint, other, 2)
	marker := metaplex.EditionMarkerAddress(masterMint, 1)
	e.landBurns(t, holder, []burnWant{e.tmWant(t, "print edition, others remain", holder.PublicKey(), mine[0], solana.TokenProgramID, false, nil)}, nil)
	m := accountOf(t, e.v, marker)
	if m == nil || !metaplex.MarkerClosesOnBurn(m.Data.GetBinary(), 2, true) || metaplex.MarkerClosesOnBurn(m.Data.GetBinary(), 1, true) {
		t.Errorf("edition marker after print 1 burned: %+v, want it to hold print 2's bit only", m)
	}
}

// landProgrammablePrints burns two print editions of a pNFT master the
// wallet holds: programmable editions share the master's one edition marker
// (version 2), which the second burn closes.
func landProgrammablePrints(t *testing.T, e *burnEnv) {
	holder := e.v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	master := newNFTs(1, "ProgrammableNonFungible", map[string]any{"printSupply": "Unlimited"})
	e.createNFTs(t, holder, holder.PublicKey(), master...)
	masterMint := master[0].mint.PublicKey()
	prints := e.printStandard(t, holder, masterMint, holder.PublicKey(), "ProgrammableNonFungible", 1, 2)
	marker := metaplex.EditionMarkerV2Address(masterMint)
	const kind = "pNFT print edition, master held"
	first := e.tmWant(t, kind, holder.PublicKey(), prints[0], solana.TokenProgramID, true, nil)
	second := e.tmWant(t, kind, holder.PublicKey(), prints[1], solana.TokenProgramID, true, &marker)
	second.lamports -= e.v.Balance(t, marker) // alone, it leaves print 1's bit
	e.landBurns(t, holder, []burnWant{first, second}, nil)
	if accountOf(t, e.v, marker) != nil {
		t.Error("the programmable master's edition marker survived the burn of its last print")
	}
	e.checkStubs(t, prints...)
}

// print prints editions numbers of masterMint (held by holder, who pays) to
// owner, in order; it returns their mints.
func (e *burnEnv) print(t *testing.T, holder solana.PrivateKey, masterMint, owner solana.PublicKey, numbers ...uint64) []solana.PublicKey {
	t.Helper()
	return e.printStandard(t, holder, masterMint, owner, "NonFungible", numbers...)
}

// printStandard prints editions of a master of the token standard.
func (e *burnEnv) printStandard(t *testing.T, holder solana.PrivateKey, masterMint, owner solana.PublicKey, standard string, numbers ...uint64) []solana.PublicKey {
	t.Helper()
	reqs := make([]map[string]any, len(numbers))
	keys := make([]solana.PrivateKey, len(numbers))
	mints := make([]solana.PublicKey, len(numbers))
	for i, n := range numbers {
		keys[i] = solana.NewWallet().PrivateKey
		mints[i] = keys[i].PublicKey()
		reqs[i] = map[string]any{"kind": "tmPrintV1", "authority": holder.PublicKey().String(), "masterMint": masterMint.String(),
			"editionMint": mints[i].String(), "editionNumber": n, "tokenOwner": owner.String(), "tokenStandard": standard}
	}
	batches := make([]harness.Batch, len(numbers))
	for i, ixs := range mplInstructions(t, reqs...) {
		batches[i] = harness.Batch{Payer: holder, Ixs: withUnits(ixs), Signers: []solana.PrivateKey{keys[i]}}
	}
	e.v.SendAll(t, batches)
	return mints
}

// landToken2022 burns an NFT and a pNFT whose mints Token Metadata created
// under Token-2022 (with its MintCloseAuthority and MetadataPointer
// extensions), held in Token-2022 associated accounts.
func landToken2022(t *testing.T, e *burnEnv) {
	holder := e.v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	t22 := map[string]any{"splTokenProgram": solana.Token2022ProgramID.String()}
	nfts := append(newNFTs(1, "NonFungible", t22), newNFTs(1, "ProgrammableNonFungible", t22)...)
	e.createNFTs(t, holder, holder.PublicKey(), nfts...)
	wants := []burnWant{
		e.tmWant(t, "NFT, Token-2022", holder.PublicKey(), nfts[0].mint.PublicKey(), solana.Token2022ProgramID, false, nil),
		e.tmWant(t, "pNFT, Token-2022", holder.PublicKey(), nfts[1].mint.PublicKey(), solana.Token2022ProgramID, true, nil),
	}
	e.landBurns(t, holder, wants, nil)
	e.checkStubs(t, keysOf(nfts)...)
}
