package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/e2e/harness"
)

// TestDeployment proves deploy/compose.yaml, the production topology on one
// machine: Postgres, Redis, two reclaim instances built from the Dockerfile
// behind HAProxy, and the validator. Everything goes through the balancer,
// as clients would: the reclaim flow; 200 concurrent submits of 10 tickets
// sent once each; an instance killed with SIGKILL mid-flow and restarted,
// with every transaction confirmed and counted once; one rate limit across
// the instances; a revoked key refused by both; the trackers' calls to the
// cluster the same with one, two and three instances; and two clients
// behind the balancer limited apart (its X-Forwarded-For).
func TestDeployment(t *testing.T) {
	// Every request of the test comes from one address (the balancer's, or
	// this host's through a trusted balancer), and some steps poll as fast
	// as they can: the client address's bucket would refuse them. Every
	// ticket is the one test wallet's, so a wallet may spend its project's
	// whole quota; the projects keep the default quota (the rate-limit
	// step gives its own project a small one and floods it).
	tp := startTopology(t, "RECLAIM_RATE_LIMIT_IP_RPS=1000000", "RECLAIM_RATE_LIMIT_IP_BURST=1000000",
		"RECLAIM_RATE_LIMIT_WALLET_SHARE=100")
	v := tp.v
	donation := v.NewWallet(t, solana.LAMPORTS_PER_SOL).PublicKey()
	projectID := tp.cli("project", "create", "--name", "deployment", "--donation-wallet", donation.String())
	s := &service{t: t, url: tp.lb, apiKey: tp.cli("apikey", "create", "--project", projectID), projectID: projectID, donation: donation}
	d := &deployment{tp: tp, s: s}
	d.owner, d.accounts = emptyAccounts(t, v, 90)

	t.Run("reclaim flow", d.reclaimFlow)
	t.Run("concurrent submits", d.concurrentSubmits)
	t.Run("instance killed mid-flow", d.killedMidFlow)
	t.Run("rate limit across instances", d.rateLimit)
	t.Run("revoked key", d.revokedKey)
	t.Run("tracker calls by instance count", d.trackerCalls)
	t.Run("clients behind the balancer limited apart", d.clientsApart)
}

// deployment is what the steps of TestDeployment share: one project and one
// wallet whose empty accounts each step takes its own slice of, and what
// the ledger must count.
type deployment struct {
	tp       *topology
	s        *service
	owner    solana.PrivateKey
	accounts []solana.PublicKey
	next     int // the first account no step took yet
	// count and net are what stats must report once every landed
	// transaction is confirmed.
	count, net uint64
}

// emptyAccounts returns a funded wallet with n empty token accounts, made
// in a few batched transactions.
func emptyAccounts(t *testing.T, v *harness.Validator, n int) (solana.PrivateKey, []solana.PublicKey) {
	t.Helper()
	owner := v.NewWallet(t, 10*solana.LAMPORTS_PER_SOL)
	mints := v.CreateMints(t, owner, harness.MintSpec{Decimals: 6}, n)
	return owner, v.CreateATAs(t, owner, owner.PublicKey(), mints)
}

// ticket is one built transaction, signed, with the session that submits it.
type ticket struct {
	signed  signedTx
	sig     string
	net     uint64
	session string
}

