package storage

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
)

type transactionRow struct {
	bun.BaseModel `bun:"table:reclaim_transactions"`

	ID             string        `bun:"id,pk"`
	ProjectID      string        `bun:"project_id,notnull"`
	Payer          string        `bun:"payer,notnull"`
	Type           string        `bun:"type,notnull"`
	GrossRebate    int64         `bun:"gross_rebate,notnull"`
	NetRebate      int64         `bun:"net_rebate,notnull"`
	DonationAmount int64         `bun:"donation_amount,notnull"`
	NetworkFee     int64         `bun:"network_fee,notnull"`
	ServiceFee     int64         `bun:"service_fee,notnull"`
	Fees           int64         `bun:"fees,notnull"`
	ItemCount      int64         `bun:"item_count,notnull"`
	Signature      string        `bun:"signature,notnull"`
	TicketJTI      string        `bun:"ticket_jti,notnull"`
	Status         ledger.Status `bun:"status,notnull"`
	Error          string        `bun:"error,notnull"`
	CreatedAt      time.Time     `bun:"created_at,notnull"`
	ConfirmedAt    *time.Time    `bun:"confirmed_at"`
	// LastValidBlockHeight came with migration 20260521000003.
	LastValidBlockHeight int64 `bun:"last_valid_block_height,notnull"`
	// The promise and the recipients came with migration 20260521000006.
	PromisedGrossRebate    int64  `bun:"promised_gross_rebate,notnull"`
	PromisedNetRebate      int64  `bun:"promised_net_rebate,notnull"`
	PromisedDonationAmount int64  `bun:"promised_donation_amount,notnull"`
	PromisedNetworkFee     int64  `bun:"promised_network_fee,notnull"`
	PromisedServiceFee     int64  `bun:"promised_service_fee,notnull"`
	DonationWallet         string `bun:"donation_wallet,notnull"`
	Treasury               string `bun:"treasury,notnull"`
	// The tracker's lease came with migration 20260521000008 (LeaseInFlight).
	LeaseOwner string `bun:"lease_owner,notnull"`
	LeaseUntil int64  `bun:"lease_until,notnull"`
	// RollupState came with migration 20260521000009: whether the rollups
	// count the row (rollupCounted once confirmed). Always written: SQLite
	// would give an insert that leaves it out the legacy value.
	RollupState int16 `bun:"rollup_state,notnull"`
	// RankVersion came with migration 20260521000010: the project's version
	// that counted the row (stampRanked), 0 until then.
	RankVersion int64 `bun:"rank_version,notnull"`
	// RawTransaction came with migration 20260521000016: the signed
	// transaction while the entry is in flight, NULL once settled.
	RawTransaction []byte `bun:"raw_transaction"`
	// Includes and Slot came with migration 20260521000017: the ticket's
	// items (JSON, NULL for entries claimed before) and the landed
	// transaction's slot (0 until confirmed).
	Includes []ticket.Item `bun:"includes,type:text"`
	Slot     int64         `bun:"slot,notnull"`
	// ReportedTicket came with migration 20260521000018: the ticket of a
	// transaction the wallet sent itself (JSON), NULL for a relayed one.
	ReportedTicket *ticket.Claims `bun:"reported_ticket,type:text"`
	// RentRebate came with migration 20260521000022: the part of the gross
	// that is rent (ledger.Entry.RentRebate), NULL for rows recorded before.
	RentRebate *int64 `bun:"rent_rebate"`
	// LandedAt came with migration 20260521000023: when the tracker found
	// the transaction at confirmed commitment (Unix milliseconds), 0 before
	// and once a fork dropped it.
	LandedAt int64 `bun:"landed_at,notnull"`
}

