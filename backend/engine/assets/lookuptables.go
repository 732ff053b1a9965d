package assets

import (
	"context"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/lookuptable"
)

// Address lookup tables whose authority is the wallet (lookup_table). A
// table gives its lamports back in two steps: DeactivateLookupTable, then,
// once its deactivation slot has left the SlotHashes sysvar (about 512
// slots), CloseLookupTable to the wallet. Discovery says which step the
// cluster takes now, as the program decides it (lookuptable.StatusAt, at
// the Clock's slot under SlotHashes): an active table offers deactivate, a
// deactivated one close, a deactivating one nothing, with the slot it is
// expected to become closable from and an estimated time. Its Lamports are
// every lamport the close returns; a deactivation returns none (the
// builder counts it so). A frozen table (no authority) can never be closed
// and is not listed. The scan asks for the 56-byte header alone (a full
// table holds 8 KB of addresses); the addresses are counted from the
// account's space.
//
// SlotHashes (20 KB) is read only when a table of the wallet has been
// deactivated: in the listing's second round trip, beside the mints.

// slotDuration is the cluster's target slot time, for the estimate of when
// a deactivating table becomes closable.
const slotDuration = 400 * time.Millisecond

// Lookup table statuses (LookupTable.Status).
const (
	TableActive       = "active"
	TableDeactivating = "deactivating"
	TableDeactivated  = "deactivated"
)

// LookupTable is what a lookup_table item says of its table.
type LookupTable struct {
	// Status is TableActive, TableDeactivating or TableDeactivated.
	Status string
	// DeactivationSlot is the slot it was deactivated in; 0 while active.
	DeactivationSlot uint64
	// ClosableSlot is, while deactivating, the slot from which the table
	// is expected to be closable (fewer skipped slots make it later); 0
	// otherwise.
	ClosableSlot uint64
	// ClosableAt estimates when the cluster reaches ClosableSlot, from its
	// Clock and 400 ms slots; zero unless deactivating.
	ClosableAt time.Time
	// Addresses the table holds.
	Addresses int
}

// lookupTableScan finds the tables whose authority is wallet: the Option
// tag (1) and the key at 21, the data sliced to the header.
func lookupTableScan(wallet solana.PublicKey) programScan {
	return programScan{what: "address lookup tables", program: lookuptable.ProgramID,
		filters: []rpc.RPCFilter{memcmp(lookuptable.AuthorityOffset-1, append([]byte{1}, wallet[:]...))},
		slice:   &rpc.DataSlice{Offset: ptr[uint64](0), Length: ptr[uint64](lookuptable.MetaSize)}}
}

// tableAccount is a lookup table of the wallet as read.
type tableAccount struct {
	address  solana.PublicKey
	lamports uint64
	size     uint64
	table    lookuptable.Table
}

// tableOf reads the lookup table a at address as one of wallet's; reason
// says why it is none.
func tableOf(address solana.PublicKey, a *rpc.Account, wallet solana.PublicKey) (tableAccount, string) {
	if !a.Owner.Equals(lookuptable.ProgramID) {
		return tableAccount{}, reasonNotLookupTable
	}
	d := data(a)
	t, err := lookuptable.Parse(d[:min(len(d), lookuptable.MetaSize)])
	switch {
	case err != nil:
		return tableAccount{}, reasonNotLookupTable
	case t.Authority == nil:
		return tableAccount{}, reasonFrozenTable
	case !t.Authority.Equals(wallet):
		return tableAccount{}, reasonOtherAuthority
	}
	size := accountSize(a)
	if size >= lookuptable.MetaSize {
		t.Addresses = int(min((size-lookuptable.MetaSize)/32, lookuptable.MaxAddresses))
	}
	return tableAccount{address: address, lamports: a.Lamports, size: size, table: t}, ""
}

