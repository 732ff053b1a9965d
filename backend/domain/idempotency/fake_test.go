package idempotency

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// memStore is Store in memory, with the semantics storage implements
// (storage's tests hold it to them on SQLite and Postgres). inFlight, when
// set, receives each in-flight record ClaimKey returns.
type memStore struct {
	mu       sync.Mutex
	recs     map[string]Record
	inFlight chan Record
	claims   int
}

func newMemStore() *memStore { return &memStore{recs: map[string]Record{}} }

func (m *memStore) id(project string, hash []byte) string { return project + "/" + string(hash) }

func (m *memStore) ClaimKey(_ context.Context, rec Record, now time.Time) (Record, bool, error) {
	m.mu.Lock()
	id := m.id(rec.ProjectID, rec.KeyHash)
	prior, ok := m.recs[id]
	live := ok && now.Sub(prior.CreatedAt) < TTL && (prior.Done || prior.LeaseUntil.After(now))
	if live {
		m.mu.Unlock()
		if !prior.Done && m.inFlight != nil {
			select { // the first look is enough for a test
			case m.inFlight <- prior:
			default:
			}
		}
		return prior, false, nil
	}
	m.recs[id] = rec
	m.claims++
	m.mu.Unlock()
	return Record{}, true, nil
}

func (m *memStore) CompleteKey(_ context.Context, project string, hash []byte, token string, a Answer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.id(project, hash)
	if r, ok := m.recs[id]; ok && r.Token == token && !r.Done {
		r.Done, r.Answer = true, a
		m.recs[id] = r
	}
	return nil
}

func (m *memStore) ReleaseKey(_ context.Context, project string, hash []byte, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.id(project, hash)
	if r, ok := m.recs[id]; ok && r.Token == token && !r.Done {
		delete(m.recs, id)
	}
	return nil
}

func (m *memStore) KeyRecord(_ context.Context, project string, hash []byte) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[m.id(project, hash)]
	return r, ok, nil
}

var _ Store = (*memStore)(nil)

func answerOf(s string) Answer { return Answer{Body: []byte(s)} }

func sameAnswer(a, b Answer) bool {
	return a.Code == b.Code && bytes.Equal(a.Body, b.Body) && a.Message == b.Message && a.Param == b.Param
}
