// Package integrator is the backend of the sample integration: what an
// integrator runs on its own origin beside its frontend. It holds the
// project's API key, mints Reclaim session tokens for the page
// (POST /api/session), and serves the page (examples/web) and its bundles.
// The page then calls Reclaim itself, cross-origin, with the token.
//
// A real backend mints a session only for a wallet its signed-in user has
// proved to own (Sign-In With Solana, say); this sample trusts the page.
package integrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options configure the backend.
type Options struct {
	// ReclaimURL is Reclaim's base URL as the browser reaches it.
	ReclaimURL string
	// APIKey is the project's key: it never leaves this process.
	APIKey string
	// WebDir is examples/web: index.html, style.css and dist/ (npm run build).
	WebDir string
	// DemoWallet, when set, is a 64-byte keypair the page registers as a
	// Wallet Standard wallet (examples/web/src/testwallet.ts): make demo's
	// wallet, and the browser test's. Never a key holding real funds.
	DemoWallet []byte
	// DemoWalletGuards makes that wallet append Lighthouse guards, as
	// Phantom does.
	DemoWalletGuards bool
	// DemoWalletV1 makes that wallet advertise and sign v1 transactions
	// (SIMD-0385), so the page builds v1; not with DemoWalletGuards.
	DemoWalletV1 bool
	// DemoWalletRPC, when set, is the cluster's JSON-RPC URL: the demo
	// wallet then sends what it signs itself (signAndSendTransaction), through
	// POST /api/demo-send, which forwards sendTransaction alone.
	DemoWalletRPC string
	// Client calls Reclaim (a client with a 10 s timeout when nil).
	Client *http.Client
	// ExplorerURL is the template of a transaction's explorer link, with
	// {id} for its signature ("": the page shows no link).
	ExplorerURL string
	// WebhookSecret is the signing secret (whsec_...) of the endpoint
	// `reclaim webhooks add` made for POST /api/webhooks/reclaim; "": no
	// webhook route.
	WebhookSecret string
}

// New returns the backend's handler.
func New(o Options) http.Handler {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", o.file("index.html", "text/html; charset=utf-8"))
	// The signing page an agent's build links to (Reclaim's
	// RECLAIM_SIGN_URL): /sign?build=ID.
	mux.HandleFunc("GET /sign", o.file("sign.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /style.css", o.file("style.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /favicon.ico", o.file("favicon.ico", "image/x-icon"))
	mux.Handle("GET /dist/", http.StripPrefix("/dist/", http.FileServer(http.Dir(filepath.Join(o.WebDir, "dist")))))
	mux.HandleFunc("GET /demo-wallet.js", o.demoWallet)
	mux.HandleFunc("GET /api/config", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"reclaimUrl": o.ReclaimURL, "explorerUrl": o.ExplorerURL})
	})
	mux.HandleFunc("POST /api/session", o.session)
	if o.DemoWalletRPC != "" {
		mux.HandleFunc("POST /api/demo-send", o.demoSend)
	}
	if o.WebhookSecret != "" {
		mux.HandleFunc("POST /api/webhooks/reclaim", o.webhook)
	}
	return mux
}

func (o Options) file(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(o.WebDir, name))
		if err != nil {
			http.Error(w, "build the page first: cd examples/web && npm ci && npm run build", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(b)
	}
}

// demoWallet registers the demo wallet, or nothing.
func (o Options) demoWallet(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if len(o.DemoWallet) != 64 {
		fmt.Fprintln(w, "// no demo wallet: connect a browser wallet")
		return
	}
	ints := make([]int, len(o.DemoWallet)) // solana-keygen's JSON: numbers, not base64
	for i, b := range o.DemoWallet {
		ints[i] = int(b)
	}
	key, _ := json.Marshal(ints)
	send := ""
	if o.DemoWalletRPC != "" {
		send = `, sendUrl: "/api/demo-send"`
	}
	fmt.Fprintf(w, "import { registerTestWallet } from \"/dist/testwallet.js\";\n"+
		"await registerTestWallet(new Uint8Array(%s), { name: \"Demo wallet\", guards: %t, v1: %t%s });\n", key, o.DemoWalletGuards, o.DemoWalletV1, send)
}

// demoSend forwards the demo wallet's sendTransaction to DemoWalletRPC (the
// wallet's own connection to the cluster, as a browser wallet has); any
// other method is refused.
func (o Options) demoSend(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<10))
	var call struct {
		Method string `json:"method"`
	}
	if err != nil || json.Unmarshal(body, &call) != nil || call.Method != "sendTransaction" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "send a sendTransaction JSON-RPC call"})
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, o.DemoWalletRPC, bytes.NewReader(body))
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "bad cluster URL"})
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := o.Client.Do(req)
	if err != nil {
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": "the cluster did not answer"})
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, 64<<10))
}

// session mints a Reclaim session for the wallet the page names, with the
// API key, and hands the page the token.
func (o Options) session(w http.ResponseWriter, r *http.Request) {
	var in struct {
		WalletAddress string `json:"walletAddress"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&in); err != nil || in.WalletAddress == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "send {\"walletAddress\": \"...\"}"})
		return
	}
	body, _ := json.Marshal(map[string]any{"walletAddress": in.WalletAddress, "ttlSeconds": 600})
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, strings.TrimRight(o.ReclaimURL, "/")+"/v1/sessions", bytes.NewReader(body))
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", o.APIKey)
	resp, err := o.Client.Do(req)
	if err != nil {
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": "Reclaim did not answer: " + err.Error()})
		return
	}
	defer resp.Body.Close()
	// Reclaim's answer as it is: the token and its expiry, or its error.
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, io.LimitReader(resp.Body, 64<<10))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
