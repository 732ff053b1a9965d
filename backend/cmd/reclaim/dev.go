package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/localvalidator"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// devSettings are what `reclaim dev` reads beyond the service's settings.
type devSettings struct {
	// validatorPort and pubsubPort are the local validator's JSON-RPC and
	// PubSub ports (VALIDATOR_PORT, 8899; VALIDATOR_PUBSUB_PORT, the next
	// one); validatorSet and pubsubSet say whether a variable fixed them.
	validatorPort, pubsubPort int
	validatorSet, pubsubSet   bool
	validatorDir              string
	// sampleOrigin is the sample app's origin (SAMPLE_APP_PORT), which the
	// demo project allows; sampleAddr its listen address.
	sampleOrigin, sampleAddr string
}

func loadDevSettings(args []string, getenv func(string) string) (devSettings, []string, error) {
	d := devSettings{validatorPort: localvalidator.RPCPort, validatorDir: localvalidator.Dir}
	if v := strings.TrimSpace(getenv("VALIDATOR_PORT")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65534 {
			return d, nil, usageError{fmt.Sprintf("VALIDATOR_PORT=%q: want a port from 1 to 65534 (PubSub takes the next one unless VALIDATOR_PUBSUB_PORT is set)", v)}
		}
		d.validatorPort, d.validatorSet = n, true
	}
	d.pubsubPort = d.validatorPort + 1
	if v := strings.TrimSpace(getenv("VALIDATOR_PUBSUB_PORT")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return d, nil, usageError{fmt.Sprintf("VALIDATOR_PUBSUB_PORT=%q: want a port from 1 to 65535", v)}
		}
		d.pubsubPort, d.pubsubSet = n, true
	}
	origin, err := sampleAppOrigin(getenv)
	if err != nil {
		return d, nil, err
	}
	d.sampleOrigin, d.sampleAddr = origin, strings.TrimPrefix(origin, "http://")
	// -validator-dir is dev's own flag; the rest are serve's.
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-validator-dir" || a == "--validator-dir":
			if i+1 >= len(args) {
				return d, nil, usageError{"dev: -validator-dir needs a directory"}
			}
			d.validatorDir = args[i+1] //nolint:gosec // G602: i+1 < len(args), checked just above
			i++
		case strings.HasPrefix(a, "-validator-dir=") || strings.HasPrefix(a, "--validator-dir="):
			d.validatorDir = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
		}
	}
	return d, rest, nil
}

// sampleAppOrigin is the sample app's origin: 127.0.0.1 on SAMPLE_APP_PORT
// (5173 unless set), where `make example` serves it.
func sampleAppOrigin(getenv func(string) string) (string, error) {
	port := 5173
	if v := strings.TrimSpace(getenv("SAMPLE_APP_PORT")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return "", usageError{fmt.Sprintf("SAMPLE_APP_PORT=%q: want a port from 1 to 65535", v)}
		}
		port = n
	}
	return "http://127.0.0.1:" + strconv.Itoa(port), nil
}

