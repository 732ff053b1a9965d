package auth

import (
	"context"
	"time"

	"github.com/reclaim-sol/reclaim/backend/project"
)

// KeyCreator stores new API keys.
type KeyCreator interface {
	CreateAPIKey(ctx context.Context, k project.APIKey) (project.APIKey, error)
}

// IssueAPIKey creates an API key named name for projectID, stores only its
// keyed hash under h, and returns the key (to be shown once) with the stored
// record. The command line and the console both issue keys through it.
func IssueAPIKey(ctx context.Context, store KeyCreator, h *Hasher, projectID, name string, now time.Time) (string, project.APIKey, error) {
	key, prefix, err := NewAPIKey()
	if err != nil {
		return "", project.APIKey{}, err
	}
	k, err := store.CreateAPIKey(ctx, project.APIKey{
		ProjectID: projectID, Name: name, Prefix: prefix, Hash: h.Hash(key), CreatedAt: now.UTC(),
	})
	if err != nil {
		return "", project.APIKey{}, err
	}
	return key, k, nil
}

// Mint returns a fresh API key, its display prefix and its keyed hash: the
// key is shown once, only the hash is stored (project.Service issues keys
// through it).
func (h *Hasher) Mint() (key, prefix string, hash []byte, err error) {
	key, prefix, err = NewAPIKey()
	if err != nil {
		return "", "", nil, err
	}
	return key, prefix, h.Hash(key), nil
}
