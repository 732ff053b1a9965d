package auth_test

import (
	"context"
	"sync"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// keyStore is a hand-written fake of auth.Store and auth.Toucher: it holds
// API keys by id and answers by hash as storage does (the row whose hash is
// the one asked), unless lookup is set; err, when set, is what every read
// answers; each touch is sent on touched, when not nil, after it landed.
type keyStore struct {
	mu      sync.Mutex
	keys    map[string]project.APIKey
	err     error
	lookup  func(hash []byte) (project.APIKey, error)
	byHash  int
	touched chan touch
}

// touch is one call of TouchAPIKeyUsed.
type touch struct {
	id string
	at time.Time
}

func newKeyStore(keys ...project.APIKey) *keyStore {
	s := &keyStore{keys: map[string]project.APIKey{}}
	for _, k := range keys {
		s.keys[k.ID] = k
	}
	return s
}

func (s *keyStore) APIKeyByHash(_ context.Context, hash []byte) (project.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byHash++
	if s.err != nil {
		return project.APIKey{}, s.err
	}
	if s.lookup != nil {
		return s.lookup(hash)
	}
	for _, k := range s.keys {
		if string(k.Hash) == string(hash) {
			return k, nil
		}
	}
	return project.APIKey{}, project.ErrNotFound
}

func (s *keyStore) APIKeyByID(_ context.Context, id string) (project.APIKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return project.APIKey{}, s.err
	}
	k, ok := s.keys[id]
	if !ok {
		return k, project.ErrNotFound
	}
	return k, nil
}

func (s *keyStore) TouchAPIKeyUsed(_ context.Context, id string, at time.Time) error {
	s.mu.Lock()
	k := s.keys[id]
	k.LastUsedAt = &at
	s.keys[id] = k
	ch := s.touched
	s.mu.Unlock()
	if ch != nil {
		ch <- touch{id, at}
	}
	return nil
}

// hashReads is how many times a key was looked up by its hash.
func (s *keyStore) hashReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byHash
}

// set replaces what the store holds for k.ID.
func (s *keyStore) set(k project.APIKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[k.ID] = k
}

// fail makes every read answer err.
func (s *keyStore) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}