// dev runs the whole local stack, as `make run` does: unless SOLANA_RPC_URL
// names a cluster (then it is `reclaim serve`, and starts nothing else), it
// starts the local validator on VALIDATOR_PORT, seeds the demo once (a
// console owner, a project with an API key and the sample app's origin, a
// wallet whose items it makes again on a fresh validator: data/demo.json),
// serves on RECLAIM_ADDR, and prints where everything is. Ctrl-C (or
// SIGTERM) stops the service, then the validator's process group, and
// waits for both.
func dev(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	ds, serveArgs, err := loadDevSettings(args, getenv)
	if err != nil {
		return err
	}
	if strings.TrimSpace(getenv("SOLANA_RPC_URL")) != "" {
		return serve(ctx, serveArgs, getenv, stdout, stderr)
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	// The flags that say where things are must be known before serve
	// parses them: the data dir and the address the block prints.
	fs := serveFlags(&cfg)
	if err := fs.Parse(serveArgs); err != nil {
		return usageError{err.Error()}
	}
	metricsSet := strings.TrimSpace(getenv("RECLAIM_METRICS_ADDR")) != ""
	fs.Visit(func(f *flag.Flag) { metricsSet = metricsSet || f.Name == "metrics-addr" })
	ports, err := claimDevPorts(ctx, cfg.Addr, ds, metricsSet, cfg.MetricsAddr)
	if err != nil {
		return err
	}
	rpcURL := fmt.Sprintf("http://127.0.0.1:%d", ports.validator)
	fmt.Fprintf(stderr, "starting the local validator on %s…\n", rpcURL)
	v, err := localvalidator.Start(ctx, ds.validatorDir, ports.validator, ports.pubsub, stderr)
	if err != nil {
		return err
	}
	defer v.Stop()
	slog.New(slog.NewJSONHandler(stderr, nil)).Info("validator", "pid", v.Pid(), "rpc", rpcURL)

	demo, items, err := seedDev(ctx, cfg, rpcURL, ds.sampleOrigin)
	if err != nil {
		return err
	}
	env := devEnv(getenv, cfg, rpcURL, ds.sampleOrigin, ports.metricsAddr)
	// The validator ending on its own ends the stack too.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-v.Done():
			cancel(errors.New("the local validator exited"))
		case <-ctx.Done():
		}
	}()
	err = serveListening(ctx, serveArgs, env, stdout, stderr, func(api, metrics net.Addr) {
		demo.ReclaimURL = "http://" + api.String()
		printStack(stdout, stack{
			demo: demo, items: items, rpcURL: rpcURL, pubsub: ports.pubsub, metrics: metrics, notes: ports.notes,
			webhooksInsecure: env("RECLAIM_WEBHOOK_ALLOW_INSECURE") == "1",
		})
	})
	v.Stop()
	if err == nil {
		err = context.Cause(ctx)
		if errors.Is(err, context.Canceled) {
			err = nil // Ctrl-C
		}
	}
	return err
}

// devEnv is the service's environment in the dev stack: the local
// validator, the sample app's signing page, the metrics listener claimDevPorts
// chose, and, on a loopback address, webhooks to http and loopback
// receivers (RECLAIM_WEBHOOK_ALLOW_INSECURE) unless the variable says
// otherwise. An API on another address keeps the strict default: anyone who
// reaches it could aim webhooks at the machine's private network.
func devEnv(getenv func(string) string, cfg config.Config, rpcURL, sampleOrigin, metricsAddr string) func(string) string {
	return func(k string) string {
		v := getenv(k)
		switch {
		case k == "SOLANA_RPC_URL":
			return rpcURL
		case k == "RECLAIM_SIGN_URL" && v == "":
			return sampleOrigin + "/sign"
		case k == "RECLAIM_METRICS_ADDR" && strings.TrimSpace(v) == "":
			return metricsAddr
		case k == "RECLAIM_WEBHOOK_ALLOW_INSECURE" && strings.TrimSpace(v) == "" && config.Loopback(cfg.Addr):
			return "1"
		}
		return v
	}
}

// seedDev seeds the demo once and keeps it: what data/demo.json names is
// reused while it exists in storage (a missing part is made again), and the
// wallet's items are made again on a fresh validator (its state lives as
// long as the process). It returns the demo and the wallet's items.
func seedDev(ctx context.Context, cfg config.Config, rpcURL, origin string) (demoFile, []string, error) {
	prev, wallet, _ := readDemo(cfg.DataDir)
	chain := demoChain{rpc: rpc.New(rpcURL)}
	if wallet == nil {
		w, err := solana.NewRandomPrivateKey()
		if err != nil {
			return demoFile{}, nil, err
		}
		wallet = w
		prev.ProjectID = "" // a new wallet gets a new project
	}
	e, err := open(ctx, cfg, nil)
	if err != nil {
		return demoFile{}, nil, err
	}
	defer e.db.Close()
	d, err := seedAccounts(ctx, e, prev, origin, func() (string, error) {
		donation, err := solana.NewRandomPrivateKey()
		return donation.PublicKey().String(), err
	})
	if err != nil {
		return demoFile{}, nil, err
	}
	d.Wallet = wallet.PublicKey().String()
	d.WalletFile = filepath.Join(cfg.DataDir, "demo-wallet.json")
	d.ReclaimURL = "http://" + cfg.Addr
	d.SolanaRPCURL = rpcURL
	var items []string
	bal, err := chain.rpc.GetBalance(ctx, wallet.PublicKey(), rpc.CommitmentConfirmed)
	if err != nil {
		return demoFile{}, nil, fmt.Errorf("the local validator at %s does not answer: %w", rpcURL, err)
	}
	if bal.Value == 0 {
		if items, err = seedWallet(ctx, chain, wallet); err != nil {
			return demoFile{}, nil, fmt.Errorf("demo wallet: %w", err)
		}
	}
	p, err := e.projects.Get(ctx, d.ProjectID)
	if err != nil {
		return demoFile{}, nil, err
	}
	if donation, err := solana.PublicKeyFromBase58(p.DonationWallet); err == nil {
		// A donation goes to an account that must stay rent-exempt.
		if b, err := chain.rpc.GetBalance(ctx, donation, rpc.CommitmentConfirmed); err == nil && b.Value == 0 {
			if err := chain.airdrop(ctx, donation, solana.LAMPORTS_PER_SOL); err != nil {
				return demoFile{}, nil, fmt.Errorf("donation wallet: %w", err)
			}
		}
	}
	if err := writeDemoFiles(cfg.DataDir, wallet, d); err != nil {
		return demoFile{}, nil, err
	}
	return d, items, nil
}