// newTransactionRow is the row of e with status; an entry without a promise
// (recorded whole, as imports and tests do) promised its own figures.
func newTransactionRow(e ledger.Entry, status ledger.Status) transactionRow {
	p := e.Promised
	if p == (ledger.Figures{}) {
		p = e.Figures()
	}
	row := transactionRow{
		ID: e.ID, ProjectID: e.ProjectID, Payer: e.Payer, Type: e.Type,
		GrossRebate: e.GrossRebate, NetRebate: e.NetRebate, DonationAmount: e.DonationAmount,
		NetworkFee: e.NetworkFee, ServiceFee: e.ServiceFee, Fees: e.Fees, ItemCount: int64(e.ItemCount),
		Signature: e.Signature, TicketJTI: e.TicketJTI, Status: status, Error: e.Error,
		CreatedAt: utc(e.CreatedAt), ConfirmedAt: utcPtr(e.ConfirmedAt), LastValidBlockHeight: e.LastValidBlockHeight,
		PromisedGrossRebate: p.GrossRebate, PromisedNetRebate: p.NetRebate, PromisedDonationAmount: p.DonationAmount,
		PromisedNetworkFee: p.NetworkFee, PromisedServiceFee: p.ServiceFee,
		DonationWallet: e.DonationWallet, Treasury: e.Treasury,
		RollupState: rollupNotCounted, Includes: e.Includes, Slot: e.Slot, ReportedTicket: e.Reported,
		RentRebate: e.RentRebate,
	}
	if e.LandedAt != nil {
		row.LandedAt = millis(*e.LandedAt)
	}
	if status == ledger.StatusSending || status == ledger.StatusSubmitted {
		row.RawTransaction = e.Raw
	}
	if status == ledger.StatusConfirmed {
		row.RollupState = rollupCounted
	}
	if row.ID == "" {
		row.ID = NewID("tx")
	}
	if e.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	return row
}

func (r *transactionRow) entry() ledger.Entry {
	return ledger.Entry{
		ID:             r.ID,
		ProjectID:      r.ProjectID,
		Payer:          r.Payer,
		Type:           r.Type,
		GrossRebate:    r.GrossRebate,
		NetRebate:      r.NetRebate,
		DonationAmount: r.DonationAmount,
		NetworkFee:     r.NetworkFee,
		ServiceFee:     r.ServiceFee,
		Fees:           r.Fees,
		RentRebate:     r.RentRebate,
		ItemCount:      int(r.ItemCount),
		Signature:      r.Signature,
		TicketJTI:      r.TicketJTI,
		Status:         r.Status,
		Error:          r.Error,
		CreatedAt:      r.CreatedAt.UTC(),
		ConfirmedAt:    utcPtr(r.ConfirmedAt),

		LastValidBlockHeight: r.LastValidBlockHeight,

		Promised: ledger.Figures{
			GrossRebate: r.PromisedGrossRebate, NetRebate: r.PromisedNetRebate, DonationAmount: r.PromisedDonationAmount,
			NetworkFee: r.PromisedNetworkFee, ServiceFee: r.PromisedServiceFee,
		},
		DonationWallet: r.DonationWallet,
		Treasury:       r.Treasury,
		Raw:            r.RawTransaction,
		Includes:       r.Includes,
		Slot:           r.Slot,
		Reported:       r.ReportedTicket,
		LandedAt:       landedAt(r.LandedAt),
	}
}

// landedAt is the entry's LandedAt of the column's milliseconds.
func landedAt(ms int64) *time.Time {
	if ms == 0 {
		return nil
	}
	t := fromMillis(ms)
	return &t
}

func validStatus(s ledger.Status) bool {
	switch s {
	case ledger.StatusSubmitted, ledger.StatusConfirmed, ledger.StatusFailed, ledger.StatusExpired:
		return true
	}
	return false
}

// InsertEntry records e, with a new "tx_" ID when e.ID is empty and CreatedAt
// set to now when zero. A ticket jti or signature already recorded gives
// ledger.ErrDuplicate: that is how concurrent submits of one ticket learn that
// another one won.
func (s *Ledger) InsertEntry(ctx context.Context, e ledger.Entry) error {
	if !ledger.ValidType(e.Type) {
		return fmt.Errorf("insert ledger entry: unknown transaction type %q", e.Type)
	}
	if !validStatus(e.Status) {
		return fmt.Errorf("insert ledger entry: unknown status %q", e.Status)
	}
	if e.TicketJTI == "" {
		return fmt.Errorf("insert ledger entry: empty ticket jti")
	}
	if e.Status == ledger.StatusConfirmed && e.ConfirmedAt == nil {
		// Date filters and rollups go by the confirmation time.
		return fmt.Errorf("insert ledger entry: confirmed without a confirmation time")
	}
	row := newTransactionRow(e, e.Status)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		if row.Status == ledger.StatusConfirmed {
			return s.countConfirmed(ctx, tx, &row)
		}
		return nil
	})
	if err != nil {
		if err != nil && isUniqueViolation(err) {
			return fmt.Errorf("insert ledger entry for ticket %s: %w", e.TicketJTI, ledger.ErrDuplicate)
		}
		return fmt.Errorf("insert ledger entry: %w", s.writeErr(err))
	}
	s.health.wrote()
	if row.Status == ledger.StatusConfirmed {
		s.confirms.confirmed(row.ProjectID)
	}
	return nil
}

