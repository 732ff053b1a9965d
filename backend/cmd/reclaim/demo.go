package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
	"github.com/reclaim-sol/reclaim/backend/config"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/pkg/redact"
)

// demoFile is what `reclaim demo` writes beside the data, for `make
// example` and the person following the README.
type demoFile struct {
	ProjectID  string `json:"projectId"`
	APIKey     string `json:"apiKey"`
	Wallet     string `json:"wallet"`
	WalletFile string `json:"walletFile"`
	Origin     string `json:"origin"`
	ReclaimURL string `json:"reclaimUrl"`
	// ConsoleEmail and ConsolePassword sign in to the console as the
	// demo project's owner.
	ConsoleEmail    string `json:"consoleEmail,omitempty"`
	ConsolePassword string `json:"consolePassword,omitempty"`
	// SolanaRPCURL is the cluster the wallet is on (the sample app's
	// explorer links point there).
	SolanaRPCURL string `json:"solanaRpcUrl,omitempty"`
}

// demo sets up a local demonstration: a wallet funded by airdrop on the
// cluster (the local validator) with a realistic mix of reclaimable items,
// a project with a donation wallet, an API key and the sample app's origin;
// it writes the wallet's keypair and demo.json into the data directory and
// prints what to do next.
func demo(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	fs := storeFlags("demo", &cfg)
	fs.StringVar(&cfg.SolanaRPCURL, "solana-rpc-url", cfg.SolanaRPCURL, "the local validator (SOLANA_RPC_URL)")
	sample, err := sampleAppOrigin(getenv)
	if err != nil {
		return err
	}
	origin := fs.String("origin", sample, "the sample app's origin, allowed for the project (SAMPLE_APP_PORT)")
	reclaimURL := fs.String("reclaim-url", "http://"+cfg.Addr, "where reclaim serve listens (RECLAIM_ADDR)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if _, err := project.ValidateOrigin(*origin); err != nil {
		return usageError{"demo: --origin: " + err.Error()}
	}
	chain := demoChain{rpc: rpc.New(cfg.SolanaRPCURL)}
	if _, err := chain.rpc.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed); err != nil {
		return fmt.Errorf("demo: the cluster at %s does not answer (start it with make validator): %w", redact.URL(cfg.SolanaRPCURL), err)
	}
	wallet, err := solana.NewRandomPrivateKey()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Setting up wallet %s on %s…\n", wallet.PublicKey(), redact.URL(cfg.SolanaRPCURL))
	items, err := seedWallet(ctx, chain, wallet)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	donation, err := solana.NewRandomPrivateKey()
	if err != nil {
		return err
	}
	// A donation goes to an account that must stay rent-exempt.
	if err := chain.airdrop(ctx, donation.PublicKey(), solana.LAMPORTS_PER_SOL); err != nil {
		return fmt.Errorf("demo: %w", err)
	}

	e, err := open(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer e.db.Close()
	// A new project each run, owned by the console account an earlier
	// demo made (its sign-in is in demo.json), or a new one.
	prev, _, _ := readDemo(cfg.DataDir)
	prev.ProjectID, prev.APIKey = "", ""
	out, err := seedAccounts(ctx, e, prev, *origin, func() (string, error) { return donation.PublicKey().String(), nil })
	if err != nil {
		return err
	}
	out.Wallet, out.WalletFile, out.ReclaimURL = wallet.PublicKey().String(), filepath.Join(cfg.DataDir, "demo-wallet.json"), *reclaimURL
	out.SolanaRPCURL = cfg.SolanaRPCURL
	if err := writeDemoFiles(cfg.DataDir, wallet, out); err != nil {
		return err
	}
	printNextSteps(stdout, out, items, donation.PublicKey())
	return nil
}

