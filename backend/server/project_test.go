package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/storage"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// seed writes ledger rows: two wallets in the project, one in another
// project, and rows that must not count (submitted, failed).
func seed(t *testing.T, e *env) (alice, bob string) {
	t.Helper()
	alice, bob = newWallet(), newWallet()
	other := e.newProject("Other", "")
	day := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	rows := []struct {
		project, payer, typ  string
		status               ledger.Status
		gross, donation, fee int64
		at                   time.Time
	}{
		{e.project.ID, alice, ledger.TypeTokenAccountClosure, ledger.StatusConfirmed, 6_117_840_000, 611_784_000, 5000, day},
		{e.project.ID, alice, ledger.TypeNFTBurn, ledger.StatusConfirmed, 5_000_000_000, 0, 5000, day.AddDate(0, 0, 1)},
		{e.project.ID, bob, ledger.TypeTokenBurn, ledger.StatusConfirmed, 2_039_280, 203_928, 5000, day.AddDate(0, 0, 2)},
		{e.project.ID, bob, ledger.TypeTokenBurn, ledger.StatusSubmitted, 9_999_999, 0, 5000, day},
		{e.project.ID, bob, ledger.TypeTokenBurn, ledger.StatusFailed, 9_999_999, 0, 5000, day},
		{other.ID, bob, ledger.TypeTokenBurn, ledger.StatusConfirmed, 7_000_000_000, 0, 5000, day},
	}
	for i, r := range rows {
		at := r.at
		err := e.store.InsertEntry(context.Background(), ledger.Entry{
			ID: storage.NewID("tx"), ProjectID: r.project, Payer: r.payer, Type: r.typ,
			GrossRebate: r.gross, NetRebate: r.gross - r.fee - r.donation, DonationAmount: r.donation,
			NetworkFee: r.fee, Fees: r.fee, ItemCount: 1, Signature: "sig" + string(rune('a'+i)),
			TicketJTI: storage.NewID("jti"), Status: r.status, CreatedAt: at, ConfirmedAt: &at,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return alice, bob
}

func TestStatsREST(t *testing.T) {
	e := newEnv(t)
	seed(t, e)
	r := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	// Entries recorded without a rent (as before the split) count in
	// neither totalRentRebate nor totalOwnBalanceRebate.
	want := `{"totalDonationAmount":611987928,"totalDonations":2,"totalGrossRebate":11119879280,"totalNetRebate":10507876352,"totalOwnBalanceRebate":0,"totalRentRebate":0,"totalTransactionCount":3,"totalWallets":2}`
	if got := string(r.body); got != want {
		t.Fatalf("stats\n got %s\nwant %s", got, want)
	}
}

func TestStatsOfAnEmptyProjectHasEveryField(t *testing.T) {
	e := newEnv(t)
	m := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200).json()
	for _, k := range []string{"totalGrossRebate", "totalNetRebate", "totalTransactionCount", "totalWallets", "totalDonations", "totalDonationAmount"} {
		if v, ok := m[k].(float64); !ok || v != 0 {
			t.Fatalf("%s = %#v, want the number 0", k, m[k])
		}
	}
}

func TestLeaderboardREST(t *testing.T) {
	e := newEnv(t)
	alice, bob := seed(t, e)
	r := e.rest("GET", "/v1/leaderboard", apiKey(e.apiKey), nil).status(200)
	var entries []map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	if err := dec.Decode(&entries); err != nil {
		t.Fatalf("not a bare array: %v: %s", err, r.body)
	}
	if len(entries) != 2 || entries[0]["payer"] != alice || entries[1]["payer"] != bob {
		t.Fatalf("ranking %s", r.body)
	}
	first := entries[0]
	wantNumbers := map[string]string{
		"totalGrossRebate": "11117840000", "totalNetRebate": "10506046000", "totalTransactionCount": "2",
		"totalDonationAmount": "611784000", "totalDonationCount": "1", "totalCommunityAmount": "0",
	}
	for k, v := range wantNumbers {
		n, ok := first[k].(json.Number)
		if !ok || n.String() != v {
			t.Fatalf("%s = %#v, want the JSON number %s", k, first[k], v)
		}
	}
	counts := first["transactionTypeCounts"].(map[string]any)
	if len(counts) != len(ledger.Types) || counts["token_account_closure"] != json.Number("1") || counts["nft_burn"] != json.Number("1") || counts["token_burn"] != json.Number("0") {
		t.Fatalf("type counts %v", counts)
	}

	filters := []struct {
		query string
		want  []string
	}{
		{"payer=" + bob, []string{bob}},
		{"transactionType=nft_burn", []string{alice}},
		{"transactionType=token_burn", []string{bob}},
		{"startDate=2026-11-03", []string{bob}},
		{"endDate=2026-11-01", []string{alice}},
		{"startDate=2026-11-02&endDate=2026-11-02", []string{alice}},
		{"startDate=2026-11-01T10:00:01Z", []string{alice, bob}},
		{"limit=1", []string{alice}},
		{"limit=1&offset=1", []string{bob}},
		{"offset=2", nil},
	}
	for _, f := range filters {
		t.Run(f.query, func(t *testing.T) {
			e := e.with(t)
			var got []struct{ Payer string }
			r := e.rest("GET", "/v1/leaderboard?"+f.query, apiKey(e.apiKey), nil).status(200)
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(f.want) {
				t.Fatalf("got %s, want %v", r.body, f.want)
			}
			for i := range got {
				if got[i].Payer != f.want[i] {
					t.Fatalf("got %s, want %v", r.body, f.want)
				}
			}
		})
	}

	bad := []struct{ query, want string }{
		{"startDate=yesterday", `startDate "yesterday" is not an ISO 8601 date`},
		{"endDate=2026-02-30", "endDate"},
		{"startDate=2026-11-05&endDate=2026-11-01", "startDate"},
		{"transactionType=sol_transfer", "transactionType"},
		{"payer=not-a-wallet", "payer"},
		{"limit=0", "limit"},
		{"limit=1001", "limit"},
		{"limit=ten", "limit"},
		{"offset=-1", "offset"},
		{"color=blue", "color"},
	}
	for _, b := range bad {
		t.Run("rejects "+b.query, func(t *testing.T) {
			e := e.with(t)
			msg := e.rest("GET", "/v1/leaderboard?"+b.query, apiKey(e.apiKey), nil).restErr(400, "invalid_argument")
			if !strings.Contains(msg, b.want) {
				t.Fatalf("message %q, want %q", msg, b.want)
			}
		})
	}
}

func TestLeaderboardAndStatsOverConnectAndGRPC(t *testing.T) {
	e := newEnv(t)
	alice, _ := seed(t, e)
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "grpc": {connect.WithGRPC()}, "grpc-web": {connect.WithGRPCWeb()}} {
		t.Run(name, func(t *testing.T) {
			e := e.with(t)
			c := e.connectClients(opts...)
			lb, err := c.project.GetLeaderboard(context.Background(), withCred(&reclaimv1.GetLeaderboardRequest{}, apiKey(e.apiKey)))
			if err != nil {
				t.Fatal(err)
			}
			if len(lb.Msg.GetEntries()) != 2 || lb.Msg.GetEntries()[0].GetPayer() != alice || lb.Msg.GetEntries()[0].GetTotalGrossRebate() != 11_117_840_000 {
				t.Fatalf("leaderboard %v", lb.Msg)
			}
			bad := "2026/11/01"
			_, err = c.project.GetLeaderboard(context.Background(), withCred(&reclaimv1.GetLeaderboardRequest{StartDate: &bad}, apiKey(e.apiKey)))
			if code := connectCode(t, err); code != connect.CodeInvalidArgument {
				t.Fatalf("bad date: %v", err)
			}
			st, err := c.project.GetStats(context.Background(), withCred(&reclaimv1.GetStatsRequest{}, apiKey(e.apiKey)))
			if err != nil || st.Msg.GetTotalGrossRebate() != 11_119_879_280 || st.Msg.GetTotalWallets() != 2 {
				t.Fatalf("stats %v %v", st, err)
			}
		})
	}
	t.Run("connect JSON body equals REST for stats", func(t *testing.T) {
		e := e.with(t)
		rest := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
		conn := e.rest("POST", "/reclaim.v1.ProjectService/GetStats", apiKey(e.apiKey), map[string]any{}).status(200)
		if string(rest.body) != string(conn.body) {
			t.Fatalf("REST %s\nConnect %s", rest.body, conn.body)
		}
	})
}

// A plain grpc-go client (no generated stubs needed for a unary Invoke).
func TestGRPCGoClient(t *testing.T) {
	e := newEnv(t)
	seed(t, e)
	conn, err := grpc.NewClient(strings.TrimPrefix(e.srv.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-api-key", e.apiKey)
	var out reclaimv1.GetStatsResponse
	if err := conn.Invoke(ctx, "/reclaim.v1.ProjectService/GetStats", &reclaimv1.GetStatsRequest{}, &out); err != nil {
		t.Fatal(err)
	}
	if out.GetTotalTransactionCount() != 3 {
		t.Fatalf("stats %v", &out)
	}
	err = conn.Invoke(context.Background(), "/reclaim.v1.ProjectService/GetStats", &reclaimv1.GetStatsRequest{}, &out)
	if err == nil || !strings.Contains(err.Error(), "Unauthenticated") {
		t.Fatalf("no credentials over gRPC: %v", err)
	}
}

// A wallet that only burned compressed NFTs paid to do it: its net is
// negative, and stats and leaderboard say so as plain negative numbers.
func TestNegativeNetIsASignedNumber(t *testing.T) {
	e := newEnv(t)
	payer := newWallet()
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	err := e.store.InsertEntry(context.Background(), ledger.Entry{
		ID: storage.NewID("tx"), ProjectID: e.project.ID, Payer: payer, Type: ledger.TypeNFTBurn,
		GrossRebate: 0, NetRebate: -5006, NetworkFee: 5006, Fees: 5006, ItemCount: 3, Signature: "sig-cnft",
		TicketJTI: storage.NewID("jti"), Status: ledger.StatusConfirmed, CreatedAt: at, ConfirmedAt: &at,
	})
	if err != nil {
		t.Fatal(err)
	}
	st := e.rest("GET", "/v1/stats", apiKey(e.apiKey), nil).status(200)
	if !strings.Contains(string(st.body), `"totalNetRebate":-5006`) {
		t.Fatalf("stats %s", st.body)
	}
	lb := e.rest("GET", "/v1/leaderboard", apiKey(e.apiKey), nil).status(200)
	if !strings.Contains(string(lb.body), `"totalNetRebate":-5006`) {
		t.Fatalf("leaderboard %s", lb.body)
	}
}

// A small answer is sent as it is even to a client that accepts gzip (the
// gzip writer's reset cost more than a stats answer's whole JSON); a large
// one is compressed.
func TestOnlyLargeAnswersCompressed(t *testing.T) {
	e := newEnv(t)
	day := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := range 40 {
		err := e.store.InsertEntry(context.Background(), ledger.Entry{
			ID: storage.NewID("tx"), ProjectID: e.project.ID, Payer: newWallet(), Type: ledger.TypeTokenAccountClosure,
			GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5000, Fees: 5000, ItemCount: 1,
			Signature: fmt.Sprintf("sig-gzip-%d", i), TicketJTI: storage.NewID("jti"), Status: ledger.StatusConfirmed,
			CreatedAt: day, ConfirmedAt: &day,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}} // sees Content-Encoding
	for _, tc := range []struct {
		path string
		gzip bool
	}{{"/v1/stats", false}, {"/v1/leaderboard?limit=40", true}} {
		req, err := http.NewRequest("GET", e.srv.URL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Api-Key", e.apiKey)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", tc.path, resp.StatusCode, body)
		}
		if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tc.gzip {
			t.Errorf("%s (%d bytes): gzip %v, want %v", tc.path, len(body), got, tc.gzip)
		}
	}
}
