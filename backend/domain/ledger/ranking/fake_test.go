package ranking

import (
	"context"
	"sync"
)

// fakeSource is a hand-written Source: each project's confirmed rows, its
// version (the highest stamp, unless set) and its count of rows (theirs,
// unless set), read as storage reads them: the rows stamped after since.
type fakeSource struct {
	mu       sync.Mutex
	projects map[string]*fakeProject
	reads    int
	// err, when set, is what every read answers.
	err error
	// started, when not nil, receives once per read as it starts; hold,
	// when not nil, is closed to let reads go on (or the read's context
	// ends).
	started chan struct{}
	hold    chan struct{}
	// resend, when set, sends every row whatever since is: a source that
	// sends again rows the ranking counted.
	resend bool
}

type fakeProject struct {
	rows           []fakeRow
	version, count int64
	// miscount is added to the count the totals report (a version of the
	// service that confirmed rows without counting them).
	miscount int64
}

type fakeRow struct {
	payer, typ       string
	at, gross, stamp int64
}

func newFakeSource() *fakeSource {
	return &fakeSource{projects: map[string]*fakeProject{}}
}

// add confirms rows in projectID under a new version, and returns it.
func (s *fakeSource) add(projectID string, rows ...fakeRow) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.projects[projectID]
	if p == nil {
		p = &fakeProject{}
		s.projects[projectID] = p
	}
	p.version++
	for _, r := range rows {
		r.stamp = p.version
		p.rows = append(p.rows, r)
		p.count++
	}
	return p.version
}

// set changes what the source does under its lock.
func (s *fakeSource) set(f func(s *fakeSource)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *fakeSource) readCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

func (s *fakeSource) Read(ctx context.Context, projectID string, since int64,
	each func(payer, typ string, at, gross, stamp int64) error, totals func(version, count int64),
) error {
	s.mu.Lock()
	s.reads++
	started, hold := s.started, s.hold
	s.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	p := s.projects[projectID]
	if p == nil {
		p = &fakeProject{}
	}
	for _, r := range p.rows {
		if since < 0 || r.stamp > since || s.resend {
			if err := each(r.payer, r.typ, r.at, r.gross, r.stamp); err != nil {
				return err
			}
		}
	}
	totals(p.version, p.count+p.miscount)
	return nil
}