// readDemo reads data/demo.json and its wallet's keypair; a missing or
// unreadable file is a zero demo (the wallet nil).
func readDemo(dir string) (demoFile, solana.PrivateKey, error) {
	var d demoFile
	raw, err := os.ReadFile(filepath.Join(dir, "demo.json"))
	if err != nil {
		return demoFile{}, nil, err
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return demoFile{}, nil, err
	}
	raw, err = os.ReadFile(filepath.Join(dir, "demo-wallet.json"))
	if err != nil {
		return d, nil, err
	}
	var ints []int
	if err := json.Unmarshal(raw, &ints); err != nil || len(ints) != 64 {
		return d, nil, errors.New("demo-wallet.json: want 64 numbers")
	}
	key := make(solana.PrivateKey, 64)
	for i, n := range ints {
		if n < 0 || n > 255 {
			return d, nil, errors.New("demo-wallet.json: want 64 numbers from 0 to 255")
		}
		key[i] = byte(n)
	}
	if key.PublicKey().String() != d.Wallet {
		return d, nil, errors.New("demo-wallet.json is not demo.json's wallet")
	}
	return d, key, nil
}

// seedAccounts makes (or finds again) what the demo needs in storage: a
// console owner whose sign-in it keeps in the demo file, the project
// (prev's while it exists, else a new one owned by that owner, its
// donation wallet from newDonation), an API key created through the
// console's service (so "Key activity" lists it) unless prev's still works,
// and origin among the project's browser origins.
func seedAccounts(ctx context.Context, e *env, prev demoFile, origin string, newDonation func() (string, error)) (demoFile, error) {
	d := prev
	o, err := demoOwner(ctx, e, &d)
	if err != nil {
		return demoFile{}, err
	}
	p, err := e.projects.Get(ctx, d.ProjectID)
	switch {
	case d.ProjectID != "" && err == nil:
		// Attach the owner to a project an older demo made without one.
		if _, err := e.owners.Share(ctx, p.ID, o.Email, owner.RoleOwner); err != nil && !errors.Is(err, owner.ErrConflict) {
			return demoFile{}, err
		}
	case d.ProjectID == "" || errors.Is(err, project.ErrNotFound):
		donation, err := newDonation()
		if err != nil {
			return demoFile{}, err
		}
		if p, err = e.owners.CreateProject(ctx, o, "Demo wallet app", donation); err != nil {
			return demoFile{}, err
		}
		d.APIKey = ""
	default:
		return demoFile{}, err
	}
	d.ProjectID = p.ID
	a, err := e.owners.Actor(ctx, o, p.ID)
	if err != nil {
		return demoFile{}, err
	}
	if !keyWorks(ctx, e, d.APIKey, p.ID) {
		if d.APIKey, _, err = e.owners.CreateKey(ctx, a, "demo backend"); err != nil {
			return demoFile{}, err
		}
	}
	origins, err := e.projects.Origins(ctx, p.ID)
	if err != nil {
		return demoFile{}, err
	}
	if !slices.ContainsFunc(origins, func(x project.Origin) bool { return x.Origin == origin }) {
		if _, err := e.owners.AddOrigin(ctx, a, origin); err != nil {
			return demoFile{}, err
		}
	}
	d.Origin = origin
	return d, nil
}

