package webhook

// Share is how the delivery loop divides its attempts between tenants.
// A worker leases a run: up to Run of one endpoint's oldest due
// deliveries, which it sends one after the other. An endpoint has at most
// PerEndpoint runs under way and a project PerProject, counted over every
// instance's live leases, so an endpoint never has more than PerEndpoint
// attempts in flight; a lease starts runs for the projects with the fewest
// under way first, and in a project for the endpoints with the oldest
// deliveries. A project's hanging receivers hold at most PerProject
// workers, and another project's delivery is next in line.
type Share struct {
	// Limit is the most runs one lease starts (the free workers).
	Limit int
	// PerEndpoint and PerProject bound the runs under way.
	PerEndpoint, PerProject int
	// Run is the most deliveries a run takes.
	Run int
}

// Default shares: two runs per endpoint (a hanging attempt does not stop
// the next, and an endpoint's deliveries stay nearly in order), eight per
// project, sixteen deliveries a run (one lease per sixteen deliveries to a
// receiver that answers).
const (
	DefaultPerEndpoint = 2
	DefaultPerProject  = 8
	DefaultRun         = 16
)