// EntryByTicketJTI returns the entry recorded for a ticket, or
// ledger.ErrNotFound.
func (s *Ledger) EntryByTicketJTI(ctx context.Context, jti string) (ledger.Entry, error) {
	var row transactionRow
	err := s.db.NewSelect().Model(&row).Where("ticket_jti = ?", jti).Scan(ctx)
	if err != nil {
		return ledger.Entry{}, notFound(err, ledger.ErrNotFound, "ledger entry for ticket %s", jti)
	}
	return row.entry(), nil
}

// SetEntryStatus moves the entry of a ticket from submitted to status
// (confirmed, failed or expired) with errMsg; a confirmed entry gets
// ConfirmedAt = at and keeps its figures. It reports whether the entry
// changed: an entry already final is left alone, so a confirmation is
// counted once however often it is reported. An unknown ticket gives
// ledger.ErrNotFound.
func (s *Ledger) SetEntryStatus(ctx context.Context, jti string, status ledger.Status, errMsg string, at time.Time) (bool, error) {
	if status == ledger.StatusSubmitted || !validStatus(status) {
		return false, fmt.Errorf("set ledger entry status: cannot move to %q", status)
	}
	return s.settle(ctx, jti, status, errMsg, at, nil, 0)
}

// FailEntry moves the entry of a ticket from submitted to failed, as
// SetEntryStatus does, keeping the slot of the block that holds the failed
// transaction (0: not known), for its event.
func (s *Ledger) FailEntry(ctx context.Context, jti, errMsg string, slot int64, at time.Time) (bool, error) {
	return s.settle(ctx, jti, ledger.StatusFailed, errMsg, at, nil, slot)
}

// ConfirmEntry moves the entry of a ticket from submitted to confirmed at
// at, with the figures the chain reported for its landing (its promise
// stays in the promised columns) and the slot that holds it, and counts
// them in the totals and the rollups, in the same transaction, once, as
// SetEntryStatus does.
func (s *Ledger) ConfirmEntry(ctx context.Context, jti string, landed ledger.Figures, slot int64, at time.Time) (bool, error) {
	return s.settle(ctx, jti, ledger.StatusConfirmed, "", at, &landed, slot)
}

func (s *Ledger) settle(ctx context.Context, jti string, status ledger.Status, errMsg string, at time.Time, landed *ledger.Figures, slot int64) (bool, error) {
	var changed bool
	var events int64
	var confirmedProject string
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []transactionRow
		q := tx.NewUpdate().Model(&rows).
			Set("status = ?", status).
			Set("error = ?", errMsg).
			Set("raw_transaction = NULL"). // kept only while in flight
			Where("ticket_jti = ?", jti).
			Where("status = ?", ledger.StatusSubmitted).
			Returning("*")
		if status == ledger.StatusConfirmed {
			q = q.Set("confirmed_at = ?", utc(at)).Set("rollup_state = ?", rollupCounted)
		}
		if landed != nil {
			q = setLanded(q, *landed, slot)
		} else if slot > 0 {
			q = q.Set("slot = ?", slot)
		}
		if err := q.Scan(ctx); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		changed = true
		confirmedProject = rows[0].ProjectID
		if status == ledger.StatusConfirmed {
			if err := s.countConfirmed(ctx, tx, &rows[0]); err != nil {
				return err
			}
		}
		// The webhooks' outbox, in this transaction: an event is written
		// exactly when its status change is (webhooks_outbox.go).
		var err error
		events, err = s.enqueueEvent(ctx, tx, &rows[0], at)
		return err
	})
	if err != nil && isUniqueViolation(err) {
		// Another entry holds the signature (a relayed or confirmed one):
		// this one cannot be counted too.
		return false, fmt.Errorf("set ledger entry status for ticket %s: %w", jti, ledger.ErrDuplicate)
	}
	if err != nil {
		return false, fmt.Errorf("set ledger entry status for ticket %s: %w", jti, s.writeErr(err))
	}
	if changed {
		if status == ledger.StatusConfirmed {
			s.confirms.confirmed(confirmedProject)
		}
		if events > 0 {
			s.notifyOutbox()
		}
		return true, nil
	}
	if _, err := s.EntryByTicketJTI(ctx, jti); err != nil {
		return false, fmt.Errorf("set ledger entry status: %w", err)
	}
	return false, nil
}

