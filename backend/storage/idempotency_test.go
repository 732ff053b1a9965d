package storage_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/domain/idempotency"
	"github.com/reclaim-sol/reclaim/backend/storage/storagetest"
)

func TestIdempotencyKeys(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		now := whT0
		hash := idempotency.Hash(idempotency.Scope("key_1", ""), "k")
		rec := func(token string, at time.Time) idempotency.Record {
			return idempotency.Record{ProjectID: "prj_1", KeyHash: hash, Fingerprint: []byte("fp"), Token: token,
				CreatedAt: at, LeaseUntil: at.Add(time.Minute)}
		}
		if _, ok, err := s.ClaimKey(ctx, rec("t1", now), now); err != nil || !ok {
			t.Fatalf("first claim: %v %v", ok, err)
		}
		prior, ok, err := s.ClaimKey(ctx, rec("t2", now), now)
		if err != nil || ok || prior.Token != "t1" || prior.Done || !bytes.Equal(prior.Fingerprint, []byte("fp")) {
			t.Fatalf("second claim: %+v %v %v", prior, ok, err)
		}
		// Another project's key of the same hash is its own.
		other := rec("t3", now)
		other.ProjectID = "prj_2"
		if _, ok, err := s.ClaimKey(ctx, other, now); err != nil || !ok {
			t.Fatalf("other project: %v %v", ok, err)
		}
		// Only the claim's token completes it.
		answer := idempotency.Answer{Body: []byte{1, 2, 3}}
		if err := s.CompleteKey(ctx, "prj_1", hash, "t2", answer); err != nil {
			t.Fatal(err)
		}
		if r, _, _ := s.KeyRecord(ctx, "prj_1", hash); r.Done {
			t.Fatal("completed by another token")
		}
		if err := s.CompleteKey(ctx, "prj_1", hash, "t1", answer); err != nil {
			t.Fatal(err)
		}
		r, ok, err := s.KeyRecord(ctx, "prj_1", hash)
		if err != nil || !ok || !r.Done || !bytes.Equal(r.Answer.Body, answer.Body) || r.Answer.Code != 0 {
			t.Fatalf("record %+v %v %v", r, ok, err)
		}
		// A done record stands, past its lease, until TTL.
		late := now.Add(idempotency.TTL - time.Millisecond)
		if prior, ok, _ := s.ClaimKey(ctx, rec("t4", late), late); ok || !prior.Done {
			t.Fatalf("claimed over a done record: %+v", prior)
		}
		expired := now.Add(idempotency.TTL)
		if _, ok, _ := s.ClaimKey(ctx, rec("t5", expired), expired); !ok {
			t.Fatal("a record of TTL stands")
		}
		// An in-flight record whose lease ended is taken over; a released one
		// is gone.
		after := expired.Add(time.Minute)
		if _, ok, _ := s.ClaimKey(ctx, rec("t6", after), after); !ok {
			t.Fatal("an ended lease stands")
		}
		if err := s.ReleaseKey(ctx, "prj_1", hash, "t5"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.KeyRecord(ctx, "prj_1", hash); !ok {
			t.Fatal("released by an old token")
		}
		if err := s.ReleaseKey(ctx, "prj_1", hash, "t6"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.KeyRecord(ctx, "prj_1", hash); ok {
			t.Fatal("not released")
		}
		// An error answer keeps its code, message and field.
		if _, ok, _ := s.ClaimKey(ctx, rec("t7", after), after); !ok {
			t.Fatal("claim after release")
		}
		refusal := idempotency.Answer{Code: 3, Message: "items: empty", Param: "items"}
		if err := s.CompleteKey(ctx, "prj_1", hash, "t7", refusal); err != nil {
			t.Fatal(err)
		}
		if r, _, _ := s.KeyRecord(ctx, "prj_1", hash); r.Answer.Code != 3 || r.Answer.Message != "items: empty" || r.Answer.Param != "items" || r.Answer.Body != nil {
			t.Fatalf("refusal %+v", r.Answer)
		}
		// Pruning: records created before the bound, oldest first.
		n, err := s.PruneKeys(ctx, after, 10)
		if err != nil || n != 1 { // prj_2's
			t.Fatalf("pruned %d, %v", n, err)
		}
		n, err = s.PruneKeys(ctx, after.Add(time.Millisecond), 10)
		if err != nil || n != 1 {
			t.Fatalf("pruned %d, %v", n, err)
		}
	})
}

// TestIdempotencyClaimsConcurrently: of concurrent claims of one key, on
// every database, one wins.
func TestIdempotencyClaimsConcurrently(t *testing.T) {
	t.Parallel()
	storagetest.Run(t, func(t *testing.T, s *storagetest.Store) {
		t.Parallel()
		ctx := ctxT(t)
		hash := idempotency.Hash("scope", "k")
		var wins sync.Map
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Go(func() {
				token := fmt.Sprint("t", i)
				_, ok, err := s.ClaimKey(ctx, idempotency.Record{ProjectID: "p", KeyHash: hash, Fingerprint: []byte("f"),
					Token: token, CreatedAt: whT0, LeaseUntil: whT0.Add(time.Minute)}, whT0)
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Store(token, true)
				}
			})
		}
		wg.Wait()
		n := 0
		wins.Range(func(any, any) bool { n++; return true })
		if n != 1 {
			t.Fatalf("%d claims won", n)
		}
	})
}
