package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/pkg/clocktest"
)

// stashed is a build of n bytes in all (the request empty).
func stashed(n int) json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("x", n-2) + `"`)
}

// checkStash checks the stash's bounds and its books against its builds.
func checkStash(t *testing.T, s *buildStash) {
	t.Helper()
	bytes, per := 0, map[string]int{}
	for _, b := range s.builds {
		bytes += b.size()
		per[b.project] += b.size()
	}
	if bytes != s.bytes || bytes > s.maxBytes || len(s.builds) > s.maxEntries || s.all.Len() != len(s.builds) {
		t.Fatalf("stash holds %d bytes in %d builds (books: %d bytes, %d listed); bounds %d bytes, %d builds",
			bytes, len(s.builds), s.bytes, s.all.Len(), s.maxBytes, s.maxEntries)
	}
	for id, p := range s.projects {
		if p.bytes != per[id] || p.bytes > s.shareBytes || p.own.Len() > s.shareEntries || p.own.Len() == 0 {
			t.Fatalf("project %s holds %d bytes (books: %d) in %d builds; share %d bytes, %d builds",
				id, per[id], p.bytes, p.own.Len(), s.shareBytes, s.shareEntries)
		}
	}
}

// Projects flood the stash, each past its share and, when they are many,
// all together past the whole. A project holding less than the others
// keeps every build it has, and each flooder keeps its newest.
func TestBuildStashFairUnderFlood(t *testing.T) {
	for _, tc := range []struct{ flooders, victimBuilds int }{
		{3, 3}, // the flooders, each at its share, never fill the stash
		{7, 1}, // they do, and take each other's oldest builds
	} {
		t.Run(fmt.Sprintf("%d flooders", tc.flooders), func(t *testing.T) {
			clk := clocktest.New(time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC))
			s := newBuildStash(clk.Now, 64<<10) // 16 builds of 4 KiB, 4 per project
			var victim []string
			for i := range tc.victimBuilds {
				id, _, ok := s.put("victim", "w", stashed(4<<10), nil)
				if !ok {
					t.Fatalf("the victim's build %d was not kept", i)
				}
				victim = append(victim, id)
			}
			newest := map[string]string{}
			for i := range 2000 {
				p := fmt.Sprintf("flooder-%d", i%tc.flooders)
				id, _, ok := s.put(p, "w", stashed(1<<10+i%(3<<10)), nil)
				if !ok {
					t.Fatalf("%s's build %d was not kept", p, i)
				}
				newest[p] = id
				checkStash(t, s)
			}
			for i, id := range victim {
				if _, ok := s.get(id); !ok {
					t.Errorf("the flood took the victim's build %d", i)
				}
			}
			for p, id := range newest {
				if _, ok := s.get(id); !ok {
					t.Errorf("%s's newest build is gone", p)
				}
			}
		})
	}
}

// One project alone never holds more than its share, of bytes or of
// builds: its own oldest go; a build larger than a share is not kept.
func TestBuildStashShare(t *testing.T) {
	clk := clocktest.New(time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC))
	s := newBuildStash(clk.Now, 64<<10)
	var ids []string
	for range 100 {
		id, _, ok := s.put("p", "w", stashed(100), nil)
		if !ok {
			t.Fatal("a small build was not kept")
		}
		ids = append(ids, id)
		checkStash(t, s)
	}
	if got := len(s.builds); got != s.shareEntries {
		t.Errorf("one project of tiny builds holds %d builds, want its share %d", got, s.shareEntries)
	}
	if _, ok := s.get(ids[len(ids)-1]); !ok {
		t.Error("the newest build is gone")
	}
	if _, ok := s.get(ids[0]); ok {
		t.Error("the oldest build is still kept past the share")
	}
	if _, _, ok := s.put("p", "w", stashed(16<<10+1), nil); ok {
		t.Error("a build larger than a project's share was kept")
	}
	if _, _, ok := s.put("p", "w", stashed(10), stashed(16<<10-10)); !ok {
		t.Error("a build of exactly a share was not kept")
	}
	checkStash(t, s)
}

// Expired builds go first, whoever holds them: a full stash of old builds
// makes room for a new project without taking any live build.
func TestBuildStashExpiredFirst(t *testing.T) {
	clk := clocktest.New(time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC))
	s := newBuildStash(clk.Now, 64<<10)
	for i := range 16 {
		if _, _, ok := s.put(fmt.Sprintf("old-%d", i%4), "w", stashed(4<<10), nil); !ok {
			t.Fatal("not kept")
		}
	}
	clk.Advance(stashTTL - time.Second)
	live, _, _ := s.put("live", "w", stashed(4<<10), nil) // evicts old-0's oldest: the largest of equals
	clk.Advance(time.Second)                              // the 16 old builds expire
	for range 3 {
		if _, _, ok := s.put("new", "w", stashed(4<<10), nil); !ok {
			t.Fatal("not kept")
		}
	}
	if _, ok := s.get(live); !ok {
		t.Error("a live build went while expired builds were kept")
	}
	if len(s.builds) != 4 || len(s.projects) != 2 {
		t.Errorf("after expiry the stash holds %d builds of %d projects, want the 4 live ones of 2", len(s.builds), len(s.projects))
	}
	checkStash(t, s)
}
