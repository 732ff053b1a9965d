package ledger

import "time"

// DailyTotal is one UTC day of a project's confirmed entries, by
// confirmation time: what the console's chart draws.
type DailyTotal struct {
	// Day is midnight UTC.
	Day              time.Time
	GrossRebate      int64
	TransactionCount int64
}
