package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
)

// ClaimTicket records e as sending: the ticket is claimed and its
// transaction about to be relayed. The database decides between concurrent
// claims of one ticket, on every instance: all but one get
// ledger.ErrDuplicate.
func (s *Ledger) ClaimTicket(ctx context.Context, e ledger.Entry) error {
	return s.insertWithStatus(ctx, e, ledger.StatusSending)
}

// insertWithStatus inserts e with a status InsertEntry does not accept from
// callers (sending).
func (s *Ledger) insertWithStatus(ctx context.Context, e ledger.Entry, status ledger.Status) error {
	if e.TicketJTI == "" || !ledger.ValidType(e.Type) {
		return fmt.Errorf("claim ticket: incomplete entry")
	}
	e.ID, e.ConfirmedAt, e.Error = "", nil, ""
	row := newTransactionRow(e, status)
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("claim ticket %s: %w", e.TicketJTI, ledger.ErrDuplicate)
		}
		return fmt.Errorf("claim ticket: %w", s.writeErr(err))
	}
	s.health.wrote()
	return nil
}

// EntryBySignature returns the entry that holds a transaction signature
// (relayed, or confirmed), else one that reported it, or
// ledger.ErrNotFound.
func (s *Ledger) EntryBySignature(ctx context.Context, sig string) (ledger.Entry, error) {
	var row transactionRow
	err := s.db.NewSelect().Model(&row).Where("signature = ?", sig).
		OrderExpr("CASE WHEN reported_ticket IS NULL OR status = ? THEN 0 ELSE 1 END, created_at", ledger.StatusConfirmed).
		Limit(1).Scan(ctx)
	if err != nil {
		return ledger.Entry{}, notFound(err, ledger.ErrNotFound, "ledger entry for signature %s", sig)
	}
	return row.entry(), nil
}

// MarkSubmitted moves a claimed entry from sending to submitted once the
// cluster accepted its transaction. It reports whether the entry changed.
func (s *Ledger) MarkSubmitted(ctx context.Context, jti string) (bool, error) {
	res, err := s.db.NewUpdate().Model((*transactionRow)(nil)).
		Set("status = ?", ledger.StatusSubmitted).
		Where("ticket_jti = ?", jti).
		Where("status = ?", ledger.StatusSending).
		Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("mark ticket %s submitted: %w", jti, s.writeErr(err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReleaseClaim removes a claim whose transaction the cluster refused, so the
// ticket was not consumed and may be submitted again.
func (s *Ledger) ReleaseClaim(ctx context.Context, jti string) error {
	_, err := s.db.NewDelete().Model((*transactionRow)(nil)).
		Where("ticket_jti = ?", jti).
		Where("status = ?", ledger.StatusSending).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("release ticket %s: %w", jti, s.writeErr(err))
	}
	return nil
}

// InFlight returns up to limit entries still sending or submitted, oldest
// first: what the confirmation tracker follows.
func (s *Ledger) InFlight(ctx context.Context, limit int) ([]ledger.Entry, error) {
	var rows []transactionRow
	err := s.db.NewSelect().Model(&rows).
		Where("status IN (?, ?)", ledger.StatusSending, ledger.StatusSubmitted).
		OrderExpr("created_at ASC").
		Limit(limit).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("entries in flight: %w", err)
	}
	return entries(rows), nil
}

func entries(rows []transactionRow) []ledger.Entry {
	out := make([]ledger.Entry, len(rows))
	for i := range rows {
		out[i] = rows[i].entry()
	}
	return out
}

// LeaseInFlight leases to owner, until until, up to limit entries still
// sending or submitted whose lease is free at now (never taken, released,
// or run out), and returns them oldest first: what one pass of the
// confirmation tracker follows. The database decides between trackers on
// every instance, so an entry is leased to one at a time: on Postgres the
// rows are picked FOR UPDATE SKIP LOCKED, on SQLite the one statement runs
// under the database's write lock. The least recently leased come first, so
// a backlog larger than limit is followed in turn.
func (s *Ledger) LeaseInFlight(ctx context.Context, owner string, limit int, now, until time.Time) ([]ledger.Entry, error) {
	pick := s.db.NewSelect().Model((*transactionRow)(nil)).Column("id").
		Where("status IN (?, ?)", ledger.StatusSending, ledger.StatusSubmitted).
		Where("lease_until <= ?", now.UnixMilli()).
		OrderExpr("lease_until ASC, created_at ASC").
		Limit(limit)
	if s.postgres {
		pick = pick.For("UPDATE SKIP LOCKED")
	}
	var ids []string
	err := s.db.NewUpdate().Model((*transactionRow)(nil)).
		Set("lease_owner = ?", owner).
		Set("lease_until = ?", until.UnixMilli()).
		Where("id IN (?)", pick).
		Returning("id").
		Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("lease entries in flight: %w", s.writeErr(err))
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []transactionRow
	err = s.db.NewSelect().Model(&rows).
		Where("id IN (?)", bun.List(ids)).
		Where("lease_owner = ?", owner).
		OrderExpr("created_at ASC, id ASC").
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("entries leased: %w", err)
	}
	return entries(rows), nil
}

