package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// setLanded has q write what the chain did for an entry, figures and slot,
// and cap its promised rent at the gross that came back (NULL stays).
func setLanded(q *bun.UpdateQuery, landed ledger.Figures, slot int64) *bun.UpdateQuery {
	gross := max(landed.GrossRebate, 0)
	return q.Set("gross_rebate = ?", landed.GrossRebate).
		Set("net_rebate = ?", landed.NetRebate).
		Set("donation_amount = ?", landed.DonationAmount).
		Set("network_fee = ?", landed.NetworkFee).
		Set("service_fee = ?", landed.ServiceFee).
		Set("fees = ?", landed.Fees()).
		Set("slot = ?", slot).
		Set("rent_rebate = CASE WHEN rent_rebate > ? THEN ? ELSE rent_rebate END", gross, gross)
}

// LandEntry marks the submitted entry of a ticket landed at at: the
// tracker found its transaction at confirmed commitment, in slot, with the
// figures read there. The entry stays submitted (in flight, followed until
// finalized, counted nowhere); the submission.landed event is written in
// the same transaction. It reports whether the entry changed: one already
// landed, or no longer submitted, is left alone.
func (s *Ledger) LandEntry(ctx context.Context, jti string, landed ledger.Figures, slot int64, at time.Time) (bool, error) {
	var events int64
	changed := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []transactionRow
		q := tx.NewUpdate().Model(&rows).
			Set("landed_at = ?", max(at.UnixMilli(), 1)).
			Where("ticket_jti = ?", jti).
			Where("status = ?", ledger.StatusSubmitted).
			Where("landed_at = 0").
			Returning("*")
		if err := setLanded(q, landed, slot).Scan(ctx); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		changed = true
		var err error
		events, err = s.enqueueEvent(ctx, tx, &rows[0], at)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("mark ticket %s landed: %w", jti, s.writeErr(err))
	}
	if events > 0 {
		s.notifyOutbox()
	}
	return changed, nil
}

// UnlandEntry takes back the landing of the submitted entry of a ticket,
// whose transaction the cluster no longer has (a fork dropped the block
// that held it): its figures are its promise again, its slot 0, and the
// tracker follows it as before it landed. It reports whether the entry
// changed.
func (s *Ledger) UnlandEntry(ctx context.Context, jti string) (bool, error) {
	q := s.db.NewUpdate().Model((*transactionRow)(nil)).
		Set("landed_at = 0").
		Where("ticket_jti = ?", jti).
		Where("status = ?", ledger.StatusSubmitted).
		Where("landed_at <> 0")
	for _, c := range promisedColumns {
		q = q.Set(fmt.Sprintf("%s = promised_%s", c, c))
	}
	res, err := q.Set("fees = promised_network_fee + promised_service_fee").Set("slot = 0").Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("take back the landing of ticket %s: %w", jti, s.writeErr(err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
