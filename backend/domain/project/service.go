package project

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Store keeps projects, their API keys and their browser origins
// (storage.Projects).
type Store interface {
	ProjectStore
	KeyStore
	OriginStore
	QuotaStore
}

// ProjectStore keeps projects. An unknown id gives ErrNotFound.
type ProjectStore interface {
	CreateProject(ctx context.Context, p Project) (Project, error)
	GetProject(ctx context.Context, id string) (Project, error)
	UpdateProject(ctx context.Context, id, name, donationWallet string) (Project, error)
}

// KeyStore keeps API keys. CreateAPIKey gives ErrNotFound for an unknown
// project; RevokeAPIKey keeps a revoked key's first RevokedAt.
type KeyStore interface {
	CreateAPIKey(ctx context.Context, k APIKey) (APIKey, error)
	APIKeyByID(ctx context.Context, id string) (APIKey, error)
	ListAPIKeys(ctx context.Context, projectID string) ([]APIKey, error)
	RevokeAPIKey(ctx context.Context, hash []byte, at time.Time) (APIKey, error)
}

// Minter makes API keys and computes their keyed hashes (auth.Hasher).
type Minter interface {
	// Mint returns a fresh key, its display prefix and its keyed hash.
	Mint() (key, prefix string, hash []byte, err error)
	// Hash returns the keyed hash of key.
	Hash(key string) []byte
}

// Service creates and changes projects, and issues and revokes their API
// keys. The command line calls it directly; the console calls it through the
// owner service, which checks the owner's role and writes the audit log.
type Service struct {
	store  Store
	minter Minter
	now    func() time.Time
}

// NewService returns a Service over store, minting keys with minter; now is
// the clock (time.Now when nil).
func NewService(store Store, minter Minter, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, minter: minter, now: now}
}

// Create stores a new project named name with the donation wallet ("" for
// none), after New's checks.
func (s *Service) Create(ctx context.Context, name, donationWallet string) (Project, error) {
	p, err := New(name, donationWallet, s.now())
	if err != nil {
		return Project{}, err
	}
	return s.store.CreateProject(ctx, p)
}

// Get returns the project with id, or ErrNotFound.
func (s *Service) Get(ctx context.Context, id string) (Project, error) {
	return s.store.GetProject(ctx, id)
}

// Update sets the name and donation wallet of project id, after New's checks.
func (s *Service) Update(ctx context.Context, id, name, donationWallet string) (Project, error) {
	p, err := New(name, donationWallet, s.now())
	if err != nil {
		return Project{}, err
	}
	return s.store.UpdateProject(ctx, id, p.Name, p.DonationWallet)
}

// Keys returns the keys of a project, revoked ones included, oldest first.
func (s *Service) Keys(ctx context.Context, projectID string) ([]APIKey, error) {
	return s.store.ListAPIKeys(ctx, projectID)
}

// Key returns key keyID of project projectID; a key of another project is
// ErrNotFound, as an unknown one is.
func (s *Service) Key(ctx context.Context, projectID, keyID string) (APIKey, error) {
	k, err := s.store.APIKeyByID(ctx, keyID)
	if err != nil {
		return APIKey{}, err
	}
	if k.ProjectID != projectID {
		return APIKey{}, fmt.Errorf("key %s of project %s: %w", keyID, projectID, ErrNotFound)
	}
	return k, nil
}

// CreateKey issues a key named name (trimmed, 1 to MaxNameLen characters)
// for project projectID. It returns the key, to be shown once, and the
// stored record, which holds only its keyed hash. An unknown project gives
// ErrNotFound.
func (s *Service) CreateKey(ctx context.Context, projectID, name string) (string, APIKey, error) {
	name = strings.TrimSpace(name)
	if err := ValidateName(name); err != nil {
		return "", APIKey{}, err
	}
	key, prefix, hash, err := s.minter.Mint()
	if err != nil {
		return "", APIKey{}, fmt.Errorf("mint api key: %w", err)
	}
	k, err := s.store.CreateAPIKey(ctx, APIKey{
		ProjectID: projectID, Name: name, Prefix: prefix, Hash: hash, CreatedAt: s.now().UTC(),
	})
	if err != nil {
		return "", APIKey{}, err
	}
	return key, k, nil
}

// Revoke revokes key keyID of project projectID and returns it, with
// whether this call revoked it (false when it was revoked already). A key of
// another project is ErrNotFound.
func (s *Service) Revoke(ctx context.Context, projectID, keyID string) (APIKey, bool, error) {
	k, err := s.Key(ctx, projectID, keyID)
	if err != nil || k.Revoked() {
		return k, false, err
	}
	k, err = s.revoke(ctx, k.Hash)
	return k, err == nil, err
}

// RevokeKey revokes the key whose value is key (as its holder has it) and
// returns it; an unknown key gives ErrNotFound. Revoking a revoked key
// changes nothing.
func (s *Service) RevokeKey(ctx context.Context, key string) (APIKey, error) {
	return s.revoke(ctx, s.minter.Hash(strings.TrimSpace(key)))
}

// revoke revokes the key with hash now: a revoked key authenticates nothing,
// and the sessions minted from it end within the authenticator's cache time.
func (s *Service) revoke(ctx context.Context, hash []byte) (APIKey, error) {
	return s.store.RevokeAPIKey(ctx, hash, s.now().UTC())
}
