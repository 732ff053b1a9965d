package assets

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/rent"
)

// Rent-exempt minimums under the default Rent, as the fake chain's sysvar says.
func minBal(size uint64) uint64 { return (128 + size) * 6960 }

// Fees Metaplex keeps in a metadata account beyond its rent (any value).
const metadataFee = 10_000_000

func (w *world) rentSysvar() {
	d := binary.LittleEndian.AppendUint64(nil, 3480)
	d = binary.LittleEndian.AppendUint64(d, math.Float64bits(2))
	w.c.put(solana.SysVarRentPubkey, rent.SysvarOwner, 1_009_200, append(d, 50))
}

// nft makes a Metaplex NFT of standard held by the wallet: mint, metadata
// (with Metaplex's fee), token account and edition; it returns the mint and
// the token account.
func (w *world) nft(standard metaplex.TokenStandard, frozen bool, collection *solana.PublicKey, edition []byte) (solana.PublicKey, solana.PublicKey) {
	mint := w.mint(solana.TokenProgramID, 0, 1, nil)
	md := metaplexBytes(mint, "NFT", "N", "", 0, collection, collection != nil)
	md[327] = byte(standard) // token_standard's value (no creators)
	w.c.put(metaplex.MetadataAddress(mint), metaplex.ProgramID, minBal(uint64(len(md)))+metadataFee, md)
	tok := w.account(solana.TokenProgramID, tokenRent, acct{mint: mint, amount: 1, frozen: frozen})
	w.c.put(metaplex.EditionAddress(mint), metaplex.ProgramID, minBal(uint64(len(edition))), edition)
	return mint, tok
}

func masterEdition(supply uint64) []byte {
	d := append([]byte{byte(metaplex.KeyMasterEditionV2)}, binary.LittleEndian.AppendUint64(nil, supply)...)
	return append(d, 0) // max_supply None
}

func printEdition(parent solana.PublicKey, number uint64) []byte {
	return binary.LittleEndian.AppendUint64(append([]byte{byte(metaplex.KeyEditionV1)}, parent[:]...), number)
}

func tokenRecord(state metaplex.TokenState) []byte {
	return append([]byte{byte(metaplex.KeyTokenRecord), 255, byte(state), 0, 0, 0, 0}, make([]byte, 40)...)
}