// payerTotalRow is the running total of one wallet in one project, for one
// transaction type, or for all of them when Type is "". Confirming an entry
// adds to its two rows in the same transaction.
type payerTotalRow struct {
	bun.BaseModel `bun:"table:reclaim_payer_totals"`

	ProjectID                string `bun:"project_id,pk"`
	Payer                    string `bun:"payer,pk"`
	Type                     string `bun:"type,pk"`
	GrossRebate              int64  `bun:"gross_rebate,notnull"`
	NetRebate                int64  `bun:"net_rebate,notnull"`
	TransactionCount         int64  `bun:"transaction_count,notnull"`
	TokenAccountClosureCount int64  `bun:"token_account_closure_count,notnull"`
	TokenBurnCount           int64  `bun:"token_burn_count,notnull"`
	NFTBurnCount             int64  `bun:"nft_burn_count,notnull"`
	// The counts of the types migration 14 added.
	ExcessRentWithdrawalCount   int64 `bun:"excess_rent_withdrawal_count,notnull"`
	ProgramBufferClosureCount   int64 `bun:"program_buffer_closure_count,notnull"`
	NonceAccountClosureCount    int64 `bun:"nonce_account_closure_count,notnull"`
	StakeAccountWithdrawalCount int64 `bun:"stake_account_withdrawal_count,notnull"`
	// The count migration 24 added.
	LookupTableReclaimCount int64 `bun:"lookup_table_reclaim_count,notnull"`
	DonationAmount          int64 `bun:"donation_amount,notnull"`
	DonationCount           int64 `bun:"donation_count,notnull"`
	CommunityAmount         int64 `bun:"community_amount,notnull"`
}

// countOf is the field counting transactions of type t.
func (p *payerTotalRow) countOf(t string) *int64 {
	switch t {
	case ledger.TypeTokenAccountClosure:
		return &p.TokenAccountClosureCount
	case ledger.TypeTokenBurn:
		return &p.TokenBurnCount
	case ledger.TypeNFTBurn:
		return &p.NFTBurnCount
	case ledger.TypeExcessRentWithdrawal:
		return &p.ExcessRentWithdrawalCount
	case ledger.TypeProgramBufferClosure:
		return &p.ProgramBufferClosureCount
	case ledger.TypeNonceAccountClosure:
		return &p.NonceAccountClosureCount
	case ledger.TypeStakeAccountWithdrawal:
		return &p.StakeAccountWithdrawalCount
	case ledger.TypeLookupTableReclaim:
		return &p.LookupTableReclaimCount
	}
	return nil
}

// addToTotals counts the confirmed entry r in its wallet's totals; first
// reports that it is the wallet's first in the project.
func addToTotals(ctx context.Context, tx bun.Tx, r *transactionRow) (first bool, err error) {
	return addToTotalsOf(ctx, tx, r, ledger.Types)
}

// addToTotalsOf is addToTotals writing the counts of types alone (a
// version that knew no others wrote those: tests of upgrades).
func addToTotalsOf(ctx context.Context, tx bun.Tx, r *transactionRow, types []string) (first bool, err error) {
	one := payerTotalRow{
		ProjectID:        r.ProjectID,
		Payer:            r.Payer,
		Type:             r.Type,
		GrossRebate:      r.GrossRebate,
		NetRebate:        r.NetRebate,
		TransactionCount: 1,
		DonationAmount:   r.DonationAmount,
		CommunityAmount:  r.ServiceFee,
	}
	if c := one.countOf(r.Type); c != nil {
		*c = 1
	}
	if r.DonationAmount > 0 {
		one.DonationCount = 1
	}
	all := one
	all.Type = ""
	rows := []payerTotalRow{one, all}
	q := tx.NewInsert().Model(&rows).On("CONFLICT (project_id, payer, type) DO UPDATE")
	for _, t := range ledger.Types {
		if !slices.Contains(types, t) {
			q = q.ExcludeColumn(typeCountColumn(t))
		}
	}
	cols := []string{"gross_rebate", "net_rebate", "transaction_count", "donation_amount", "donation_count", "community_amount"}
	for _, t := range types {
		cols = append(cols, typeCountColumn(t))
	}
	for _, c := range cols {
		q = q.Set("? = ?TableAlias.? + EXCLUDED.?", bun.Ident(c), bun.Ident(c), bun.Ident(c))
	}
	var counts []struct {
		Type             string `bun:"type"`
		TransactionCount int64  `bun:"transaction_count"`
	}
	if _, err := q.Returning("type, transaction_count").Exec(ctx, &counts); err != nil {
		return false, fmt.Errorf("add to payer totals: %w", err)
	}
	for _, c := range counts {
		if c.Type == "" {
			first = c.TransactionCount == 1
		}
	}
	return first, nil
}
