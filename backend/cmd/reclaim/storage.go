package main

import (
	"flag"
	"log/slog"
	"strconv"
	"time"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/storage"
)

// storageFlags binds the storage settings to serve's flags.
func storageFlags(fs *flag.FlagSet, s *config.Storage) {
	fs.Func("ranking-max-bytes", "memory the in-memory rankings of ranged leaderboards hold together, such as 512MiB; 0: rank in SQL (RECLAIM_RANKING_MAX_BYTES; default "+
		strconv.FormatInt(s.RankingMaxBytes>>20, 10)+"MiB)", func(v string) error {
		n, err := config.ParseBytes(v)
		s.RankingMaxBytes = n
		return err
	})
	fs.IntVar(&s.RankingMaxRows, "ranking-max-rows", s.RankingMaxRows, "deprecated: rows the in-memory rankings hold, on top of -ranking-max-bytes; -1: no bound, 0: rank in SQL (RECLAIM_RANKING_MAX_ROWS)")
	fs.Func("attempts-retention", "how long the submission log keeps a line: days (30d) or a duration (720h); 0 keeps every line (RECLAIM_ATTEMPTS_RETENTION; default "+
		days(s.AttemptsRetention)+")", func(v string) error {
		d, err := config.ParseRetention(v)
		s.AttemptsRetention = d
		return err
	})
	fs.BoolVar(&s.SkipMigrations, "skip-migrations", s.SkipMigrations, "check the schema instead of migrating it: refuse to start while a migration is not applied (reclaim migrate applies them) (RECLAIM_SKIP_MIGRATIONS)")
}

func days(d time.Duration) string {
	return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
}

// rooms are the storage rooms the commands use, all built from one
// storage.DB (openRooms).
type rooms struct {
	ledger      *storage.Ledger
	rankings    *storage.Rankings
	webhooks    *storage.Webhooks
	projects    *storage.Projects
	console     *storage.Console
	idempotency *storage.IdempotencyKeys
}

// openRooms builds db's rooms: the rankings bounded by s, stats kept for
// statsTTL, and nudge rung after a transaction that wrote webhook
// deliveries commits. It logs what s holds that is deprecated.
func openRooms(db *storage.DB, s config.Storage, nudge func(), log *slog.Logger) rooms {
	if log != nil {
		for _, d := range s.Deprecated() {
			log.Warn(d)
		}
	}
	return rooms{
		ledger: storage.NewLedger(db, storage.LedgerOptions{Notify: nudge}),
		rankings: storage.NewRankings(db, storage.RankingsOptions{
			Budget:   &storage.RankingBudget{Bytes: s.RankingMaxBytes, Rows: s.RankingMaxRows},
			StatsTTL: statsTTL, Now: time.Now,
		}),
		webhooks:    storage.NewWebhooks(db, storage.WebhooksOptions{Notify: nudge}),
		projects:    storage.NewProjects(db),
		console:     storage.NewConsole(db),
		idempotency: storage.NewIdempotencyKeys(db),
	}
}
