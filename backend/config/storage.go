package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Storage are the settings of what the service keeps: the memory of its
// in-memory rankings, and how long its submission log keeps a line.
type Storage struct {
	// RankingMaxBytes bounds the memory this process's in-memory rankings
	// of ranged leaderboards hold together, their rows, checkpoints,
	// wallets, merges and pages under way included; a project that would
	// take them over it is ranked in SQL. Zero ranks every project in SQL.
	RankingMaxBytes int64
	// RankingMaxRows, deprecated, bounds their rows too when it is not -1
	// (unset); 0 ranks every project in SQL, as it always did.
	RankingMaxRows int
	// AttemptsRetention is how long the submission log keeps a line: the
	// confirmation tracker prunes older ones. Zero keeps every line.
	AttemptsRetention time.Duration
	// SkipMigrations makes serve check the schema instead of migrating it:
	// it refuses to start while a migration it needs is not applied, so
	// that one job (`reclaim migrate`, the Helm chart's hook) migrates per
	// release rather than every instance as it starts.
	SkipMigrations bool
}

func defaultStorage() Storage {
	return Storage{RankingMaxBytes: 512 << 20, RankingMaxRows: -1, AttemptsRetention: 30 * 24 * time.Hour}
}

// load reads the storage settings from getenv; it returns what is wrong.
func (s *Storage) load(getenv func(string) string) []string {
	var errs []string
	if v := strings.TrimSpace(getenv("RECLAIM_RANKING_MAX_BYTES")); v != "" {
		n, err := ParseBytes(v)
		if err != nil {
			errs = append(errs, "RECLAIM_RANKING_MAX_BYTES="+strconv.Quote(v)+": "+err.Error())
		}
		s.RankingMaxBytes = n
	}
	if v := strings.TrimSpace(getenv("RECLAIM_RANKING_MAX_ROWS")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<40 {
			errs = append(errs, fmt.Sprintf("RECLAIM_RANKING_MAX_ROWS=%q: want a whole number from 0 to %d", v, 1<<40))
		}
		s.RankingMaxRows = n
	}
	if v := strings.TrimSpace(getenv("RECLAIM_ATTEMPTS_RETENTION")); v != "" {
		d, err := ParseRetention(v)
		if err != nil {
			errs = append(errs, "RECLAIM_ATTEMPTS_RETENTION="+strconv.Quote(v)+": "+err.Error())
		}
		s.AttemptsRetention = d
	}
	if v := strings.TrimSpace(getenv("RECLAIM_SKIP_MIGRATIONS")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("RECLAIM_SKIP_MIGRATIONS=%q: want true or false", v))
		}
		s.SkipMigrations = b
	}
	return errs
}

// Deprecated names what is set that should not be, and what replaces it.
func (s Storage) Deprecated() []string {
	if s.RankingMaxRows < 0 {
		return nil
	}
	return []string{"RECLAIM_RANKING_MAX_ROWS (-ranking-max-rows) is deprecated: it counts rows, not the memory they take " +
		"(16 to over 100 bytes a row, by how many wallets they have); RECLAIM_RANKING_MAX_BYTES bounds the memory, and both apply while it is set"}
}

// byteUnits are the suffixes ParseBytes takes, longest first.
var byteUnits = []struct {
	suffix string
	n      int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}

// ParseBytes reads a size: a whole number of bytes, or of KiB, MiB or GiB
// (K, M, G: the same), such as 536870912, 512MiB or 2G.
func ParseBytes(v string) (int64, error) {
	num, unit := strings.TrimSpace(v), int64(1)
	for _, u := range byteUnits {
		if s, ok := strings.CutSuffix(num, u.suffix); ok {
			num, unit = strings.TrimSpace(s), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > 1<<50/unit {
		return 0, fmt.Errorf("want a size in bytes, such as 536870912, 512MiB or 2GiB")
	}
	return n * unit, nil
}

// ParseRetention reads how long to keep something: a number of days (30d),
// or a Go duration of at least an hour (720h); 0 keeps it forever.
func ParseRetention(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "0" {
		return 0, nil
	}
	const want = "want a number of days (30d), a duration of at least an hour (720h), or 0 to keep every line"
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 1 || n > 36_500 {
			return 0, fmt.Errorf("%s", want)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < time.Hour || d > 36_500*24*time.Hour {
		return 0, fmt.Errorf("%s", want)
	}
	return d, nil
}
