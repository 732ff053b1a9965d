// Package wallet is the wallet service the API offers, whatever face calls
// it: list a wallet's items (paged, or streamed in chunks), build
// transactions for a selection (checked against the chain now, with a
// signed submission ticket each), and submit the wallet-signed
// transactions. The Connect/REST adapter (backend/server) only converts to
// and from the wire; every rule lives here or in the packages it calls:
// assets (discovery), txbuild (building), ticket (tickets), relay (submit).
// Requests take typed values: the face decodes each address once as it
// converts the request (ParseAddress, ParseSigner, ParseStream,
// SelectionOf), with this package's messages, and errors about an item name
// it by its position (items[i]).
//
// Errors are faults (backend/pkg/fault): invalid is the caller's to fix and
// names the field (Param); unavailable is a dependency (cluster, database,
// indexer) that failed or did not answer; project.ErrNotFound a caller whose
// project is gone. Anything else is a bug.
package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/engine/txbuild"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
	"github.com/reclaim-sol/reclaim/backend/service/relay"
)

// The service's parts are small interfaces, named for what it asks of
// each; cmd/reclaim passes the real ones (named beside each), the tests
// fakes.

// Discoverer finds a wallet's items, whole or in chunks as they are found,
// and reads selected items as the chain holds them now (*assets.Discoverer).
type Discoverer interface {
	List(ctx context.Context, wallet solana.PublicKey) (assets.Listing, error)
	Stream(ctx context.Context, wallet solana.PublicKey, opts assets.StreamOptions, emit func(chunk []assets.Item, last bool) error) error
	// ResolveAs reads the addresses as the types they were selected as
	// (a token account selected as excess_rent resolves as its excess).
	ResolveAs(ctx context.Context, wallet solana.PublicKey, addresses []solana.PublicKey, types []assets.ItemType) ([]assets.Item, error)
}

// Builder builds the transactions of a selection (*txbuild.Builder):
// Prefetch starts the reads that do not depend on the items, BuildWith
// builds once the items are read, BurnsCNFTs says whether it can burn
// compressed NFTs.
type Builder interface {
	Prefetch(ctx context.Context, p txbuild.Params, written []solana.PublicKey) *txbuild.Prefetch
	BuildWith(ctx context.Context, p txbuild.Params, pf *txbuild.Prefetch) (txbuild.Result, error)
	BurnsCNFTs() bool
}

// Tickets signs a built transaction's submission ticket (*ticket.Issuer).
type Tickets interface {
	Issue(c ticket.Claims, now time.Time, ttl time.Duration) (string, ticket.Claims, error)
}

// Relay checks signed transactions against their tickets and sends them
// (*relay.Relay).
type Relay interface {
	Submit(ctx context.Context, projectID string, wallet solana.PublicKey, entries []relay.Signed) ([]relay.Result, error)
	SubmissionsUntil(ctx context.Context, projectID, wallet string, sigs []string, wait time.Duration, final bool) ([]relay.Submission, error)
}

// Projects reads the caller's project (its donation wallet; storage.Projects).
type Projects interface {
	GetProject(ctx context.Context, id string) (project.Project, error)
}

// Deps are the service's parts and settings.
type Deps struct {
	Discoverer Discoverer
	Builder    Builder
	Tickets    Tickets
	Relay      Relay
	Projects   Projects
	// ServiceFeeBPS and Treasury: the operator's fee and where it goes.
	ServiceFeeBPS int
	Treasury      *solana.PublicKey
	// HeadroomBytes are kept free in each transaction for wallet guards.
	HeadroomBytes int
	// TicketTTL is the longest life of a ticket (at most ticket.MaxTTL).
	TicketTTL time.Duration
	// RPCTimeout bounds a cluster call; a listing, and each step of a
	// stream, get twice as long.
	RPCTimeout time.Duration
	// RPCInFlight bounds the cluster calls one request has in flight
	// (rpclimit.Default when 0): discovery and building share it.
	RPCInFlight int
	// DBTimeout bounds a database read.
	DBTimeout time.Duration
	// BuildTimeout bounds a whole build (one simulation per transaction).
	BuildTimeout time.Duration
	Now          func() time.Time
}

// Service is the wallet service.
type Service struct{ d Deps }

// New returns the service; zero timeouts get defaults.
func New(d Deps) *Service {
	if d.RPCTimeout == 0 {
		d.RPCTimeout = 3 * time.Second
	}
	if d.DBTimeout == 0 {
		d.DBTimeout = 5 * time.Second
	}
	if d.BuildTimeout == 0 {
		d.BuildTimeout = 20 * time.Second
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.RPCInFlight == 0 {
		d.RPCInFlight = rpclimit.Default
	}
	return &Service{d: d}
}

// limited gives the request of ctx its own limit of cluster calls in flight.
func (s *Service) limited(ctx context.Context) context.Context {
	return rpclimit.With(ctx, rpclimit.New(s.d.RPCInFlight))
}

// invalidf is an invalid fault naming field, its message starting with the
// field's name.
func invalidf(field, format string, args ...any) error {
	return fault.InvalidField(field, format, args...)
}

// clusterError reports a cluster that failed or did not answer.
func (s *Service) clusterError(err error) error {
	return fault.Unavailable(fmt.Sprintf("the Solana cluster did not answer within %s or failed; retry shortly", s.d.RPCTimeout), err)
}

// project reads the caller's project; a database that does not answer is
// unavailable, a project that is gone is project.ErrNotFound.
func (s *Service) project(ctx context.Context, id string) (project.Project, error) {
	ctx, cancel := context.WithTimeout(ctx, s.d.DBTimeout)
	defer cancel()
	p, err := s.d.Projects.GetProject(ctx, id)
	switch {
	case err == nil:
		return p, nil
	case errors.Is(err, project.ErrNotFound):
		return p, fmt.Errorf("project %s: %w", id, err)
	}
	return p, fault.Unavailable("the database did not answer in time; retry shortly", err)
}
