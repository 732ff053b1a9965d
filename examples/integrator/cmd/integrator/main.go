// Command integrator runs the sample integration's backend (see package
// integrator) on its own origin:
//
//	go run ./examples/integrator/cmd/integrator --reclaim-url http://127.0.0.1:8080 \
//	    --api-key ak_live_... [--addr 127.0.0.1:5173] [--demo-wallet data/demo-wallet.json]
//
// or, with what `reclaim demo` wrote (as `make example` does):
//
//	go run ./examples/integrator/cmd/integrator --demo data/demo.json
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/reclaim-sol/reclaim/examples/integrator"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5173", "listen address: the page's origin")
	reclaimURL := flag.String("reclaim-url", "http://127.0.0.1:8080", "Reclaim's base URL as the browser reaches it")
	apiKey := flag.String("api-key", os.Getenv("RECLAIM_API_KEY"), "the project's API key (RECLAIM_API_KEY)")
	web := flag.String("web", "examples/web", "the page's directory (index.html, dist/)")
	demoWallet := flag.String("demo-wallet", "", "a keypair file (solana-keygen JSON) the page offers as a wallet")
	guards := flag.Bool("guards", false, "the demo wallet appends Lighthouse guards, as Phantom does")
	demoFile := flag.String("demo", "", "reclaim demo's demo.json: sets the API key, wallet, Reclaim URL and address")
	webhookSecret := flag.String("webhook-secret", os.Getenv("RECLAIM_WEBHOOK_SECRET"), "the whsec_ secret of `reclaim webhooks add --url http://<addr>/api/webhooks/reclaim` (RECLAIM_WEBHOOK_SECRET)")
	flag.Parse()
	if *demoFile != "" {
		if err := readDemo(*demoFile, addr, reclaimURL, apiKey, demoWallet); err != nil {
			log.Fatalf("integrator: --demo: %v (run make demo first)", err)
		}
	}
	if *apiKey == "" {
		log.Fatal("integrator: --api-key (or RECLAIM_API_KEY) is required")
	}
	o := integrator.Options{ReclaimURL: *reclaimURL, APIKey: *apiKey, WebDir: *web, DemoWalletGuards: *guards, WebhookSecret: *webhookSecret}
	if *demoWallet != "" {
		key, err := readKeypair(*demoWallet)
		if err != nil {
			log.Fatalf("integrator: --demo-wallet: %v", err)
		}
		o.DemoWallet = key
	}
	srv := &http.Server{Addr: *addr, Handler: integrator.New(o), ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("sample app on http://%s (Reclaim at %s); its origin must be allowed by the project\n", *addr, *reclaimURL)
	log.Fatal(srv.ListenAndServe())
}

// readDemo takes the settings reclaim demo wrote.
func readDemo(path string, addr, reclaimURL, apiKey, wallet *string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var d struct{ APIKey, WalletFile, Origin, ReclaimURL string }
	if err := json.Unmarshal(raw, &d); err != nil {
		return err
	}
	u, err := url.Parse(d.Origin)
	if err != nil || u.Host == "" {
		return fmt.Errorf("origin %q", d.Origin)
	}
	*addr, *reclaimURL, *apiKey, *wallet = u.Host, d.ReclaimURL, d.APIKey, d.WalletFile
	return nil
}

// readKeypair reads a solana-keygen keypair file: a JSON array of 64 numbers.
func readKeypair(path string) ([]byte, error) {
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
