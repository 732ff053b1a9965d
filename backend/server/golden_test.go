package server_test

// TestGoldenAnswers guards what a client receives. It runs one fixed flow
// (sessions, listings, builds, submits, stats, leaderboards, the wallet
// stream) and a catalogue of every error answer the API gives today (bad
// bodies, queries, paths, credentials, limits, outages, CORS), over REST
// (JSON), Connect (JSON and binary protobuf), gRPC, the Connect server
// stream and the WebSocket, and compares each answer (status, headers,
// trailers, body) with testdata/golden/<section>.golden. A refactoring
// (issue 20: one error vocabulary, a REST front door that parses once,
// folders moved, typed values at the domain's edge) must leave every file
// unchanged.
//
// Regenerate with
//
//	go test ./backend/server -run TestGoldenAnswers -update
//
// only for a deliberate, reviewed change of the contract (a new field, a
// reworded message that a decision records), never to make a refactoring
// pass: review the diff of testdata/golden as the change a client sees. A
// new case changes the files after it too (placeholder numbers, rate-limit
// counts): review those lines as moved, not changed.
//
// Determinism: keys, wallets, accounts, projects and API keys come from
// fixed seeds and ids (golden_wallet_test.go), time from the env's settable
// clock, rate limits from limiters whose clock never moves (so
// X-RateLimit-Remaining counts each API key's requests, its sessions'
// included). What still
// differs between runs or builds is normalized (golden_render_test.go): the
// tokens (a random jti) become numbered placeholders, protobuf-go's space
// after "proto:" a space; JSON is compared without whitespace outside
// strings (protojson varies it per build) and binary protobuf after
// re-encoding deterministically (connect-go writes maps in random order).
// Headers left out: Date, X-Request-Id, Content-Length, Sec-WebSocket-Accept.
// No sleeps: every request is answered before the next is sent.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"net/http"
	"testing"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/ticket"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden (TestGoldenAnswers)")

// The owner's wallet: each kind of item the listing tells apart.
var ownerAccounts = []goldenAccount{
	{label: "empty", program: solana.TokenProgramID},
	{label: "empty 2022", program: solana.Token2022ProgramID},
	{label: "token", program: solana.TokenProgramID, amount: 1_234_000},
	{label: "token 2022", program: solana.Token2022ProgramID, amount: 5},
	{label: "nft", program: solana.TokenProgramID, amount: 1, nft: true},
	{label: "nft 2022", program: solana.Token2022ProgramID, amount: 1, nft: true},
	{label: "frozen", program: solana.TokenProgramID, amount: 7, frozen: true},
	{label: "wrapped sol", program: solana.TokenProgramID, amount: wrappedSOLAmount, native: true},
}

// flow is the state the sections hand on: who is who, and what was built.
type flow struct {
	owner, other             solana.PublicKey
	key, noDonation, revoked gcred
	// sessions of the owner: all scopes, then each lacking one scope.
	session, otherSession, revokedSession gcred
	lacking                               map[string]gcred
	built                                 map[wire]*reclaimv1.BuildTransactionsResponse
	spare, otherBuilt                     *reclaimv1.BuildTransactionsResponse
}

func TestGoldenAnswers(t *testing.T) {
	cluster := newGoldenCluster(t)
	f := &flow{owner: cluster.owner, other: seededAddress("other wallet"), lacking: map[string]gcred{},
		built: map[wire]*reclaimv1.BuildTransactionsResponse{}}
	cluster.add(f.owner, ownerAccounts...)
	cluster.add(f.other, goldenAccount{label: "other empty", program: solana.TokenProgramID})
	e := goldenEnv(t, cluster.url, 10_000)
	goldenProject(t, e, "prj_golden", seededAddress("donation wallet").String())
	goldenProject(t, e, "prj_nodonation", "")
	goldenKey(t, e, "prj_golden", "revoked")
	f.key, f.noDonation, f.revoked = keyCred("prj_golden"), keyCred("prj_nodonation"), keyCred("revoked")

	rest, h2 := goldenClients()
	g := newGolden(e, rest, h2, newNormalizer(), new(string))
	g.section(t, "sessions", f.sessions)
	g.section(t, "assets", f.assets)
	g.section(t, "build", f.build)
	g.section(t, "submit", func(g *golden) { f.submit(g, cluster) })
	g.section(t, "stats", f.stats)
	g.section(t, "leaderboard", f.leaderboard)
	g.section(t, "stream", f.stream)
	f.errors(t, g)
	goldenOutages(t, g)
	goldenCORS(t, g)
	g.section(t, "summary", func(g *golden) { f.summary(g, cluster) })
	goldenIdempotency(t, g, f)
	// Sections added after the contract's first recording come last, so
	// that the answers recorded before stay byte for byte (their rate-limit
	// counts and token numbers).
	g.section(t, "submissions", f.submissions)
}