// seedWallet funds wallet and gives it empty token accounts under both
// token programs, token balances, an NFT and wrapped SOL; it returns them
// as lines to print.
func seedWallet(ctx context.Context, c demoChain, wallet solana.PrivateKey) ([]string, error) {
	issuer, err := solana.NewRandomPrivateKey()
	if err != nil {
		return nil, err
	}
	for _, k := range []solana.PrivateKey{wallet, issuer} {
		if err := c.airdrop(ctx, k.PublicKey(), 10*solana.LAMPORTS_PER_SOL); err != nil {
			return nil, err
		}
	}
	type mintSpec struct {
		label    string
		program  solana.PublicKey
		decimals uint8
		amount   uint64 // minted to the wallet; 0 leaves its account empty
	}
	specs := []mintSpec{
		{"token balance (SPL Token, 1.5 tokens)", solana.TokenProgramID, 6, 1_500_000},
		{"empty account (SPL Token)", solana.TokenProgramID, 6, 0},
		{"empty account (SPL Token)", solana.TokenProgramID, 2, 0},
		{"NFT (decimals 0, supply 1)", solana.TokenProgramID, 0, 1},
		{"token balance (Token-2022, 2 tokens)", solana.Token2022ProgramID, 9, 2_000_000_000},
		{"empty account (Token-2022)", solana.Token2022ProgramID, 9, 0},
	}
	owner := wallet.PublicKey()
	var atas, mints []solana.Instruction
	var mintKeys []solana.PrivateKey
	var lines []string
	for _, s := range specs {
		m, err := solana.NewRandomPrivateKey()
		if err != nil {
			return nil, err
		}
		ixs, err := c.createMint(ctx, issuer.PublicKey(), m.PublicKey(), s.program, issuer.PublicKey(), s.decimals)
		if err != nil {
			return nil, err
		}
		mintKeys = append(mintKeys, m)
		mints = append(mints, ixs...)
		atas = append(atas, spltoken.CreateAssociatedTokenAccount(issuer.PublicKey(), owner, m.PublicKey(), s.program, true))
		lines = append(lines, fmt.Sprintf("%-38s %s", s.label, spltoken.AssociatedTokenAddress(owner, m.PublicKey(), s.program)))
	}
	// Three mints per transaction keeps each well under 1232 bytes.
	for i := 0; i < len(specs); i += 3 {
		if err := c.send(ctx, issuer, mints[2*i:2*i+6], mintKeys[i:i+3]...); err != nil {
			return nil, fmt.Errorf("create mints: %w", err)
		}
	}
	native := solana.SolMint
	atas = append(atas, spltoken.CreateAssociatedTokenAccount(issuer.PublicKey(), owner, native, solana.TokenProgramID, true))
	if err := c.send(ctx, issuer, atas); err != nil {
		return nil, fmt.Errorf("create token accounts: %w", err)
	}
	var minted []solana.Instruction
	for i, s := range specs {
		if s.amount > 0 {
			m := mintKeys[i].PublicKey()
			minted = append(minted, spltoken.MintToChecked(s.program, m, spltoken.AssociatedTokenAddress(owner, m, s.program), issuer.PublicKey(), s.amount, s.decimals))
		}
	}
	if err := c.send(ctx, issuer, minted); err != nil {
		return nil, fmt.Errorf("mint: %w", err)
	}
	wsol := spltoken.AssociatedTokenAddress(owner, native, solana.TokenProgramID)
	wrap := []solana.Instruction{
		system.NewTransferInstruction(50_000_000, owner, wsol).Build(),
		spltoken.SyncNative(solana.TokenProgramID, wsol),
	}
	if err := c.send(ctx, wallet, wrap); err != nil {
		return nil, fmt.Errorf("wrap SOL: %w", err)
	}
	return append(lines, fmt.Sprintf("%-38s %s", "wrapped SOL (0.05 SOL)", wsol)), nil
}

// writeDemoFiles writes the wallet's keypair (solana-keygen's format) and
// demo.json, both readable by their owner only: they hold secrets.
func writeDemoFiles(dir string, wallet solana.PrivateKey, out demoFile) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ints := make([]int, len(wallet))
	for i, b := range wallet {
		ints[i] = int(b)
	}
	keypair, _ := json.Marshal(ints)
	if err := os.WriteFile(out.WalletFile, keypair, 0o600); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(out, "", "  ") //nolint:gosec // G117: demo.json hands the demo's API key to its owner, mode 0600
	return os.WriteFile(filepath.Join(dir, "demo.json"), append(b, '\n'), 0o600)
}

func printNextSteps(w io.Writer, d demoFile, items []string, donation solana.PublicKey) {
	fmt.Fprintf(w, `
Demo ready.
  wallet    %s (keypair in %s: a throwaway key, local validator only)
  items     %s
  project   %s, donations to %s
  API key   %s (shown once; also in demo.json beside it)
  origin    %s (allowed to call Reclaim from a browser)
  console   %s/admin/ (sign in as %s, password %s)

Next:
  1. make example          # the sample app on %s (its backend holds the API key;
                           # a running one switches to this wallet and key)
  2. open %s, click "Connect Demo wallet", "Select all reclaimable",
     "Build transactions", then "Sign and submit": the wallet's balance rises by
     the "You receive" amount, and the project's stats count the transactions.

Or by hand:
  curl -s %s/v1/sessions -H "X-Api-Key: %s" -H 'Content-Type: application/json' \
    -d '{"walletAddress":"%s"}'
  The API reference: %s/docs
`, d.Wallet, d.WalletFile, strings.Join(items, "\n            "), d.ProjectID, donation, d.APIKey, d.Origin, d.ReclaimURL, d.ConsoleEmail, d.ConsolePassword,
		d.Origin, d.Origin, d.ReclaimURL, d.APIKey, d.Wallet, d.ReclaimURL)
}
