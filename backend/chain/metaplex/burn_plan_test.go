package metaplex_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/mplref"
	"github.com/reclaim-sol/reclaim/backend/chain/rent"
)

// minBal is the rent-exempt minimum of size bytes under the default Rent.
func minBal(size uint64) uint64 { return (128 + size) * 6960 }

// chain is the accounts a plan reads, and a metaplex.Reader over them.
type chain struct {
	accounts map[solana.PublicKey]*rpc.Account
	holdings []metaplex.Holding // what Holdings answers
	reads    int                // calls of Accounts
	listed   int                // calls of Holdings
}

func (c *chain) put(key solana.PublicKey, lamports uint64, data []byte) {
	c.accounts[key] = &rpc.Account{Owner: metaplex.ProgramID, Lamports: lamports, Data: rpc.DataBytesOrJSONFromBytes(data)}
}

func (c *chain) get(keys []solana.PublicKey) []*rpc.Account {
	out := make([]*rpc.Account, len(keys))
	for i, k := range keys {
		out[i] = c.accounts[k]
	}
	return out
}

func (c *chain) Accounts(_ context.Context, keys []solana.PublicKey) ([]*rpc.Account, error) {
	c.reads++
	return c.get(keys), nil
}

func (c *chain) Holdings(context.Context, solana.PublicKey) ([]metaplex.Holding, error) {
	c.listed++
	return c.holdings, nil
}

const tokenRent = 2_039_280

func masterEdition(supply uint64) []byte {
	return append(binary.LittleEndian.AppendUint64([]byte{byte(metaplex.KeyMasterEditionV2)}, supply), 0)
}

func printEdition(parent solana.PublicKey, number uint64) []byte {
	return binary.LittleEndian.AppendUint64(append([]byte{byte(metaplex.KeyEditionV1)}, parent[:]...), number)
}

func tokenRecord(state metaplex.TokenState) []byte {
	return append([]byte{byte(metaplex.KeyTokenRecord), 255, byte(state), 0, 0, 0, 0}, make([]byte, 40)...)
}

// nft puts a Metaplex NFT of standard on c: metadata holding fee lamports
// above its minimum, and an edition; it returns its holding.
func (c *chain) nft(name string, standard metaplex.TokenStandard, frozen bool, collection *metaplex.Collection, edition []byte, fee uint64) metaplex.Holding {
	mint, token := mplref.Key(name+" mint"), mplref.Key(name+" token")
	md := metadataData(mint, true, byte(standard), collection)
	c.put(metaplex.MetadataAddress(mint), minBal(uint64(len(md)))+fee, md)
	c.put(metaplex.EditionAddress(mint), minBal(uint64(len(edition))), edition)
	return metaplex.Holding{Token: token, Mint: mint, Owner: mplref.Key("wallet"), Lamports: tokenRent, Amount: 1, Frozen: frozen}
}

