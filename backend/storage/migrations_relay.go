package storage

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// attemptV3 is the submission log as of migration 20260521000003.
type attemptV3 struct {
	bun.BaseModel `bun:"table:submission_attempts"`

	ID        string    `bun:"id,pk"`
	ProjectID string    `bun:"project_id,notnull"`
	Payer     string    `bun:"payer,notnull"`
	TicketJTI string    `bun:"ticket_jti,notnull"`
	Signature string    `bun:"signature,notnull"`
	Status    string    `bun:"status,notnull"`
	Code      string    `bun:"code,notnull"`
	Message   string    `bun:"message,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// upRelay adds what submission and confirmation tracking need: the
// blockhash's last valid block height on each entry (to tell an expired
// transaction from a slow one), an index for the tracker's scan of entries
// still in flight, and the log of every submission result.
func upRelay(ctx context.Context, db bun.IDB) error {
	if _, err := db.NewAddColumn().Model((*transactionV1)(nil)).
		ColumnExpr("last_valid_block_height BIGINT NOT NULL DEFAULT 0").Exec(ctx); err != nil {
		return err
	}
	if _, err := db.NewCreateIndex().Model((*transactionV1)(nil)).IfNotExists().
		Index("reclaim_transactions_status_created_idx").Column("status", "created_at").Exec(ctx); err != nil {
		return err
	}
	if _, err := db.NewCreateTable().Model((*attemptV3)(nil)).IfNotExists().
		ForeignKey(`("project_id") REFERENCES "projects" ("id") ON DELETE CASCADE`).Exec(ctx); err != nil {
		return err
	}
	_, err := db.NewCreateIndex().Model((*attemptV3)(nil)).IfNotExists().
		Index("submission_attempts_project_created_idx").Column("project_id", "created_at").Exec(ctx)
	return err
}