// tickets builds n one-transaction tickets of two accounts each, through the
// balancer (so by both instances), each with an API key and a session of its
// own, and signs them. The project's keys and sessions share its quota (400
// at once by default), and a step sends up to 22 requests for one ticket at once.
func (d *deployment) tickets(t *testing.T, n int) []ticket {
	t.Helper()
	// The keys first: each is a command run in a container (a second or
	// more on a busy machine), and a ticket built before twenty of them
	// would be near the end of its blockhash's minute when submitted.
	keys := make([]string, n)
	for i := range keys {
		keys[i] = d.tp.cli("apikey", "create", "--project", d.s.projectID)
	}
	out := make([]ticket, n)
	for i := range out {
		accts := d.accounts[d.next : d.next+2]
		d.next += 2
		token := d.s.sessionOf(keys[i], d.owner.PublicKey())
		b := d.s.build(t, d.owner.PublicKey(), token, map[string]any{"items": closeAll(accts), "donationPercentage": 0.1, "priorityFeeLevel": "none"})
		if len(b.Transactions) != 1 {
			t.Fatalf("built %d transactions for two accounts", len(b.Transactions))
		}
		b64 := signTx(t, b.Transactions[0].TransactionBase64, d.owner)
		tx, err := solana.TransactionFromBase64(b64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = ticket{signed: signedTx{TransactionBase64: b64, SubmissionTicket: b.Transactions[0].SubmissionTicket},
			sig: tx.Signatures[0].String(), net: b.Transactions[0].NetRebate, session: token}
	}
	return out
}

// submit submits tk once through the balancer and returns the answer and
// its one result.
func (d *deployment) submit(ctx context.Context, tk ticket) (answer, submitResult, error) {
	a, err := d.tp.do(ctx, "POST", "/v1/wallet/"+d.owner.PublicKey().String()+"/transactions/submit",
		bearerOf(tk.session), map[string]any{"signed": []signedTx{tk.signed}})
	if err != nil || a.status != 200 {
		return a, submitResult{}, err
	}
	var res struct{ Results []submitResult }
	if err := json.Unmarshal(a.body, &res); err != nil || len(res.Results) != 1 {
		return a, submitResult{}, fmt.Errorf("submit answer %s: %w", a.body, err)
	}
	return a, res.Results[0], nil
}

// counted waits until stats count what the steps so far landed, exactly.
func (d *deployment) counted(t *testing.T, landed []ticket) {
	t.Helper()
	sigs := make([]string, len(landed))
	for i, tk := range landed {
		sigs[i] = tk.sig
		d.count++
		d.net += tk.net
	}
	waitConfirmed(t, d.tp.v, sigs)
	var st map[string]uint64
	waitFor(t, "stats count every transaction", time.Minute, func() bool {
		d.s.call("GET", "/v1/stats", d.s.key(), nil, &st)
		return st["totalTransactionCount"] >= d.count
	})
	if st["totalTransactionCount"] != d.count || st["totalNetRebate"] != d.net {
		t.Fatalf("stats %v, want %d transactions and %d lamports net", st, d.count, d.net)
	}
}

// reclaimFlow lists the wallet, builds six of its accounts, signs, submits,
// and the transaction lands and is counted, all through the balancer.
func (d *deployment) reclaimFlow(t *testing.T) {
	s, owner := d.s, d.owner.PublicKey()
	token := s.session(owner)
	var l listing
	if code := s.call("GET", "/v1/wallet/"+owner.String()+"/assets", bearerOf(token), nil, &l); code != 200 {
		t.Fatalf("assets: %d", code)
	}
	if l.Counts["empty_account"] != len(d.accounts) {
		t.Fatalf("counts %v, want %d empty accounts", l.Counts, len(d.accounts))
	}
	accts := d.accounts[d.next : d.next+6]
	d.next += 6
	b := s.build(t, owner, token, map[string]any{"items": closeAll(accts), "donationPercentage": 0.1})
	before := d.tp.v.Balance(t, owner)
	var landed []ticket
	for _, tx := range b.Transactions {
		signed := signTx(t, tx.TransactionBase64, d.owner)
		r := s.submit(t, owner, token, signedTx{TransactionBase64: signed, SubmissionTicket: tx.SubmissionTicket})[0]
		if r.Status != "submitted" || r.Signature == nil {
			t.Fatalf("submit: %+v", r)
		}
		landed = append(landed, ticket{sig: *r.Signature, net: tx.NetRebate})
	}
	d.counted(t, landed)
	if got := d.tp.v.Balance(t, owner) - before; got != b.Totals.NetRebate {
		t.Fatalf("the wallet rose by %d lamports, the build promised %d", got, b.Totals.NetRebate)
	}
}

// concurrentSubmits submits each of 10 tickets 20 times at once: 200
// requests spread over both instances; each ticket is sent once.
func (d *deployment) concurrentSubmits(t *testing.T) {
	const perTicket = 20
	tks := d.tickets(t, 10)
	metrics := d.tp.metricsURLs(2)
	sends := d.sends(metrics)
	answers := make([][]answer, len(tks))
	results := make([][]submitResult, len(tks))
	errs := make(chan error, len(tks)*perTicket)
	var wg sync.WaitGroup
	for i := range tks {
		answers[i], results[i] = make([]answer, perTicket), make([]submitResult, perTicket)
		for j := range perTicket {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, r, err := d.submit(t.Context(), tks[i])
				if err == nil && a.status != 200 {
					err = fmt.Errorf("submit: %d %s", a.status, a.body)
				}
				if err != nil {
					errs <- err
				}
				answers[i][j], results[i][j] = a, r
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	by := map[string]int{}
	for i, rs := range results {
		statuses := map[string]int{}
		for j, r := range rs {
			statuses[r.Status]++
			by[answers[i][j].instance]++
			if r.Signature == nil || *r.Signature != tks[i].sig {
				t.Fatalf("ticket %d: result %+v, want signature %s", i, r, tks[i].sig)
			}
		}
		if statuses["submitted"] != 1 || statuses["duplicate"] != perTicket-1 {
			t.Fatalf("ticket %d: %v, want one submitted and %d duplicates", i, statuses, perTicket-1)
		}
	}
	if len(by) != 2 {
		t.Fatalf("answers by instance %v, want both instances", by)
	}
	if sent := d.sends(metrics) - sends; sent != float64(len(tks)) {
		t.Fatalf("the instances sent %v transactions, want %d", sent, len(tks))
	}
	t.Logf("200 submits of 10 tickets answered by %v; 10 sent", by)
	d.counted(t, tks)
}

// sends is how many sendTransaction calls the instances of metrics made
// for the API.
func (d *deployment) sends(metrics []string) float64 {
	return d.tp.metric(metrics, "reclaim_jsonrpc_call_duration_seconds_count", `caller="api"`, `method="sendTransaction"`)
}
