package assets

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
	"github.com/reclaim-sol/reclaim/backend/chain/stake"
)

// TestAssetsClusterTables lists the recorded wallet's lookup tables and its
// closable mint from the validator's own bytes: the active table offers
// deactivate, the one deactivated before the warps (its slot long out of
// SlotHashes) close, the one deactivated last nothing, with the slot and
// time it is expected to close; each for all its lamports. The closable
// mint is a mint item (close, all its lamports), not an excess_rent one.
func TestAssetsClusterTables(t *testing.T) {
	t.Parallel()
	r := newRecordedRPC(t)
	l, err := NewDiscoverer(r, nil).List(context.Background(), recWallet)
	if err != nil {
		t.Fatal(err)
	}
	tables := byAddress(l.Items, TypeLookupTable)
	clock, _ := stake.ParseClock(r.accounts[solana.SysVarClockPubkey])
	for _, c := range []struct {
		k         solana.PublicKey
		status    string
		actions   []Action
		addresses int
	}{
		{recActiveTable, TableActive, []Action{ActionDeactivate}, 3},
		{recOldTable, TableDeactivated, []Action{ActionClose}, 2},
		{recNewTable, TableDeactivating, []Action{}, 1},
	} {
		it, ok := tables[c.k]
		if !ok || it.LookupTable == nil {
			t.Errorf("%s: not listed as a lookup table", c.k)
			continue
		}
		lt := it.LookupTable
		if lt.Status != c.status || !slices.Equal(it.Actions, c.actions) || lt.Addresses != c.addresses ||
			it.Lamports != r.accounts[c.k].Lamports || !it.Owner.Equals(recWallet) || !it.TokenProgram.Equals(lookuptable.ProgramID) {
			t.Errorf("%s: %+v %+v, want %s offering %v, %d addresses, all its %d lamports", c.k, it, lt, c.status, c.actions, c.addresses, r.accounts[c.k].Lamports)
		}
		if c.status == TableActive && lt.DeactivationSlot != 0 || c.status != TableActive && lt.DeactivationSlot == 0 {
			t.Errorf("%s: deactivation slot %d", c.k, lt.DeactivationSlot)
		}
	}
	if lt := tables[recNewTable].LookupTable; lt != nil {
		if lt.ClosableSlot <= clock.Slot || lt.ClosableSlot > lt.DeactivationSlot+lookuptable.SlotHashesEntries+1 || !lt.ClosableAt.After(lt.ClosableAt.Add(-1)) ||
			!strings.Contains(WhyNotTable(tables[recNewTable]), "deactivating") {
			t.Errorf("deactivating table: closable from %d (clock %d, deactivated %d) at %s: %q", lt.ClosableSlot, clock.Slot, lt.DeactivationSlot, lt.ClosableAt, WhyNotTable(tables[recNewTable]))
		}
	}
	if len(tables) != 3 {
		t.Errorf("%d lookup tables, want 3", len(tables))
	}
	mints := byAddress(l.Items, TypeMint)
	if it, ok := mints[recClosable]; !ok || it.Lamports != r.accounts[recClosable].Lamports || !slices.Equal(it.Actions, []Action{ActionClose}) ||
		!it.Mint.Equals(recClosable) || it.Decimals != 6 || len(mints) != 1 {
		t.Errorf("closable mint %s: %+v (%v), %d mint items", recClosable, it, ok, len(mints))
	}
	if _, ok := byAddress(l.Items, TypeExcessRent)[recClosable]; ok {
		t.Error("the closable mint also offers excess_rent")
	}
}

// TestAssetsResolveTablesAndMints resolves the recorded tables and mint as
// a build selects them: SlotHashes comes with the addresses (one read); a
// deactivating table offers nothing, so its close is refused upstream.
func TestAssetsResolveTablesAndMints(t *testing.T) {
	t.Parallel()
	r := newRecordedRPC(t)
	addrs := []solana.PublicKey{recActiveTable, recOldTable, recNewTable, recClosable}
	types := []ItemType{TypeLookupTable, TypeLookupTable, TypeLookupTable, TypeMint}
	items, err := NewDiscoverer(r, nil).ResolveAs(context.Background(), recWallet, addrs, types)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Action{{ActionDeactivate}, {ActionClose}, {}, {ActionClose}}
	for i, it := range items {
		if it.Type != types[i] || !slices.Equal(it.Actions, want[i]) || it.Lamports != r.accounts[addrs[i]].Lamports {
			t.Errorf("%s: %+v, want actions %v", addrs[i], it, want[i])
		}
	}
	if n := r.count("getMultipleAccounts"); n != 1 {
		t.Errorf("%d reads, want one: %v", n, r.calls)
	}
	other := solana.NewWallet().PublicKey()
	for _, c := range []struct {
		addr   solana.PublicKey
		typ    ItemType
		reason string
	}{
		{recActiveTable, TypeLookupTable, reasonOtherAuthority},
		{recClosable, TypeMint, reasonOtherCloseAuthority},
	} {
		_, err := NewDiscoverer(newRecordedRPC(t), nil).ResolveAs(context.Background(), other, []solana.PublicKey{c.addr}, []ItemType{c.typ})
		if err == nil || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s as another wallet's: %v, want %q", c.addr, err, c.reason)
		}
	}
}
