package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
	"github.com/reclaim-sol/reclaim/e2e/reclaimd"
)

// The e2e suite runs the real reclaim binary against the validator: the
// wiring of `reclaim serve` (discovery, building, tickets, relay, tracker) is
// what is tested, through its HTTP API.

// service is one reclaim process with a project (with a funded donation
// wallet) and an API key, and a funded treasury for a 500 bps service fee.
type service struct {
	t         *testing.T
	url       string
	server    *reclaimd.Server
	dataDir   string
	apiKey    string
	projectID string
	donation  solana.PublicKey
	treasury  solana.PublicKey
	env       []string
}

const serviceFeeBPS = 500

func startService(t *testing.T, v *harness.Validator, extraEnv ...string) *service {
	t.Helper()
	s := &service{t: t, dataDir: t.TempDir()}
	s.donation = v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
	s.treasury = v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
	s.env = append(os.Environ(),
		"RECLAIM_DATA_DIR="+s.dataDir, "RECLAIM_ADDR=127.0.0.1:0", "SOLANA_RPC_URL="+v.URL,
		"DATABASE_URL=", "REDIS_URL=", "RECLAIM_RATE_LIMIT_RPS=1000", "RECLAIM_RATE_LIMIT_BURST=1000",
		fmt.Sprintf("RECLAIM_SERVICE_FEE_BPS=%d", serviceFeeBPS), "RECLAIM_TREASURY_WALLET="+s.treasury.String())
	s.env = append(s.env, extraEnv...)
	s.projectID = s.cli("project", "create", "--name", "e2e", "--donation-wallet", s.donation.String())
	s.apiKey = s.cli("apikey", "create", "--project", s.projectID)
	s.server = s.serve()
	s.url = s.server.URL
	return s
}

// another starts a second instance on the same data (database and keys), as
// a second replica behind a load balancer would be; extraEnv is added to its
// environment (a later setting wins).
func (s *service) another(extraEnv ...string) *service {
	c := *s
	c.env = append(slices.Clone(s.env), extraEnv...)
	c.server = c.serve()
	c.url = c.server.URL
	return &c
}

// serve starts `reclaim serve`; E2E_SERVICE_LOG=1 copies its log to stderr.
func (s *service) serve() *reclaimd.Server {
	s.t.Helper()
	var echo io.Writer
	if os.Getenv("E2E_SERVICE_LOG") != "" {
		echo = os.Stderr
	}
	return reclaimd.Serve(s.t, s.env, echo)
}

func (s *service) cli(args ...string) string {
	s.t.Helper()
	return reclaimd.Run(s.t, s.env, "", args...)
}

// call sends a JSON request with a credential header and decodes the answer
// into out (when not nil); it returns the status.
func (s *service) call(method, path string, header [2]string, body, out any) int {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if header[0] != "" {
		req.Header.Set(header[0], header[1])
	}
	resp, err := restClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if out != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	} else if resp.StatusCode != 200 {
		s.t.Logf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode
}

func (s *service) key() [2]string { return [2]string{"X-Api-Key", s.apiKey} }

func bearerOf(token string) [2]string { return [2]string{"Authorization", "Bearer " + token} }

func (s *service) session(wallet solana.PublicKey) string {
	s.t.Helper()
	return s.sessionOf(s.apiKey, wallet)
}

// sessionOf mints a session for wallet with the API key apiKey.
func (s *service) sessionOf(apiKey string, wallet solana.PublicKey) string {
	s.t.Helper()
	var out struct{ Token string }
	if code := s.call("POST", "/v1/sessions", [2]string{"X-Api-Key", apiKey}, map[string]any{"walletAddress": wallet.String()}, &out); code != 200 {
		s.t.Fatalf("session: %d", code)
	}
	return out.Token
}

// The API's JSON shapes, as an integrator would declare them.
type walletItem struct {
	Type, Address, Mint, Name, TokenProgram string
	Lamports                                uint64
	Balance                                 string
	IsFrozen                                bool
	Actions                                 []string
}

type listing struct {
	WalletAddress string
	Items         []walletItem
	Counts        map[string]int
}

type selection struct {
	Type    string `json:"type"`
	Address string `json:"address"`
	Action  string `json:"action"`
}

type builtTx struct {
	TransactionBase64  string
	Includes           []selection
	GrossRebate        uint64
	RentRebate         uint64
	OwnBalanceRebate   uint64
	NetRebate          uint64
	DonationAmount     uint64
	ComputeUnitsNeeded uint64
	SubmissionTicket   string
	Destructive        bool
	Burns              []builtBurn
}

// builtBurn is what a built transaction says it destroys.
type builtBurn struct {
	Mint, Amount, Name, Symbol, Type, Address string
	Decimals                                  uint8
}

type built struct {
	Transactions         []builtTx
	RecentBlockhash      string
	LastValidBlockHeight uint64
	Totals               struct{ ItemCount, GrossRebate, RentRebate, OwnBalanceRebate, NetRebate, DonationAmount, Fees uint64 }
}

type signedTx struct {
	TransactionBase64 string `json:"transactionBase64"`
	SubmissionTicket  string `json:"submissionTicket"`
}

type submitResult struct {
	Signature *string
	Status    string
	Includes  []selection
	Error     *struct{ Code, Message string }
}

// signTx signs a built transaction with solana-go, as a Go wallet would.
func signTx(t *testing.T, b64 string, key solana.PrivateKey) string {
	t.Helper()
	tx, err := solana.TransactionFromBase64(b64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Sign(func(pk solana.PublicKey) *solana.PrivateKey {
		if pk.Equals(key.PublicKey()) {
			return &key
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// waitFor polls cond until it holds, failing after the deadline.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