func keyCred(name string) gcred {
	key := goldenAPIKey(name)
	return gcred{label: "api key " + name, set: func(h http.Header) { h.Set("X-Api-Key", key) }}
}

func (g *golden) sessionCred(token string) gcred {
	return gcred{label: "session " + g.norm.token(token), set: func(h http.Header) { h.Set("Authorization", "Bearer "+token) }}
}

// jsonOf is v as JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newSession creates a session over REST and returns it as a credential.
func (g *golden) newSession(name string, key gcred, body map[string]any) gcred {
	g.t.Helper()
	a := g.send(call{name: name, op: opSession, body: jsonOf(g.t, body), cred: key, wires: restJSON})[restJSON]
	var resp reclaimv1.CreateSessionResponse
	a.decode(g.t, restJSON, &resp)
	return g.sessionCred(resp.GetToken())
}

func (f *flow) sessions(g *golden) {
	owner := f.owner.String()
	answers := g.send(call{name: "create a session with the defaults", op: opSession, cred: f.key, wires: allWires,
		body: jsonOf(g.t, map[string]any{"walletAddress": owner})})
	var resp reclaimv1.CreateSessionResponse
	answers[restJSON].decode(g.t, restJSON, &resp)
	f.session = g.sessionCred(resp.GetToken())
	g.send(call{name: "create a session of 3600 s with chosen scopes", op: opSession, cred: f.key, wires: allWires,
		body: jsonOf(g.t, map[string]any{"walletAddress": owner, "ttlSeconds": 3600,
			"scopes": []string{"transactions:build", "wallet:read", "wallet:read"}})})
	g.send(call{name: "create a session, Content-Type with charset", op: opSession, cred: f.key, wires: jsonWires,
		header: map[string]string{"Content-Type": "application/json; charset=utf-8"}, body: jsonOf(g.t, map[string]any{"walletAddress": owner, "scopes": []string{}})})
	f.otherSession = g.newSession("create a session of another wallet", f.key, map[string]any{"walletAddress": f.other.String()})
	f.revokedSession = g.newSession("create a session with the key revoked later", f.revoked, map[string]any{"walletAddress": owner})
	all := []string{"wallet:read", "wallet:stream", "transactions:build", "transactions:submit"}
	for _, scope := range all {
		var rest []string
		for _, s := range all {
			if s != scope {
				rest = append(rest, s)
			}
		}
		f.lacking[scope] = g.newSession("create a session without "+scope, f.key, map[string]any{"walletAddress": owner, "scopes": rest})
	}
}

func (f *flow) assets(g *golden) {
	owner := f.owner.String()
	g.send(call{name: "list the wallet with the API key", op: opAssets, address: owner, cred: f.key, wires: allWires})
	g.send(call{name: "list the wallet with a session", op: opAssets, address: owner, cred: f.session, wires: jsonWires})
	cursor := ""
	for page := 1; ; page++ {
		query := "limit=3"
		if cursor != "" {
			query += "&cursor=" + cursor
		}
		answers := g.send(call{name: "list page " + string(rune('0'+page)) + " of 3 items", op: opAssets, address: owner,
			query: query, cred: f.key, wires: allWires})
		var resp reclaimv1.ListAssetsResponse
		answers[restJSON].decode(g.t, restJSON, &resp)
		if cursor = resp.GetNextCursor(); cursor == "" {
			break
		}
	}
	g.send(call{name: "list another wallet", op: opAssets, address: f.other.String(), cred: f.key, wires: jsonWires})
	g.send(call{name: "list a wallet without token accounts", op: opAssets, address: seededAddress("empty wallet").String(),
		cred: f.key, wires: jsonWires})
}