func TestBurnPlan(t *testing.T) {
	t.Parallel()
	c := &chain{accounts: map[solana.PublicKey]*rpc.Account{}}
	d := binary.LittleEndian.AppendUint64(nil, 3480)
	d = binary.LittleEndian.AppendUint64(d, math.Float64bits(2))
	c.accounts[rent.Address] = &rpc.Account{Owner: rent.SysvarOwner, Lamports: 1_009_200, Data: rpc.DataBytesOrJSONFromBytes(append(d, 50))}

	col := mplref.Key("collection")
	const fee = 10_000_000
	inCol := c.nft("in collection", metaplex.NonFungible, false, &metaplex.Collection{Verified: true, Key: col}, masterEdition(0), fee)
	pnft := c.nft("pnft", metaplex.ProgrammableNonFungible, true, nil, masterEdition(0), fee)
	rec := metaplex.TokenRecordAddress(pnft.Mint, pnft.Token)
	c.put(rec, minBal(80), tokenRecord(metaplex.Unlocked))
	locked := c.nft("locked", metaplex.ProgrammableNonFungible, true, nil, masterEdition(0), fee)
	c.put(metaplex.TokenRecordAddress(locked.Mint, locked.Token), minBal(80), tokenRecord(metaplex.Locked))
	frozen := c.nft("frozen", metaplex.NonFungible, true, nil, masterEdition(0), fee)
	closeAuth := c.nft("close authority", metaplex.NonFungible, false, nil, masterEdition(0), fee)
	closeAuth.ForeignCloseAuthority = true
	master := c.nft("master", metaplex.NonFungible, false, nil, masterEdition(1), fee)
	printed := c.nft("print", metaplex.NonFungibleEdition, false, nil, printEdition(metaplex.EditionAddress(master.Mint), 300), fee)
	marker := metaplex.EditionMarkerAddress(master.Mint, 300)
	ledger := make([]byte, 32)
	ledger[0] = byte(metaplex.KeyEditionMarker)
	ledger[1+(300%248)/8] = 1 << (7 - (300%248)%8)
	c.put(marker, minBal(32), ledger)
	elsewhere := c.nft("print of a master elsewhere", metaplex.NonFungibleEdition, false, nil, printEdition(mplref.Key("other master"), 2), fee)
	poor := c.nft("metadata under its minimum", metaplex.NonFungible, false, nil, masterEdition(0), 0)
	c.accounts[metaplex.MetadataAddress(poor.Mint)].Lamports--
	fungible := c.nft("fungible", metaplex.Fungible, false, nil, masterEdition(0), fee)
	noEdition := metaplex.Holding{Token: mplref.Key("plain token"), Mint: mplref.Key("plain mint"), Lamports: tokenRent, Amount: 1}

	md := minBal(uint64(len(metadataData(inCol.Mint, true, 0, nil))))
	mdCol := minBal(uint64(len(metadataData(inCol.Mint, true, 0, &metaplex.Collection{Key: col}))))
	edition := minBal(uint64(len(masterEdition(0))))
	cases := []struct {
		name     string
		h        metaplex.Holding
		burn     bool // a Metaplex NFT
		refund   uint64
		burnable bool
		check    func(metaplex.BurnAccounts) bool
	}{
		{"nft in a verified collection", inCol, true, tokenRent + mdCol + edition, true, func(a metaplex.BurnAccounts) bool {
			return a.CollectionMetadata != nil && *a.CollectionMetadata == metaplex.MetadataAddress(col) && a.TokenRecord == nil &&
				a.Metadata == metaplex.MetadataAddress(inCol.Mint) && a.Edition == metaplex.EditionAddress(inCol.Mint)
		}},
		{"pnft, frozen by design", pnft, true, tokenRent + md + edition + minBal(80), true, func(a metaplex.BurnAccounts) bool {
			return a.TokenRecord != nil && *a.TokenRecord == rec && a.Standard == metaplex.ProgrammableNonFungible
		}},
		{"locked pnft", locked, true, tokenRent + md + edition + minBal(80), false, nil},
		{"frozen nft", frozen, true, tokenRent + md + edition, false, nil},
		{"another close authority", closeAuth, true, tokenRent + md + edition, false, nil},
		{"master edition with a print", master, true, tokenRent + md + edition, false, nil},
		{"print edition, master held, marker closes", printed, true, tokenRent + md + minBal(uint64(len(printEdition(col, 1)))) + minBal(32), true, func(a metaplex.BurnAccounts) bool {
			return *a.MasterEditionMint == master.Mint && *a.MasterEditionToken == master.Token && *a.EditionMarker == marker &&
				*a.MasterEdition == metaplex.EditionAddress(master.Mint) && a.Edition == metaplex.EditionAddress(printed.Mint)
		}},
		{"print whose master is elsewhere", elsewhere, true, tokenRent + md + minBal(41), false, func(a metaplex.BurnAccounts) bool {
			return a.MasterEdition == nil && a.EditionMarker == nil
		}},
		{"metadata under its minimum", poor, true, 0, false, nil},
		{"fungible standard", fungible, false, 0, false, nil},
		{"no edition", noEdition, false, 0, false, nil},
	}
	nfts := make([]metaplex.NFT, len(cases))
	holdings := make([]metaplex.Holding, len(cases))
	for i, tc := range cases {
		nfts[i], holdings[i] = metaplex.NFT{Holding: tc.h}, tc.h
	}
	check := func(t *testing.T, burns []*metaplex.Burn) {
		t.Helper()
		for i, tc := range cases {
			b := burns[i]
			if (b != nil) != tc.burn {
				t.Errorf("%s: burn %+v, want a Metaplex burn: %v", tc.name, b, tc.burn)
				continue
			}
			if b == nil {
				continue
			}
			if b.Refund != tc.refund || b.Refundable != (tc.refund > 0) || b.Burnable != tc.burnable {
				t.Errorf("%s: refund %d (refundable %v), burnable %v; want %d, %v", tc.name, b.Refund, b.Refundable, b.Burnable, tc.refund, tc.burnable)
			}
			if tc.check != nil && !tc.check(b.Accounts) {
				t.Errorf("%s: accounts %+v", tc.name, b.Accounts)
			}
		}
	}

	t.Run("metadata not read", func(t *testing.T) {
		p := metaplex.PlanBurns(nfts, false)
		if p.Keys[0] != rent.Address {
			t.Fatalf("first key %s, want the Rent sysvar", p.Keys[0])
		}
		r := &chain{accounts: c.accounts}
		burns, err := p.Burns(context.Background(), c.get(p.Keys), holdings, r)
		if err != nil {
			t.Fatal(err)
		}
		check(t, burns)
		// One read for the masters and markers; the whole list once, for the
		// master found nowhere among the holdings.
		if r.reads != 1 || r.listed != 1 {
			t.Errorf("%d reads and %d listings, want 1 and 1", r.reads, r.listed)
		}
	})
	t.Run("metadata read with the mints", func(t *testing.T) {
		withMD := make([]metaplex.NFT, len(nfts))
		for i, n := range nfts {
			withMD[i] = metaplex.NFT{Holding: n.Holding, Metadata: metaplex.ReadMetadataAccount(c.accounts[metaplex.MetadataAddress(n.Mint)], n.Mint)}
		}
		p := metaplex.PlanBurns(withMD, true)
		for _, k := range p.Keys {
			if k == metaplex.MetadataAddress(inCol.Mint) || k == metaplex.TokenRecordAddress(inCol.Mint, inCol.Token) || k == metaplex.EditionAddress(noEdition.Mint) {
				t.Errorf("key %s read again or for nothing", k)
			}
		}
		burns, err := p.Burns(context.Background(), c.get(p.Keys), holdings, &chain{accounts: c.accounts})
		if err != nil {
			t.Fatal(err)
		}
		check(t, burns)
	})
	t.Run("master found through the wallet's list", func(t *testing.T) {
		p := metaplex.PlanBurns([]metaplex.NFT{{Holding: printed}}, false)
		r := &chain{accounts: c.accounts, holdings: []metaplex.Holding{master}}
		burns, err := p.Burns(context.Background(), c.get(p.Keys), nil, r)
		if err != nil || burns[0] == nil || !burns[0].Burnable || r.listed != 1 {
			t.Fatalf("burns %+v, %v after %d listings", burns, err, r.listed)
		}
	})
	t.Run("prints sharing a marker", func(t *testing.T) {
		owner := c.nft("owner's master", metaplex.NonFungible, false, nil, masterEdition(2), fee)
		parent := metaplex.EditionAddress(owner.Mint)
		first := c.nft("print 1", metaplex.NonFungibleEdition, false, nil, printEdition(parent, 1), fee)
		second := c.nft("print 2", metaplex.NonFungibleEdition, false, nil, printEdition(parent, 2), fee)
		ledger := make([]byte, 32)
		ledger[0], ledger[1] = byte(metaplex.KeyEditionMarker), 0b0110_0000
		c.put(metaplex.EditionMarkerAddress(owner.Mint, 1), minBal(32), ledger)
		base := tokenRent + md + minBal(uint64(len(printEdition(parent, 1))))
		for _, together := range []bool{false, true} {
			p := metaplex.PlanBurns([]metaplex.NFT{{Holding: first}, {Holding: second}}, false)
			p.Together = together
			burns, err := p.Burns(context.Background(), c.get(p.Keys), []metaplex.Holding{owner, first, second}, &chain{accounts: c.accounts})
			if err != nil {
				t.Fatal(err)
			}
			// Alone neither burn empties the marker; together the second does.
			want := [2]uint64{base, base}
			if together {
				want[1] += minBal(32)
			}
			for i, b := range burns {
				if !b.Burnable || b.Refund != want[i] {
					t.Errorf("together %v, print %d: refund %d, burnable %v; want %d", together, i+1, b.Refund, b.Burnable, want[i])
				}
			}
		}
	})
	t.Run("nothing to plan", func(t *testing.T) {
		p := metaplex.PlanBurns([]metaplex.NFT{{Holding: noEdition}}, true)
		if p.Keys != nil {
			t.Fatalf("keys %v for an NFT without metadata", p.Keys)
		}
		burns, err := p.Burns(context.Background(), nil, nil, nil)
		if err != nil || len(burns) != 1 || burns[0] != nil {
			t.Fatalf("burns %+v, %v", burns, err)
		}
	})
	t.Run("a failing read", func(t *testing.T) {
		p := metaplex.PlanBurns([]metaplex.NFT{{Holding: elsewhere}}, false)
		_, err := p.Burns(context.Background(), c.get(p.Keys), nil, failing{})
		if !errors.Is(err, errRead) {
			t.Fatalf("err = %v", err)
		}
	})
}

var errRead = errors.New("read failed")

type failing struct{}

func (failing) Accounts(context.Context, []solana.PublicKey) ([]*rpc.Account, error) {
	return nil, errRead
}

func (failing) Holdings(context.Context, solana.PublicKey) ([]metaplex.Holding, error) {
	return nil, errRead
}
