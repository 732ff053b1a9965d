package images

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
)

// metadataServer serves the testdata files and a few failures, counting
// requests per path.
func metadataServer(t *testing.T) (*httptest.Server, *sync.Map) {
	t.Helper()
	var counts sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := counts.LoadOrStore(r.URL.Path, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		switch r.URL.Path {
		case "/500":
			http.Error(w, "down", http.StatusInternalServerError)
		case "/big":
			fmt.Fprintf(w, `{"image":"https://x/y.png","pad":"%s"}`, strings.Repeat("x", 300<<10))
		case "/garbage":
			w.Write([]byte("<html>not json</html>"))
		case "/redirect":
			http.Redirect(w, r, "/meta/drip.json", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			b, err := os.ReadFile("testdata/" + strings.TrimPrefix(r.URL.Path, "/meta/"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8") // as many hosts do
			w.Write(b)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &counts
}

func requests(counts *sync.Map, path string) int32 {
	n, ok := counts.Load(path)
	if !ok {
		return 0
	}
	return n.(*atomic.Int32).Load()
}

func TestImagesResolve(t *testing.T) {
	t.Parallel()
	srv, counts := metadataServer(t)
	r := New(Options{AllowPrivate: true})
	u := func(p string) string { return srv.URL + p }
	uris := []string{
		u("/meta/drip.json"), u("/meta/files-only.json"), u("/meta/no-image.json"), u("/meta/missing.json"),
		u("/meta/hostile.json"), u("/meta/ipfs.json"), u("/meta/fallback.json"),
		u("/500"), u("/big"), u("/garbage"), u("/redirect"), u("/to-file"), u("/meta/drip.json"),
		"ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.json", "ar://abc", "file:///etc/passwd", "", "http://", "%zz",
	}
	want := map[string]string{
		u("/meta/drip.json"):       "https://arweave.net/Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s",
		u("/meta/files-only.json"): "https://game.example/potion.png",
		u("/redirect"):             "https://arweave.net/Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s",
		// javascript:, data: and file: images are dropped; ipfs:// and ar://
		// pass as they are.
		u("/meta/ipfs.json"):     "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/7.png",
		u("/meta/fallback.json"): "ar://Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s",
	}
	if got := r.Resolve(context.Background(), uris); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if n := requests(counts, "/meta/drip.json"); n != 2 { // once itself, once through /redirect
		t.Errorf("drip.json fetched %d times", n)
	}
	// Everything is cached now, failures included: no request goes out.
	before := map[string]int32{}
	counts.Range(func(k, v any) bool { before[k.(string)] = v.(*atomic.Int32).Load(); return true })
	if got := r.Resolve(context.Background(), uris); !reflect.DeepEqual(got, want) {
		t.Errorf("cached: got %v", got)
	}
	counts.Range(func(k, v any) bool {
		if n := v.(*atomic.Int32).Load(); n != before[k.(string)] {
			t.Errorf("%s fetched again (%d -> %d)", k, before[k.(string)], n)
		}
		return true
	})
}

func TestImagesFill(t *testing.T) {
	t.Parallel()
	srv, _ := metadataServer(t)
	items := []assets.Item{
		{Type: assets.TypeNFT, URI: srv.URL + "/meta/drip.json"},
		{Type: assets.TypeNFT, URI: srv.URL + "/meta/drip.json", ImageURI: "https://kept/already.png"},
		{Type: assets.TypeToken},
		{Type: assets.TypeCNFT, URI: srv.URL + "/500"},
	}
	New(Options{AllowPrivate: true}).Fill(context.Background(), items)
	got := []string{items[0].ImageURI, items[1].ImageURI, items[2].ImageURI, items[3].ImageURI}
	want := []string{"https://arweave.net/Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s", "https://kept/already.png", "", ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("images = %q", got)
	}
}

// TestImagesBudget: a host that does not answer costs a listing no more than
// its deadline; the fetch goes on, and its answer serves the next listing.
func TestImagesBudget(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var slowRequests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			slowRequests.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, `{"image":"https://img%s.png"}`, r.URL.Path)
	}))
	defer srv.Close()
	r := New(Options{AllowPrivate: true, Timeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	got := r.Resolve(ctx, []string{srv.URL + "/fast", srv.URL + "/slow"})
	if took := time.Since(start); took > time.Second {
		t.Errorf("Resolve took %v past a 300ms deadline", took)
	}
	if want := map[string]string{srv.URL + "/fast": "https://img/fast.png"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
	close(release)
	// The next listing joins the fetch still in flight (or finds it cached).
	got = r.Resolve(context.Background(), []string{srv.URL + "/slow"})
	if got[srv.URL+"/slow"] != "https://img/slow.png" || slowRequests.Load() != 1 {
		t.Errorf("got %v after %d requests", got, slowRequests.Load())
	}
}

// TestImagesOneFetchPerURI: listings asking at once share one fetch.
func TestImagesOneFetchPerURI(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}, 8), make(chan struct{})
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		arrived <- struct{}{}
		<-release
		fmt.Fprint(w, `{"image":"https://img/shared.png"}`)
	}))
	defer srv.Close()
	r := New(Options{AllowPrivate: true})
	results := make(chan map[string]string, 2)
	resolve := func() { results <- r.Resolve(context.Background(), []string{srv.URL + "/shared"}) }
	go resolve()
	<-arrived // the first fetch is in flight
	go resolve()
	// The second Resolve either joins the flight or, had it been slow to
	// start, finds the cache: no second request either way.
	close(release)
	for range 2 {
		if got := <-results; got[srv.URL+"/shared"] != "https://img/shared.png" {
			t.Errorf("got %v", got)
		}
	}
	if n.Load() != 1 {
		t.Errorf("%d requests", n.Load())
	}
}

