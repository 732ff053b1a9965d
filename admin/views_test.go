package admin

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	"golang.org/x/net/html"

	"github.com/reclaim-sol/reclaim/backend/domain/ledger"
	"github.com/reclaim-sol/reclaim/backend/domain/project"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// render renders c and returns the document.
func render(t *testing.T, c templ.Component) *html.Node {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func find(n *html.Node, id string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "data-testid" && a.Val == id {
					out = append(out, n)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func textOf(ns []*html.Node) string {
	if len(ns) == 0 {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(ns[0])
	return strings.Join(strings.Fields(b.String()), " ")
}

func projectPage(role owner.Role, tab string) page {
	return page{
		Title: "p", Email: "a@example.com", CSRF: "tok",
		Project: &projectHeader{ID: "prj_1", Name: "Acme"}, Role: role, Tab: tab,
	}
}

func TestKeysViewRendering(t *testing.T) {
	t.Parallel()
	revoked := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	used := time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)
	keys := keyItems([]project.APIKey{
		{ID: "key_a", Name: "prod", Prefix: "ak_live_AAAA", CreatedAt: used, LastUsedAt: &used},
		{ID: "key_b", Name: "old", Prefix: "ak_live_BBBB", CreatedAt: used, RevokedAt: &revoked},
	})
	cases := []struct {
		name      string
		role      owner.Role
		d         keysData
		present   []string
		absent    []string
		statusRow []string
	}{
		{name: "owner, new key", role: owner.RoleOwner, d: keysData{Keys: keys, NewKey: "ak_live_secret"},
			present: []string{"new-key", "copy-key", "create-key", "revoke-link", "keys-table", "audit-empty"}, absent: []string{"keys-empty"}},
		{name: "viewer", role: owner.RoleViewer, d: keysData{Keys: keys},
			present: []string{"keys-table", "viewer-badge"}, absent: []string{"new-key", "create-key", "revoke-link"}},
		{name: "owner, no keys", role: owner.RoleOwner, d: keysData{},
			present: []string{"keys-empty", "create-key"}, absent: []string{"keys-table"}},
		{name: "rejected name", role: owner.RoleOwner, d: keysData{Name: "x", NameErr: "Give the key a name"},
			present: []string{"key-name-error"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := render(t, keysView(projectPage(c.role, "keys"), c.d))
			for _, id := range c.present {
				if len(find(doc, id)) == 0 {
					t.Errorf("no %s", id)
				}
			}
			for _, id := range c.absent {
				if len(find(doc, id)) != 0 {
					t.Errorf("unexpected %s", id)
				}
			}
		})
	}
	doc := render(t, keysView(projectPage(owner.RoleOwner, "keys"), keysData{Keys: keys, NewKey: "ak_live_secret"}))
	for _, a := range find(doc, "new-key")[0].Attr {
		if a.Key == "value" && a.Val != "ak_live_secret" {
			t.Errorf("new key value %q", a.Val)
		}
	}
	status := find(doc, "key-status")
	if textOf(status[:1]) != "Active" || textOf(status[1:]) != "Revoked 2026-05-02 10:00 UTC" {
		t.Errorf("statuses %q, %q", textOf(status[:1]), textOf(status[1:]))
	}
	if len(find(doc, "revoke-link")) != 1 {
		t.Error("a revoked key offers revocation")
	}
}

func TestOverviewRendering(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 4, 21, 0, 0, 0, 0, time.UTC)
	d := overviewData{
		Stats: ledger.Stats{TotalGrossRebate: 1_234_567_890_123, TotalTransactionCount: 1_000_000, TotalWallets: 50_000},
		Chart: newChart(from, 30, []ledger.DailyTotal{
			{Day: from, GrossRebate: 2_039_280, TransactionCount: 1},
			{Day: from.AddDate(0, 0, 29), GrossRebate: 4_078_560, TransactionCount: 4},
		}),
		Board:    []ledger.LeaderboardEntry{{Payer: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", TotalGrossRebate: 2_039_280}},
		HasNext:  true,
		Explorer: Explorer{Cluster: ClusterDevnet},
		Latest:   []latestRow{{Type: ledger.TypeNFTBurn, Status: string(ledger.StatusSubmitted), Signature: "sig1", Payer: "p"}},
	}
	doc := render(t, overviewView(projectPage(owner.RoleOwner, "overview"), d))
	checks := map[string]string{
		"stat-gross":        "1,234.567890123 SOL",
		"stat-transactions": "1,000,000",
		"stat-wallets":      "50,000",
		"latest-status":     "submitted",
	}
	for id, want := range checks {
		if got := textOf(find(doc, id)); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	gross := find(find(doc, "chart-gross")[0], "bar")
	if len(gross) != 30 {
		t.Fatalf("%d bars", len(gross))
	}
	heights := map[int]string{0: "61.0", 1: "0.0", 29: "122.0"}
	for i, want := range heights {
		for _, a := range gross[i].Attr {
			if a.Key == "height" && a.Val != want {
				t.Errorf("bar %d height %s, want %s", i, a.Val, want)
			}
		}
	}
	if len(find(doc, "board-next")) != 1 || len(find(doc, "board-prev")) != 0 {
		t.Error("pager wrong on the first page")
	}
	link := find(doc, "explorer-link")
	if len(link) != 1 {
		t.Fatal("no explorer link")
	}
	for _, a := range link[0].Attr {
		if a.Key == "href" && a.Val != "https://explorer.solana.com/tx/sig1?cluster=devnet" {
			t.Errorf("explorer link %q", a.Val)
		}
	}
	tab := find(doc, "tab-overview")[0]
	for _, a := range tab.Attr {
		if a.Key == "aria-current" && a.Val != "page" {
			t.Errorf("overview tab aria-current=%q", a.Val)
		}
	}

	empty := render(t, overviewView(projectPage(owner.RoleOwner, "overview"), overviewData{Chart: newChart(from, 30, nil)}))
	for _, id := range []string{"chart-empty", "board-empty", "latest-empty"} {
		if len(find(empty, id)) == 0 {
			t.Errorf("no %s", id)
		}
	}
}

func TestFormatting(t *testing.T) {
	t.Parallel()
	for in, want := range map[int64]string{0: "0", 1: "0.000000001", 2_039_280: "0.00203928", 1_000_000_000: "1", -1_500_000_000: "-1.5", 12_345_000_000_000: "12,345"} {
		if got := sol(in); got != want {
			t.Errorf("sol(%d) = %q, want %q", in, got, want)
		}
	}
	e := Explorer{Cluster: ClusterMainnet}
	if got := e.AddressURL("abc"); got != "https://explorer.solana.com/address/abc" {
		t.Errorf("mainnet link %q", got)
	}
	if _, err := ParseCluster("mainnet"); err == nil {
		t.Error("ParseCluster(mainnet) accepted")
	}
}

// TestExplorerLinks: links go to a public cluster, the local validator (the
// RPC URL's scheme, host and port when it is on this machine, else the
// fixed address) or the operator's template; never to the rest of the RPC
// URL, whose userinfo, path or query holds a provider's key.
func TestExplorerLinks(t *testing.T) {
	t.Parallel()
	const sig = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	const local = "https://explorer.solana.com/tx/" + sig + "?cluster=custom&customUrl="
	cases := []struct {
		cluster, template, rpc, want string
	}{
		{ClusterMainnet, "", "https://rpc.example/KEY", "https://explorer.solana.com/tx/" + sig},
		{ClusterDevnet, "", "", "https://explorer.solana.com/tx/" + sig + "?cluster=devnet"},
		{ClusterTestnet, "", "", "https://explorer.solana.com/tx/" + sig + "?cluster=testnet"},
		{ClusterLocalnet, "", "", local + "http%3A%2F%2F127.0.0.1%3A8899"},
		{"", "", "", local + "http%3A%2F%2F127.0.0.1%3A8899"},
		// The validator moved: the links follow it, without what follows
		// the port.
		{ClusterLocalnet, "", "http://127.0.0.1:18899", local + "http%3A%2F%2F127.0.0.1%3A18899"},
		{"", "", "http://user:secret@localhost:9000/KEY?api-key=SECRET", local + "http%3A%2F%2Flocalhost%3A9000"},
		{ClusterLocalnet, "", "http://[::1]:8999", local + "http%3A%2F%2F%5B%3A%3A1%5D%3A8999"},
		{ClusterLocalnet, "", "https://127.0.0.2", local + "https%3A%2F%2F127.0.0.2"},
		// Elsewhere (compose's validator, a provider) or not a URL: the
		// fixed address, where compose publishes its validator.
		{ClusterLocalnet, "", "http://validator:8899", local + "http%3A%2F%2F127.0.0.1%3A8899"},
		{ClusterLocalnet, "", "https://rpc.example/KEY", local + "http%3A%2F%2F127.0.0.1%3A8899"},
		{ClusterLocalnet, "", "ws://127.0.0.1:9000", local + "http%3A%2F%2F127.0.0.1%3A8899"},
		{ClusterLocalnet, "", "127.0.0.1:9000", local + "http%3A%2F%2F127.0.0.1%3A8899"},
		{ClusterDevnet, "", "http://127.0.0.1:18899", "https://explorer.solana.com/tx/" + sig + "?cluster=devnet"},
		{ClusterLocalnet, "https://explorer.solana.com/{kind}/{id}?cluster=custom&customUrl=https%3A%2F%2Fvalidator.example", "http://127.0.0.1:18899",
			"https://explorer.solana.com/tx/" + sig + "?cluster=custom&customUrl=https%3A%2F%2Fvalidator.example"},
		{ClusterMainnet, "https://solscan.io/{kind}/{id}", "", "https://solscan.io/tx/" + sig},
	}
	for _, c := range cases {
		e, err := NewExplorer(c.cluster, c.template, c.rpc)
		if err != nil {
			t.Fatalf("%q %q %q: %v", c.cluster, c.template, c.rpc, err)
		}
		if got := e.TxURL(sig); got != c.want {
			t.Errorf("%q %q %q: %s, want %s", c.cluster, c.template, c.rpc, got, c.want)
		}
	}
	if got := (Explorer{Template: "https://x.example/{kind}/{id}"}).AddressURL("a/b"); got != "https://x.example/address/a%2Fb" {
		t.Errorf("address link %s", got)
	}
	for _, bad := range []string{"explorer.example/{kind}/{id}", "ftp://x.example/{kind}/{id}", "https://x.example/{id}",
		"https://x.example/{kind}", "https://", "https://x.example/%zz/{kind}/{id}"} {
		if _, err := NewExplorer(ClusterMainnet, bad, ""); err == nil || strings.Contains(err.Error(), "x.example") {
			t.Errorf("template %q: %v", bad, err)
		}
	}
	if _, err := NewExplorer("mainnet", "", ""); err == nil {
		t.Error("cluster mainnet accepted")
	}
}

// FuzzLocalCluster: whatever SOLANA_RPC_URL holds, a localnet link's
// custom cluster is "" (the fixed address) or a loopback http(s) origin with
// nothing past its port: no userinfo, path, query or fragment reaches a page.
func FuzzLocalCluster(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:18899", "http://user:pw@localhost:9000/KEY?api-key=K#f", "https://[::1]:8999/x",
		"http://validator:8899", "https://rpc.example/KEY", "ws://127.0.0.1:1", "http://127.0.0.1:1@evil.example/", "http://%31%32%37.0.0.1/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rpc string) {
		got := localCluster(rpc)
		if got == "" {
			return
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			t.Fatalf("localCluster(%q) = %q: not a bare origin", rpc, got)
		}
		if ip, err := netip.ParseAddr(u.Hostname()); u.Hostname() != "localhost" && (err != nil || !ip.IsLoopback()) {
			t.Fatalf("localCluster(%q) = %q: not loopback", rpc, got)
		}
	})
}

// TestLatestShowsDifference: a confirmed transaction that landed otherwise
// than its ticket promised (here a wallet raised its priority fee) shows
// the chain's net and says how it differs; one that landed as promised
// says nothing more.
func TestLatestShowsDifference(t *testing.T) {
	t.Parallel()
	promised := ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_034_280, NetworkFee: 5_000}
	raised := ledger.Entry{Type: ledger.TypeTokenAccountClosure, Status: ledger.StatusConfirmed, Signature: "sig1", Payer: "p", Promised: promised}
	raised.SetFigures(ledger.Figures{GrossRebate: 2_039_280, NetRebate: 2_024_280, NetworkFee: 15_000})
	same := ledger.Entry{Type: ledger.TypeTokenAccountClosure, Status: ledger.StatusConfirmed, Signature: "sig2", Payer: "p", Promised: promised}
	same.SetFigures(promised)
	d := overviewData{Explorer: Explorer{Cluster: ClusterDevnet}, Latest: latestRows([]ledger.Entry{raised, same})}
	doc := render(t, overviewView(projectPage(owner.RoleOwner, "overview"), d))
	if got := textOf(find(doc, "latest-net")[:1]); got != "0.00202428" {
		t.Errorf("net = %q", got)
	}
	diffs := find(doc, "latest-difference")
	if len(diffs) != 1 || !strings.Contains(textOf(diffs), "network fee 5,000 → 15,000 (+10,000); net rebate 2,034,280 → 2,024,280 (-10,000)") {
		t.Errorf("differences: %d, %q", len(diffs), textOf(diffs))
	}
}
