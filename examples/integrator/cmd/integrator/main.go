// Command integrator runs the sample integration's backend (see package
// integrator) on its own origin:
//
//	go run ./examples/integrator/cmd/integrator --reclaim-url http://127.0.0.1:8080 \
//	    --api-key ak_live_... [--addr 127.0.0.1:5173] [--demo-wallet data/demo-wallet.json]
//
// or, with what `reclaim dev` (make run) or `reclaim demo` wrote (as `make
// example` does), following the file when the demo is run again:
//
//	go run ./examples/integrator/cmd/integrator --demo data/demo.json
//
// The port is SAMPLE_APP_PORT's (5173 unless set), or the demo's origin's.
package main

import (
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
	port := os.Getenv("SAMPLE_APP_PORT")
	if port == "" {
		port = "5173"
	}
	addr := flag.String("addr", "127.0.0.1:"+port, "listen address: the page's origin (SAMPLE_APP_PORT sets the port)")
	reclaimURL := flag.String("reclaim-url", "http://127.0.0.1:8080", "Reclaim's base URL as the browser reaches it")
	apiKey := flag.String("api-key", os.Getenv("RECLAIM_API_KEY"), "the project's API key (RECLAIM_API_KEY)")
	web := flag.String("web", "examples/web", "the page's directory (index.html, dist/)")
	demoWallet := flag.String("demo-wallet", "", "a keypair file (solana-keygen JSON) the page offers as a wallet")
	guards := flag.Bool("guards", false, "the demo wallet appends Lighthouse guards, as Phantom does")
	v1 := flag.Bool("v1", false, "the demo wallet advertises and signs v1 transactions (not with --guards)")
	explorer := flag.String("explorer-url", "", "explorer link template with {id} for a transaction's signature")
	demoFile := flag.String("demo", "", "reclaim's demo.json: the API key, wallet, Reclaim URL and address, followed when it changes")
	webhookSecret := flag.String("webhook-secret", os.Getenv("RECLAIM_WEBHOOK_SECRET"), "the whsec_ secret of `reclaim webhooks add --url http://<addr>/api/webhooks/reclaim` (RECLAIM_WEBHOOK_SECRET)")
	flag.Parse()
	if *v1 && *guards {
		log.Fatal("integrator: --v1 and --guards: the demo wallet appends guards to legacy and v0 transactions only; choose one")
	}
	o := integrator.Options{ReclaimURL: *reclaimURL, APIKey: *apiKey, WebDir: *web, DemoWalletGuards: *guards, DemoWalletV1: *v1, ExplorerURL: *explorer, WebhookSecret: *webhookSecret}
	var h http.Handler
	if *demoFile != "" {
		d, err := integrator.ReadDemo(*demoFile)
		if err != nil {
			log.Fatalf("integrator: --demo: %v (run make run, or make demo, first)", err)
		}
		if u, _ := url.Parse(d.Origin); os.Getenv("SAMPLE_APP_PORT") == "" || u.Port() == port {
			*addr = u.Host // the origin the demo project allows
		} else {
			log.Printf("integrator: SAMPLE_APP_PORT=%q but the demo allows %q: run make run (or make demo) with the same SAMPLE_APP_PORT", port, d.Origin) //nolint:gosec // G706: quoted with %q, the operator's own setting and file
		}
		if h, err = integrator.FollowDemo(*demoFile, o); err != nil {
			log.Fatalf("integrator: --demo: %v", err)
		}
		*reclaimURL = d.ReclaimURL
	} else {
		if *apiKey == "" {
			log.Fatal("integrator: --api-key (or RECLAIM_API_KEY) is required")
		}
		if *demoWallet != "" {
			key, err := integrator.ReadKeypair(*demoWallet)
			if err != nil {
				log.Fatalf("integrator: --demo-wallet: %v", err)
			}
			o.DemoWallet = key
		}
		h = integrator.New(o)
	}
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("sample app on http://%s (Reclaim at %s); its origin must be allowed by the project\n", *addr, *reclaimURL)
	log.Fatal(srv.ListenAndServe())
}
