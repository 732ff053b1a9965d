package txbuild

import (
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// pnft is a frozen pNFT (token record) in a verified collection, burned
// with Token Metadata; refund is what discovery computed.
func pnft(name string, refund uint64) Selected {
	s := nft(name)
	mint := s.Item.Mint
	rec := metaplex.TokenRecordAddress(mint, s.Item.Address)
	col := metaplex.MetadataAddress(key("collection"))
	s.Item.IsFrozen, s.Item.Lamports, s.Item.Rent = true, refund, refund
	s.Item.Metaplex = &metaplex.BurnAccounts{
		Standard: metaplex.ProgrammableNonFungible, Metadata: metaplex.MetadataAddress(mint),
		Edition: metaplex.EditionAddress(mint), TokenRecord: &rec, CollectionMetadata: &col,
	}
	return s
}

// core is an MPL Core asset of wallet in a collection.
func core(name string, refund uint64) Selected {
	col := key("core collection")
	return Selected{Action: assets.ActionBurn, Item: assets.Item{
		Type: assets.TypeNFT, Address: key(name), Owner: wallet, Mint: key(name), TokenProgram: mplcore.ProgramID,
		Lamports: refund, Rent: refund, Amount: 1, Actions: []assets.Action{assets.ActionBurn}, Core: &mplcore.BurnAccounts{Collection: &col},
	}}
}

// cores are n Core assets, "core 0" to "core n-1", of 2,900,000 lamports.
func cores(n int) []Selected {
	out := make([]Selected, n)
	for i := range out {
		out[i] = core(fmt.Sprintf("core %d", i), 2_900_000)
	}
	return out
}

// TestBuildMetaplexAndCore: Metaplex NFTs burn with Token Metadata's BurnV1
// and Core assets with Core's BurnV1, in nft_burn transactions whose gross
// is the refunds discovery computed; a pNFT's frozen account is no obstacle.
func TestBuildMetaplexAndCore(t *testing.T) {
	t.Parallel()
	const pnftRefund, coreRefund = 2_039_280 + 5_616_720 + 2_853_600 + 1_447_680, 2_756_160
	items := []Selected{pnft("p1", pnftRefund), core("c1", coreRefund), pnft("p2", pnftRefund), core("c2", coreRefund), token("t", 5)}
	res := build(t, newFake(), Params{Wallet: wallet, Items: items, PriorityLevel: PriorityNone})
	var gross uint64
	programs := map[solana.PublicKey]int{}
	for _, tx := range res.Txs {
		gross += tx.GrossRebate
		for _, s := range tx.Includes {
			if s.Item.Type == assets.TypeNFT && tx.LedgerType != ledger.TypeNFTBurn {
				t.Errorf("%s in a %s transaction", s.Item.Address, tx.LedgerType)
			}
		}
		for _, ix := range tx.Transaction.Message.Instructions {
			p, err := tx.Transaction.Message.Program(ix.ProgramIDIndex)
			if err != nil {
				t.Fatal(err)
			}
			programs[p]++
			if p.Equals(metaplex.ProgramID) && (len(ix.Accounts) != 14 || string(ix.Data) != "\x29\x00\x01\x00\x00\x00\x00\x00\x00\x00") {
				t.Errorf("Token Metadata BurnV1: %d accounts, data %x", len(ix.Accounts), []byte(ix.Data))
			}
			if p.Equals(mplcore.ProgramID) && (len(ix.Accounts) != 6 || string(ix.Data) != "\x0c\x00") {
				t.Errorf("Core BurnV1: %d accounts, data %x", len(ix.Accounts), []byte(ix.Data))
			}
		}
	}
	if want := uint64(2*pnftRefund + 2*coreRefund + tokenRent); gross != want {
		t.Errorf("gross %d, want %d", gross, want)
	}
	if programs[metaplex.ProgramID] != 2 || programs[mplcore.ProgramID] != 2 || programs[solana.TokenProgramID] != 2 {
		t.Errorf("instructions per program %v: want 2 Token Metadata, 2 Core, BurnChecked+CloseAccount", programs)
	}
	if res.Totals().NetRebate != int64(gross-res.Totals().Fees) {
		t.Errorf("totals %+v", res.Totals())
	}
}

func TestBuildRefusesCoreMistakes(t *testing.T) {
	t.Parallel()
	closeCore := core("c", 1_000_000)
	closeCore.Action = assets.ActionClose
	other := core("o", 1_000_000)
	other.Item.Owner = key("someone")
	frozenNFT := nft("f")
	frozenNFT.Item.IsFrozen = true
	frozenNFT.Item.Metaplex = &metaplex.BurnAccounts{Standard: metaplex.NonFungible}
	for name, s := range map[string]Selected{"close a core asset": closeCore, "another's asset": other, "frozen non-programmable nft": frozenNFT} {
		if _, err := NewBuilder(newFake()).Build(t.Context(), Params{Wallet: wallet, Items: []Selected{s}}); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}
