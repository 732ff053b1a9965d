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

// applyStorage sets store's ranking bounds from s, and logs what s holds
// that is deprecated.
func applyStorage(store *storage.Store, s config.Storage, log *slog.Logger) {
	store.SetRankingBudget(s.RankingMaxBytes)
	store.SetRankingLimit(s.RankingMaxRows)
	if log != nil {
		for _, d := range s.Deprecated() {
			log.Warn(d)
		}
	}
}