// ReleaseLeases frees the entries owner holds, as leased last at now, so
// the next pass, on any instance, may follow them at once.
func (s *Ledger) ReleaseLeases(ctx context.Context, owner string, now time.Time) error {
	_, err := s.db.NewUpdate().Model((*transactionRow)(nil)).
		Set("lease_owner = ''").
		Set("lease_until = ?", now.UnixMilli()).
		Where("lease_owner = ?", owner).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("release leases: %w", s.writeErr(err))
	}
	return nil
}

// passRow is the last claimed pass of a periodic job shared by instances.
type passRow struct {
	bun.BaseModel `bun:"table:tracker_passes"`

	Name  string `bun:"name,pk"`
	Slot  int64  `bun:"slot,notnull"`
	Owner string `bun:"owner,notnull"`
}

// ClaimPass claims pass slot of the periodic job name for owner and reports
// whether this caller won it: the first claim of a slot later than the last
// one claimed wins, on every instance, so each slot runs once.
func (s *Ledger) ClaimPass(ctx context.Context, name, owner string, slot int64) (bool, error) {
	row := passRow{Name: name, Slot: slot, Owner: owner}
	res, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (name) DO UPDATE").
		Set("slot = EXCLUDED.slot").
		Set("owner = EXCLUDED.owner").
		Where("?TableAlias.slot < EXCLUDED.slot").
		Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("claim pass %d of %s: %w", slot, name, s.writeErr(err))
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// attemptRow is a line of the submission log (submission_attempts).
type attemptRow struct {
	bun.BaseModel `bun:"table:submission_attempts"`

	ID        string    `bun:"id,pk"`
	ProjectID string    `bun:"project_id,notnull"`
	Payer     string    `bun:"payer,notnull"`
	TicketJTI string    `bun:"ticket_jti,notnull"`
	Signature string    `bun:"signature,notnull"`
	Status    string    `bun:"status,notnull"`
	Code      string    `bun:"code,notnull"`
	Message   string    `bun:"message,notnull"`
	Tickets   int       `bun:"tickets,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// LogAttempt records one submission result, or one line for several
// tickets (a.Tickets; 0 counts as 1).
func (s *Ledger) LogAttempt(ctx context.Context, a ledger.Attempt) error {
	row := attemptRow{
		ID: NewID("att"), ProjectID: a.ProjectID, Payer: a.Payer, TicketJTI: a.TicketJTI, Signature: a.Signature,
		Status: a.Status, Code: a.Code, Message: a.Message, Tickets: max(a.Tickets, 1), CreatedAt: utc(a.CreatedAt),
	}
	if a.CreatedAt.IsZero() {
		row.CreatedAt = now()
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("log submission attempt: %w", s.writeErr(err))
	}
	s.health.wrote()
	return nil
}

// PruneAttempts deletes up to limit lines of the submission log written
// before before, oldest first, in one statement, and returns how many it
// deleted: fewer than limit when no older line is left.
func (s *Ledger) PruneAttempts(ctx context.Context, before time.Time, limit int) (int, error) {
	oldest := s.db.NewSelect().Model((*attemptRow)(nil)).Column("id").
		Where("created_at < ?", utc(before)).
		OrderExpr("created_at ASC").
		Limit(limit)
	res, err := s.db.NewDelete().Model((*attemptRow)(nil)).Where("id IN (?)", oldest).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("prune submission attempts: %w", s.writeErr(err))
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// Submissions returns the entries of project projectID paid by payer whose
// signature is one of sigs, in no particular order: a signature that is
// another wallet's or another project's is not among them.
func (s *Ledger) Submissions(ctx context.Context, projectID, payer string, sigs []string) ([]ledger.Entry, error) {
	if len(sigs) == 0 {
		return nil, nil
	}
	var rows []transactionRow
	err := s.db.NewSelect().Model(&rows).
		Where("signature IN (?)", bun.List(sigs)).
		Where("project_id = ?", projectID).
		Where("payer = ?", payer).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("submissions of %s: %w", payer, err)
	}
	return entries(rows), nil
}