// selection is what the owner builds: every item that offers an action.
func (f *flow) selection() []map[string]string {
	sel := []map[string]string{
		{"type": "empty_account", "address": seededAddress("empty").String(), "action": "close"},
		{"type": "empty_account", "address": seededAddress("empty 2022").String(), "action": "close"},
		{"type": "token", "address": seededAddress("token").String(), "action": "burn"},
		{"type": "token", "address": seededAddress("token 2022").String(), "action": "burn"},
		{"type": "nft", "address": seededAddress("nft").String(), "action": "burn"},
		{"type": "nft", "address": seededAddress("nft 2022").String(), "action": "burn"},
		{"type": "token", "address": seededAddress("wrapped sol").String(), "action": "close"},
	}
	return sel
}

func (f *flow) buildOne(g *golden, name string, w wire, address string, cred gcred, body map[string]any) *reclaimv1.BuildTransactionsResponse {
	g.t.Helper()
	a := g.send(call{name: name, op: opBuild, address: address, cred: cred, wires: w, body: jsonOf(g.t, body)})[w]
	resp := &reclaimv1.BuildTransactionsResponse{}
	a.decode(g.t, w, resp)
	return resp
}

func (f *flow) build(g *golden) {
	owner := f.owner.String()
	// Each wire builds the selection with its own donation, so that each
	// gets transactions of its own to submit.
	f.built[restJSON] = f.buildOne(g, "build with donation 0.1 and priority high", restJSON, owner, f.key,
		map[string]any{"items": f.selection(), "donationPercentage": 0.1, "priorityFeeLevel": "high"})
	f.built[connectJSON] = f.buildOne(g, "build with donation 0.25 and priority medium", connectJSON, owner, f.key,
		map[string]any{"items": f.selection(), "donationPercentage": 0.25, "priorityFeeLevel": "medium"})
	f.built[connectProto] = f.buildOne(g, "build with donation 0.5 and priority low", connectProto, owner, f.session,
		map[string]any{"items": f.selection(), "donationPercentage": 0.5, "priorityFeeLevel": "low"})
	f.built[grpcProto] = f.buildOne(g, "build without donation, priority none", grpcProto, owner, f.key,
		map[string]any{"items": f.selection(), "priorityFeeLevel": "none"})
	f.spare = f.buildOne(g, "build with donation 0.3 and the default priority", restJSON, owner, f.session,
		map[string]any{"items": f.selection(), "donationPercentage": 0.3})
	f.otherBuilt = f.buildOne(g, "build for another wallet", restJSON, f.other.String(), f.key,
		map[string]any{"items": []map[string]string{{"type": "empty_account", "address": seededAddress("other empty").String(), "action": "close"}}})
	g.send(call{name: "build with a project without donation wallet, no donation", op: opBuild, address: owner, cred: f.noDonation,
		wires: jsonWires, body: jsonOf(g.t, map[string]any{"items": f.selection()[:1], "donationPercentage": 0})})
}

// entry is one entry of a submit body.
type entry struct {
	TransactionBase64 string `json:"transactionBase64"`
	SubmissionTicket  string `json:"submissionTicket"`
}

// signed is tx signed by key.
func signed(t *testing.T, tx string, key solana.PrivateKey) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(tx)
	if err != nil {
		t.Fatal(err)
	}
	stx, err := solana.TransactionFromDecoder(bin.NewBinDecoder(raw))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &key }); err != nil {
		t.Fatal(err)
	}
	out, err := stx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(out)
}

// signedAll is every transaction of b signed by key, with its ticket.
func signedAll(t *testing.T, b *reclaimv1.BuildTransactionsResponse, key solana.PrivateKey) []entry {
	t.Helper()
	var out []entry
	for _, tx := range b.GetTransactions() {
		out = append(out, entry{signed(t, tx.GetTransactionBase64(), key), tx.GetSubmissionTicket()})
	}
	return out
}

func submitBody(t *testing.T, entries ...entry) string {
	return jsonOf(t, map[string]any{"signed": entries})
}

