package webhook

// Share is how the delivery loop divides its attempts between tenants:
// what one lease may take and how many attempts each endpoint and each
// project may have in flight at once, counted over every instance's live
// leases. A lease takes, among the deliveries due, those of the endpoints
// and projects with the fewest attempts in flight first, each endpoint's
// oldest first: a project's hanging receivers hold at most PerProject
// attempts, each endpoint at most PerEndpoint, and another project's
// delivery is next in line.
type Share struct {
	// Limit is the most deliveries one lease takes.
	Limit int
	// PerEndpoint and PerProject bound the attempts in flight.
	PerEndpoint, PerProject int
}

// Default shares: two attempts in flight per endpoint (a hanging attempt
// does not stop the next, and an endpoint's deliveries stay nearly in
// order), eight per project.
const (
	DefaultPerEndpoint = 2
	DefaultPerProject  = 8
)
