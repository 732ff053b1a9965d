package relay

import "time"

// SetStatusPoll sets how often r's waiting status requests read the ledger.
func SetStatusPoll(r *Relay, d time.Duration) { r.statusPoll = d }