func TestAssetsMetaplexBurn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.rentSysvar()
	col := w.mint(solana.TokenProgramID, 0, 1, nil)
	w.metaplex(col, "Collection", "C", "", nil, false)

	_, nft := w.nft(metaplex.NonFungible, false, &col, masterEdition(0))
	pnftMint, pnft := w.nft(metaplex.ProgrammableNonFungible, true, nil, masterEdition(0))
	rec := metaplex.TokenRecordAddress(pnftMint, pnft)
	w.c.put(rec, metaplex.ProgramID, minBal(80), tokenRecord(metaplex.Unlocked))
	lockedMint, locked := w.nft(metaplex.ProgrammableNonFungible, true, nil, masterEdition(0))
	w.c.put(metaplex.TokenRecordAddress(lockedMint, locked), metaplex.ProgramID, minBal(80), tokenRecord(metaplex.Locked))
	_, frozen := w.nft(metaplex.NonFungible, true, nil, masterEdition(0))
	masterMint, master := w.nft(metaplex.NonFungible, false, nil, masterEdition(1))
	printMint, printed := w.nft(metaplex.NonFungibleEdition, false, nil, printEdition(metaplex.EditionAddress(masterMint), 300))
	marker := metaplex.EditionMarkerAddress(masterMint, 300)
	ledger := make([]byte, 32)
	ledger[0] = byte(metaplex.KeyEditionMarker)
	ledger[1+(300%248)/8] = 1 << (7 - (300%248)%8)
	w.c.put(marker, metaplex.ProgramID, minBal(32), ledger)
	plain := w.account(solana.TokenProgramID, tokenRent, acct{mint: w.mint(solana.TokenProgramID, 0, 1, nil), amount: 1})

	items := map[solana.PublicKey]Item{}
	for _, it := range w.list(nil).Items {
		items[it.Address] = it
	}
	md := minBal(679) // the metadata returns its rent, not its fee
	edition := minBal(uint64(len(masterEdition(0))))
	cases := []struct {
		name     string
		addr     solana.PublicKey
		lamports uint64
		actions  int
		check    func(*metaplex.BurnAccounts) bool
	}{
		{"nft in a verified collection", nft, tokenRent + md + edition, 1, func(m *metaplex.BurnAccounts) bool {
			return m.CollectionMetadata != nil && *m.CollectionMetadata == metaplex.MetadataAddress(col) && m.TokenRecord == nil
		}},
		{"pnft, frozen by design", pnft, tokenRent + md + edition + minBal(80), 1, func(m *metaplex.BurnAccounts) bool {
			return m.TokenRecord != nil && *m.TokenRecord == rec && m.Standard == metaplex.ProgrammableNonFungible
		}},
		{"locked pnft", locked, tokenRent + md + edition + minBal(80), 0, nil},
		{"frozen nft", frozen, tokenRent + md + edition, 0, nil},
		{"master edition with a print", master, tokenRent + md + edition, 0, nil},
		{"print edition, master held, marker closes", printed, tokenRent + md + minBal(uint64(len(printEdition(col, 1)))) + minBal(32), 1, func(m *metaplex.BurnAccounts) bool {
			return *m.MasterEditionMint == masterMint && *m.MasterEditionToken == master && *m.EditionMarker == marker &&
				*m.MasterEdition == metaplex.EditionAddress(masterMint) && m.Edition == metaplex.EditionAddress(printMint)
		}},
	}
	for _, c := range cases {
		it := items[c.addr]
		if it.Type != TypeNFT || it.Metaplex == nil || it.Lamports != c.lamports || len(it.Actions) != c.actions {
			t.Errorf("%s: %+v (Metaplex %+v); want %d lamports, %d actions", c.name, it, it.Metaplex, c.lamports, c.actions)
			continue
		}
		if c.check != nil && !c.check(it.Metaplex) {
			t.Errorf("%s: accounts %+v", c.name, it.Metaplex)
		}
	}
	if it := items[plain]; it.Metaplex != nil || it.Lamports != tokenRent || len(it.Actions) != 1 {
		t.Errorf("NFT without Metaplex edition: %+v (the token program burns it)", it)
	}

	t.Run("resolve", func(t *testing.T) {
		got, err := NewDiscoverer(w.c.rpc(), nil).Resolve(context.Background(), w.wallet, []solana.PublicKey{printed, pnft, plain})
		if err != nil {
			t.Fatal(err)
		}
		for i, addr := range []solana.PublicKey{printed, pnft, plain} {
			if want := items[addr]; got[i].Address != addr || got[i].Lamports != want.Lamports || len(got[i].Actions) != len(want.Actions) ||
				(got[i].Metaplex == nil) != (want.Metaplex == nil) {
				t.Errorf("resolved %+v, listed %+v", got[i], want)
			}
		}
	})
	t.Run("print whose master is elsewhere", func(t *testing.T) {
		other := newWorld(t)
		other.c = w.c
		other.wallet = solana.NewWallet().PublicKey()
		mint := w.mint(solana.TokenProgramID, 0, 1, nil)
		md := metaplexBytes(mint, "P", "P", "", 0, nil, false)
		md[327] = byte(metaplex.NonFungibleEdition)
		w.c.put(metaplex.MetadataAddress(mint), metaplex.ProgramID, minBal(uint64(len(md))), md)
		w.c.put(metaplex.EditionAddress(mint), metaplex.ProgramID, minBal(41), printEdition(metaplex.EditionAddress(masterMint), 2))
		tok := other.account(solana.TokenProgramID, tokenRent, acct{mint: mint, amount: 1})
		got, err := NewDiscoverer(w.c.rpc(), nil).Resolve(context.Background(), other.wallet, []solana.PublicKey{tok})
		if err != nil || got[0].Metaplex == nil || len(got[0].Actions) != 0 {
			t.Fatalf("%+v, %v", got, err)
		}
	})
}
