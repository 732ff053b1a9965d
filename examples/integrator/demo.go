package integrator

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// Demo is what `reclaim demo` and `reclaim dev` (make run) write to
// data/demo.json, as far as the sample app needs it.
type Demo struct {
	APIKey       string `json:"apiKey"`
	WalletFile   string `json:"walletFile"`
	Origin       string `json:"origin"`
	ReclaimURL   string `json:"reclaimUrl"`
	SolanaRPCURL string `json:"solanaRpcUrl"`
}

// ReadDemo reads a demo file.
func ReadDemo(path string) (Demo, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Demo{}, err
	}
	var d Demo
	if err := json.Unmarshal(raw, &d); err != nil {
		return Demo{}, err
	}
	if u, err := url.Parse(d.Origin); err != nil || u.Host == "" {
		return Demo{}, fmt.Errorf("origin %q", d.Origin)
	}
	return d, nil
}

// Apply sets what the demo names on o: the API key, Reclaim's URL, the demo
// wallet (its keypair file), and, on the local validator, explorer links
// to the Solana Explorer's custom cluster at its RPC URL.
func (d Demo) Apply(o Options) (Options, error) {
	o.APIKey, o.ReclaimURL = d.APIKey, d.ReclaimURL
	if d.WalletFile != "" {
		key, err := ReadKeypair(d.WalletFile)
		if err != nil {
			return o, fmt.Errorf("%s: %w", d.WalletFile, err)
		}
		o.DemoWallet = key
	}
	if o.ExplorerURL == "" && d.SolanaRPCURL != "" {
		o.ExplorerURL = "https://explorer.solana.com/tx/{id}?cluster=custom&customUrl=" + url.QueryEscape(d.SolanaRPCURL)
	}
	return o, nil
}

// ReadKeypair reads a solana-keygen keypair file: a JSON array of 64 numbers.
func ReadKeypair(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ints []int
	if err := json.Unmarshal(raw, &ints); err != nil || len(ints) != 64 {
		return nil, errors.New("want a JSON array of 64 numbers (solana-keygen's format)")
	}
	key := make([]byte, 64)
	for i, n := range ints {
		if n < 0 || n > 255 {
			return nil, errors.New("want a JSON array of 64 numbers from 0 to 255 (solana-keygen's format)")
		}
		key[i] = byte(n)
	}
	return key, nil
}

// FollowDemo serves the sample app with what the demo file at path names,
// read again whenever the file changes: running the demo again (a new
// wallet, project and key) switches a running sample app to them, instead
// of leaving it on the old wallet and key. A file that cannot be read keeps
// the last one that could.
func FollowDemo(path string, base Options) (http.Handler, error) {
	f := &demoFollower{path: path, base: base}
	if err := f.reload(); err != nil {
		return nil, err
	}
	return f, nil
}

type demoFollower struct {
	path string
	base Options

	mu      sync.Mutex
	modTime time.Time
	size    int64
	h       http.Handler
}

func (f *demoFollower) reload() error {
	fi, err := os.Stat(f.path)
	if err != nil {
		return err
	}
	if f.h != nil && fi.ModTime().Equal(f.modTime) && fi.Size() == f.size {
		return nil
	}
	d, err := ReadDemo(f.path)
	if err != nil {
		return err
	}
	o, err := d.Apply(f.base)
	if err != nil {
		return err
	}
	f.h, f.modTime, f.size = New(o), fi.ModTime(), fi.Size()
	return nil
}

func (f *demoFollower) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	_ = f.reload()
	h := f.h
	f.mu.Unlock()
	h.ServeHTTP(w, r)
}
