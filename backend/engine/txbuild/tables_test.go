package txbuild

import (
	"context"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// A full table's lamports (56 + 256*32 bytes at the default rent).
const tableRent = 58_296_960

// table is a lookup table of wallet taking action, with the actions its
// status offers.
func table(name string, action assets.Action, offered ...assets.Action) Selected {
	return Selected{Action: action, Item: assets.Item{
		Type: assets.TypeLookupTable, Address: key(name), Owner: wallet, TokenProgram: lookuptable.ProgramID,
		Lamports: tableRent, Rent: tableRent, Actions: offered,
	}}
}

// TestBuildDeactivatesTables: deactivations return nothing, so the
// transaction has no donation or service fee transfer and the wallet pays
// exactly its network fee (net = -fee), as cNFT burns do; each is the
// program's DeactivateLookupTable (u32 3: table, authority).
func TestBuildDeactivatesTables(t *testing.T) {
	t.Parallel()
	f := newFake()
	items := []Selected{table("t1", assets.ActionDeactivate, assets.ActionDeactivate), table("t2", assets.ActionDeactivate, assets.ActionDeactivate)}
	res, err := NewBuilder(f).Build(context.Background(), fullParams(items, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Txs) != 1 {
		t.Fatalf("%d transactions, want 1", len(res.Txs))
	}
	tx := res.Txs[0]
	if tx.LedgerType != ledger.TypeLookupTableReclaim || tx.GrossRebate != 0 || tx.DonationAmount != 0 || tx.ServiceFee != 0 ||
		tx.NetRebate != -int64(tx.NetworkFee) || tx.NetworkFee == 0 {
		t.Errorf("money %+v, want gross 0, no donation or service fee, net minus the network fee", tx)
	}
	progs := programsOf(t, tx.Transaction)
	if progs[lookuptable.ProgramID] != 2 || progs[solana.SystemProgramID] != 0 {
		t.Errorf("instructions per program %v: want 2 deactivations and no transfers", progs)
	}
	for _, ix := range tx.Transaction.Message.Instructions {
		if p, _ := tx.Transaction.Message.Program(ix.ProgramIDIndex); p.Equals(lookuptable.ProgramID) && string(ix.Data) != "\x03\x00\x00\x00" {
			t.Errorf("deactivation data %x, want 03000000", []byte(ix.Data))
		}
	}
}

// TestBuildClosesTablesAndMints: a deactivated table's close returns its
// lamports (CloseLookupTable, u32 4, recipient the wallet); an empty
// mint's close is Token-2022's CloseAccount (9) on the mint, a
// token_account_closure beside empty accounts.
func TestBuildClosesTablesAndMints(t *testing.T) {
	t.Parallel()
	f := newFake()
	mint := Selected{Action: assets.ActionClose, Item: assets.Item{
		Type: assets.TypeMint, Address: key("m"), Owner: wallet, Mint: key("m"), TokenProgram: solana.Token2022ProgramID,
		Lamports: 2_296_800, Rent: 2_296_800, Actions: []assets.Action{assets.ActionClose},
	}}
	items := []Selected{table("t", assets.ActionClose, assets.ActionClose), mint}
	res, err := NewBuilder(f).Build(context.Background(), fullParams(items, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Txs) != 2 || res.Txs[0].LedgerType != ledger.TypeLookupTableReclaim || res.Txs[1].LedgerType != ledger.TypeTokenAccountClosure {
		t.Fatalf("%d transactions: %+v", len(res.Txs), res.Txs)
	}
	for i, gross := range []uint64{tableRent, 2_296_800} {
		if tx := res.Txs[i]; tx.GrossRebate != gross || tx.NetRebate <= 0 || tx.DonationAmount == 0 {
			t.Errorf("tx %d: %+v, want gross %d with a donation", i, tx, gross)
		}
	}
	msg := res.Txs[0].Transaction.Message
	for _, ix := range msg.Instructions {
		if p, _ := msg.Program(ix.ProgramIDIndex); p.Equals(lookuptable.ProgramID) {
			if string(ix.Data) != "\x04\x00\x00\x00" || len(ix.Accounts) != 3 || !msg.AccountKeys[ix.Accounts[2]].Equals(wallet) {
				t.Errorf("close %x with accounts %v, want 04000000 to the wallet", []byte(ix.Data), ix.Accounts)
			}
		}
	}
}

// TestBuildRefusesTableActionsNotOffered: a close of a table that offers
// none (deactivating) or only deactivate is refused, naming the item.
func TestBuildRefusesTableActionsNotOffered(t *testing.T) {
	t.Parallel()
	for _, s := range []Selected{table("deactivating", assets.ActionClose), table("active", assets.ActionClose, assets.ActionDeactivate)} {
		_, err := NewBuilder(newFake()).Build(context.Background(), fullParams([]Selected{s}, 0))
		var ie *assets.ItemError
		if !errors.As(err, &ie) || ie.Address != s.Item.Address.String() {
			t.Errorf("%s: %v, want an item error naming it", s.Item.Address, err)
		}
	}
}