// keyWorks reports whether key is a live API key of project projectID.
func keyWorks(ctx context.Context, e *env, key, projectID string) bool {
	if key == "" {
		return false
	}
	k, err := e.rooms.projects.APIKeyByHash(ctx, e.hasher.Hash(key))
	return err == nil && k.RevokedAt == nil && k.ProjectID == projectID
}

// demoOwnerEmail is the demo's console account (example.com never
// delivers mail).
const demoOwnerEmail = "demo@example.com"

// demoOwner returns the demo's console owner: the one d names, whose
// password d keeps, or a new one (demo@example.com, or demo-<hex>@ when
// that is taken by an account whose password d does not know).
func demoOwner(ctx context.Context, e *env, d *demoFile) (owner.Owner, error) {
	if d.ConsoleEmail != "" && d.ConsolePassword != "" {
		o, err := e.owners.OwnerByEmail(ctx, d.ConsoleEmail)
		if err == nil {
			return o, nil
		}
		if !errors.Is(err, owner.ErrNoAccount) {
			return owner.Owner{}, err
		}
	}
	pw := make([]byte, 15)
	if _, err := rand.Read(pw); err != nil {
		return owner.Owner{}, err
	}
	password := base64.RawURLEncoding.EncodeToString(pw)
	email := demoOwnerEmail
	for range 5 {
		o, err := e.owners.CreateOwner(ctx, email, password)
		if errors.Is(err, owner.ErrConflict) {
			suffix := make([]byte, 3)
			_, _ = rand.Read(suffix)
			email = "demo-" + hex.EncodeToString(suffix) + "@example.com"
			continue
		}
		if err != nil {
			return owner.Owner{}, err
		}
		d.ConsoleEmail, d.ConsolePassword = o.Email, password
		return o, nil
	}
	return owner.Owner{}, errors.New("demo: no free console email for the demo owner")
}

// stack is what the printed block says.
type stack struct {
	demo   demoFile
	items  []string
	rpcURL string
	pubsub int
	// metrics is the metrics listener's address; nil when off.
	metrics net.Addr
	// notes say which usual ports were taken and where their parts went.
	notes            []string
	webhooksInsecure bool
}

// printStack prints the one block `make run` ends its start with.
func printStack(w io.Writer, s stack) {
	d := s.demo
	api := d.ReclaimURL
	seeded := "its items from the last run are still on this validator"
	if len(s.items) > 0 {
		seeded = "made on this validator: " + strings.Join(s.items, "\n"+strings.Repeat(" ", 17))
	}
	metrics := "off (RECLAIM_METRICS_ADDR=off)"
	if s.metrics != nil {
		metrics = "http://" + s.metrics.String() + "/metrics  (Prometheus; RECLAIM_METRICS_ADDR fixes its address)"
	}
	webhooks := "receivers must be https on public addresses (RECLAIM_WEBHOOK_ALLOW_INSECURE is off)"
	if s.webhooksInsecure {
		webhooks = "http://127.0.0.1 receivers allowed (a loopback-only stack: RECLAIM_WEBHOOK_ALLOW_INSECURE on)"
	}
	fmt.Fprintf(w, `
Reclaim is running: the whole local stack. Ctrl-C stops it.

  API            %[1]s  (REST, Connect, gRPC; MCP at %[1]s/mcp)
  Console        %[1]s/admin/  sign in as %[2]s, password %[3]s
  API reference  %[1]s/docs  (for agents: %[1]s/llms.txt)
  Sample app     make example  (in another terminal: %[4]s, its signing page %[4]s/sign)
  Demo wallet    %[5]s  (keypair in %[6]s; a throwaway key)
  API key        %[7]s  (project %[8]s)
  Validator      %[9]s  (PubSub ws://127.0.0.1:%[10]d; LiteSVM; its chain lasts as long as this run)
  Metrics        %[11]s
  Webhooks       %[12]s
`, api, d.ConsoleEmail, d.ConsolePassword, d.Origin, d.Wallet, d.WalletFile, d.APIKey, d.ProjectID, s.rpcURL, s.pubsub, metrics, webhooks)
	for _, n := range s.notes {
		fmt.Fprintf(w, "  Note           %s\n", n)
	}
	fmt.Fprintf(w, `
  Demo items     %[3]s
  Try            curl -s %[1]s/v1/wallet/%[2]s/assets -H "X-Api-Key: %[4]s"

`, api, d.Wallet, seeded, d.APIKey)
}