func (f *flow) submit(g *golden, cluster *goldenCluster) {
	t, owner, key := g.t, f.owner.String(), seeded("owner")
	for _, w := range []wire{restJSON, connectJSON, connectProto, grpcProto} {
		g.send(call{name: "submit what was built", op: opSubmit, address: owner, cred: f.key, wires: w,
			body: submitBody(t, signedAll(t, f.built[w], key)...)})
	}
	rest := signedAll(t, f.built[restJSON], key)
	g.send(call{name: "submit again: duplicates", op: opSubmit, address: owner, cred: f.session, wires: allWires,
		body: submitBody(t, rest...)})
	g.send(call{name: "submit another wallet's transaction", op: opSubmit, address: f.other.String(), cred: f.otherSession,
		wires: restJSON, body: submitBody(t, signedAll(t, f.otherBuilt, seeded("other wallet"))...)})

	spare := f.spare.GetTransactions()
	spareSigned := signedAll(t, f.spare, key)
	g.send(call{name: "submit entries that fail one by one", op: opSubmit, address: owner, cred: f.key, wires: allWires,
		body: submitBody(t,
			entry{rest[0].TransactionBase64, "not-a-ticket"},                       // INVALID_TICKET
			entry{rest[0].TransactionBase64, spare[0].GetSubmissionTicket()},       // HASH_MISMATCH
			entry{spare[1].GetTransactionBase64(), spare[1].GetSubmissionTicket()}, // SIGNATURE_INVALID: not signed
			entry{"AQID", spare[2].GetSubmissionTicket()},                          // INVALID_TRANSACTION
			rest[1], // duplicate
		)})
	g.send(call{name: "submit a ticket of another wallet", op: opSubmit, address: f.other.String(), cred: f.key, wires: jsonWires,
		body: submitBody(t, spareSigned[0])})
	g.send(call{name: "submit a ticket of another project", op: opSubmit, address: owner, cred: f.noDonation, wires: jsonWires,
		body: submitBody(t, spareSigned[0])})
	cluster.refuseSend.Store(true)
	g.send(call{name: "submit to a cluster that refuses the transaction", op: opSubmit, address: owner, cred: f.key, wires: allWires,
		body: submitBody(t, spareSigned[0])})
	cluster.refuseSend.Store(false)
	g.e.clock.Advance(61 * time.Second) // past the tickets' minute
	g.send(call{name: "submit after the tickets expired", op: opSubmit, address: owner, cred: f.key, wires: allWires,
		body: submitBody(t, spareSigned[0], rest[2])})
}

// confirm settles the submitted transactions of builds as the tracker
// does once they land as promised, so that stats and leaderboards count
// them (the gRPC build's stay submitted: not counted).
func (f *flow) confirm(g *golden, builds ...*reclaimv1.BuildTransactionsResponse) {
	g.t.Helper()
	issuer := ticket.NewIssuer(g.e.keys)
	for _, b := range builds {
		for _, tx := range b.GetTransactions() {
			c, err := issuer.Verify(tx.GetSubmissionTicket())
			if err != nil {
				g.t.Fatal(err)
			}
			landed := ledger.Figures{GrossRebate: int64(c.GrossRebate), NetRebate: c.NetRebate,
				DonationAmount: int64(c.DonationAmount), NetworkFee: int64(c.NetworkFee), ServiceFee: int64(c.ServiceFee)}
			if ok, err := g.e.store.ConfirmEntry(context.Background(), c.ID, landed, 0, g.e.clock.Now()); err != nil || !ok {
				g.t.Fatalf("confirm %s: %v %v", g.norm.token(tx.GetSubmissionTicket()), ok, err)
			}
		}
	}
	g.out.WriteString("# The transactions of the REST, Connect JSON and Connect proto builds and the other wallet's\n" +
		"# are confirmed as promised; the gRPC build's stay submitted.\n\n")
}

func (f *flow) stats(g *golden) {
	f.confirm(g, f.built[restJSON], f.built[connectJSON], f.built[connectProto], f.otherBuilt)
	g.send(call{name: "stats with the API key", op: opStats, cred: f.key, wires: allWires})
	g.send(call{name: "stats with a session", op: opStats, cred: f.lacking["transactions:submit"], wires: jsonWires})
	g.send(call{name: "stats of a project without transactions", op: opStats, cred: f.noDonation, wires: jsonWires})
}

func (f *flow) leaderboard(g *golden) {
	g.send(call{name: "leaderboard", op: opLeaderboard, cred: f.key, wires: allWires})
	g.send(call{name: "leaderboard with a session", op: opLeaderboard, cred: f.session, wires: jsonWires})
	for _, q := range []string{
		"payer=" + f.owner.String(),
		"transactionType=token_burn",
		"startDate=2026-11-21&endDate=2026-11-22",
		"startDate=2026-11-21T12:00:30Z&endDate=2026-11-21T13:00:00Z",
		"limit=1&offset=1",
		"startDate=2027-01-01",
	} {
		g.send(call{name: "leaderboard ?" + q, op: opLeaderboard, query: q, cred: f.key, wires: jsonWires})
	}
	g.send(call{name: "leaderboard of a project without transactions", op: opLeaderboard, cred: f.noDonation, wires: allWires})
}