func TestImagesConcurrencyLimit(t *testing.T) {
	t.Parallel()
	var inflight, peak atomic.Int32
	arrived, release := make(chan struct{}, 16), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := inflight.Add(1)
		for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
		}
		arrived <- struct{}{}
		<-release
		inflight.Add(-1)
		fmt.Fprintf(w, `{"image":"https://img%s.png"}`, r.URL.Path)
	}))
	defer srv.Close()
	r := New(Options{AllowPrivate: true, Concurrency: 2})
	var uris []string
	for i := range 6 {
		uris = append(uris, fmt.Sprintf("%s/%d", srv.URL, i))
	}
	done := make(chan map[string]string)
	go func() { done <- r.Resolve(context.Background(), uris) }()
	<-arrived
	<-arrived
	close(release)
	if got := <-done; len(got) != 6 {
		t.Errorf("resolved %d of 6", len(got))
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("%d fetches at once, limit 2", p)
	}
}

// TestImagesRefusesPrivate: without AllowPrivate, a loopback host is never dialled.
func TestImagesRefusesPrivate(t *testing.T) {
	t.Parallel()
	srv, counts := metadataServer(t)
	got := New(Options{}).Resolve(context.Background(), []string{srv.URL + "/meta/drip.json", "http://localhost:1/x.json"})
	if len(got) != 0 || requests(counts, "/meta/drip.json") != 0 {
		t.Errorf("got %v, %d requests", got, requests(counts, "/meta/drip.json"))
	}
}

func TestImagesCache(t *testing.T) {
	t.Parallel()
	c := newCache(2)
	now := time.Unix(1000, 0)
	c.put("a", "A", now.Add(time.Minute))
	c.put("b", "", now.Add(time.Minute)) // negative
	if img, ok := c.get("a", now); !ok || img != "A" {
		t.Errorf("a = %q, %v", img, ok)
	}
	c.put("c", "C", now.Add(time.Minute)) // evicts b, the least recently used
	if _, ok := c.get("b", now); ok {
		t.Error("b not evicted")
	}
	if img, ok := c.get("c", now); !ok || img != "C" {
		t.Errorf("c = %q, %v", img, ok)
	}
	if _, ok := c.get("a", now.Add(time.Minute)); ok {
		t.Error("a not expired")
	}
	if c.len() != 1 {
		t.Errorf("len = %d", c.len())
	}
	c.put("c", "C2", now.Add(time.Hour))
	if img, _ := c.get("c", now.Add(2*time.Minute)); img != "C2" {
		t.Errorf("c = %q", img)
	}
}

// TestImagesNegativeTTL: a failure is retried once its shorter TTL is over.
func TestImagesNegativeTTL(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, `{"image":"https://img/back.png"}`)
	}))
	defer srv.Close()
	r := New(Options{AllowPrivate: true, NegativeTTL: time.Minute, TTL: time.Hour})
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	r.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	uri := []string{srv.URL + "/m.json"}
	if got := r.Resolve(context.Background(), uri); len(got) != 0 {
		t.Fatalf("got %v", got)
	}
	fail.Store(false)
	if got := r.Resolve(context.Background(), uri); len(got) != 0 {
		t.Errorf("negative entry not used: %v", got)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if got := r.Resolve(context.Background(), uri); got[uri[0]] != "https://img/back.png" {
		t.Errorf("after the negative TTL: %v", got)
	}
}