// tableAccounts are the lookup tables res found whose authority is wallet.
func tableAccounts(res rpc.GetProgramAccountsResult, wallet solana.PublicKey) []tableAccount {
	var out []tableAccount
	for _, ka := range res {
		if ka == nil || ka.Account == nil {
			continue
		}
		if t, reason := tableOf(ka.Pubkey, ka.Account, wallet); reason == "" {
			out = append(out, t)
		}
	}
	return out
}

// needsSlotHashes reports whether the status of a table of tables depends
// on the SlotHashes sysvar: one was deactivated.
func needsSlotHashes(tables []tableAccount) bool {
	for _, t := range tables {
		if t.table.DeactivationSlot != lookuptable.Active {
			return true
		}
	}
	return false
}

// tableItem is the lookup_table item of t at the cluster's state st under
// h; reason says why there is none (no Clock to judge its status by).
func tableItem(t tableAccount, wallet solana.PublicKey, st clusterState, h lookuptable.SlotHashes) (Item, string) {
	if !st.hasClock {
		return Item{}, reasonNoClock
	}
	it := newAccountItem(TypeLookupTable, t.address, wallet, lookuptable.ProgramID, t.lamports)
	it.Rent = rentOf(it, t.size, st.rentSysvar())
	lt := &LookupTable{Addresses: t.table.Addresses}
	status, remaining := t.table.StatusAt(st.clock.Slot, h)
	switch status {
	case lookuptable.StatusActive:
		lt.Status, it.Actions = TableActive, []Action{ActionDeactivate}
	case lookuptable.StatusDeactivating:
		lt.Status, it.Actions = TableDeactivating, []Action{}
		lt.DeactivationSlot = t.table.DeactivationSlot
		lt.ClosableSlot = st.clock.Slot + remaining
		lt.ClosableAt = time.Unix(st.clock.UnixTimestamp, 0).UTC().Add(time.Duration(min(remaining, lookuptable.SlotHashesEntries+1)) * slotDuration)
	default:
		lt.Status, it.Actions = TableDeactivated, []Action{ActionClose}
		lt.DeactivationSlot = t.table.DeactivationSlot
	}
	it.LookupTable = lt
	return it, ""
}

func tableItems(tables []tableAccount, wallet solana.PublicKey, st clusterState, h lookuptable.SlotHashes) []Item {
	return itemsWhere(tables, func(t tableAccount) (Item, string) { return tableItem(t, wallet, st, h) })
}

// readSlotHashes reads the SlotHashes sysvar; a cluster that does not
// serve it is an error (no table's status could be told).
func (d *Discoverer) readSlotHashes(ctx context.Context) (lookuptable.SlotHashes, error) {
	accs, err := d.accounts(ctx, []solana.PublicKey{slotHashesAddress})
	if err != nil {
		return nil, fmt.Errorf("read the SlotHashes sysvar: %w", err)
	}
	if accs[0] == nil {
		return nil, fmt.Errorf("read the SlotHashes sysvar: %w", lookuptable.ErrNotSlotHashes)
	}
	h, err := lookuptable.ParseSlotHashes(data(accs[0]))
	if err != nil {
		return nil, fmt.Errorf("read the SlotHashes sysvar: %w", err)
	}
	return h, nil
}

var slotHashesAddress = solana.MustPublicKeyFromBase58(lookuptable.SlotHashesAddress)

// WhyNotTable says why a lookup_table item takes none of deactivate or
// close now, for a person: it is deactivating, and when it is expected to
// become closable. "" for an item that is not a deactivating table.
func WhyNotTable(it Item) string {
	lt := it.LookupTable
	if lt == nil || lt.Status != TableDeactivating {
		return ""
	}
	return fmt.Sprintf("the lookup table is deactivating (deactivated in slot %d): it can be closed once that slot has left the cluster's SlotHashes, expected from slot %d, about %s",
		lt.DeactivationSlot, lt.ClosableSlot, lt.ClosableAt.Format(time.RFC3339))
}
