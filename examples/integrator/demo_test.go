package integrator_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reclaim-sol/reclaim/examples/integrator"
)

// writeDemo writes a demo file naming key and a keypair whose bytes are all b.
func writeDemo(t *testing.T, dir, key string, b byte, reclaim string, mod time.Time) string {
	t.Helper()
	ints := make([]int, 64)
	for i := range ints {
		ints[i] = int(b)
	}
	kp, _ := json.Marshal(ints)
	wallet := filepath.Join(dir, "demo-wallet.json")
	if err := os.WriteFile(wallet, kp, 0o600); err != nil {
		t.Fatal(err)
	}
	d, _ := json.Marshal(map[string]string{"apiKey": key, "walletFile": wallet, "origin": "http://127.0.0.1:5173", "reclaimUrl": reclaim, "solanaRpcUrl": "http://127.0.0.1:8899"})
	path := filepath.Join(dir, "demo.json")
	if err := os.WriteFile(path, d, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}

// Running the demo again while the sample app runs switches the app to the
// new wallet and key: it reads the demo file again when it changes.
func TestFollowDemo(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var keys []string
	reclaim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		_, _ = io.WriteString(w, `{"token":"t"}`)
	}))
	defer reclaim.Close()
	dir := t.TempDir()
	t0 := time.Now().Add(-time.Hour)
	path := writeDemo(t, dir, "ak_old", 1, reclaim.URL, t0)
	h, err := integrator.FollowDemo(path, integrator.Options{WebDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	app := httptest.NewServer(h)
	defer app.Close()
	get := func(p string) string {
		resp, err := http.Get(app.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	session := func() {
		resp, err := http.Post(app.URL+"/api/session", "application/json", strings.NewReader(`{"walletAddress":"W"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if js := get("/demo-wallet.js"); !strings.Contains(js, "[1,1,1") {
		t.Fatalf("demo wallet: %s", js)
	}
	session()
	writeDemo(t, dir, "ak_new", 2, reclaim.URL, t0.Add(time.Minute))
	if js := get("/demo-wallet.js"); !strings.Contains(js, "[2,2,2") {
		t.Fatalf("after the demo ran again, the page still offers the old wallet: %s", js)
	}
	session()
	if cfg := get("/api/config"); !strings.Contains(cfg, "customUrl=http%3A%2F%2F127.0.0.1%3A8899") {
		t.Errorf("config %s: no explorer link on the local validator", cfg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 2 || keys[0] != "ak_old" || keys[1] != "ak_new" {
		t.Errorf("sessions minted with %q, want the old key then the new", keys)
	}
}
