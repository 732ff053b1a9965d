package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reclaim-sol/reclaim/backend/server"
)

// TestMCPStashFair is issue 30's other attack: one project fills the
// instance's build stash with builds (here a small stash, the same rule)
// and every other project's MCP builds come back without a signUrl. Each
// project now holds a fair share: another project's build still gets a
// link that works, the flooding project's own newest builds too (its
// oldest are the ones that go), and a second flood leaves the other
// project's link working.
func TestMCPStashFair(t *testing.T) {
	fc := newFakeCluster(t)
	fc.add(3)
	e := newEnv(t, withRPC(fc.url), withDeps(func(d *server.Deps) {
		d.SignURL = "http://127.0.0.1:5173/sign"
		d.MCPStashBytes = 64 << 10 // a build here is about 4.6 KB
	}))
	wallet := fc.owner.String()
	victimProject := e.newProject("Victim", newWallet())
	victimKey, _ := e.newAPIKey(victimProject.ID)

	listed := e.rest("GET", "/v1/wallet/"+wallet+"/assets", apiKey(e.apiKey), nil).status(200).json()
	var items []map[string]any
	for _, it := range listed["items"].([]any) {
		it := it.(map[string]any)
		items = append(items, map[string]any{"type": it["type"], "address": it["address"], "action": it["actions"].([]any)[0]})
	}
	args := map[string]any{"address": wallet, "items": items, "priorityFeeLevel": "none"}
	attacker, err := e.mcpSession(t, apiKey(e.apiKey))
	if err != nil {
		t.Fatal(err)
	}
	defer attacker.Close()
	victim, err := e.mcpSession(t, apiKey(victimKey))
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()

	// link builds and returns the build's id in the stash ("": no link).
	link := func(sess *mcp.ClientSession, name string) string {
		t.Helper()
		built, te := callTool(t, sess, "build_reclaim_transactions", args)
		if te != nil {
			t.Fatalf("%s's build: %+v", name, te)
		}
		l, _ := built["signUrl"].(string)
		if l == "" {
			return ""
		}
		u, err := url.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("build")
	}
	served := func(id string) bool {
		t.Helper()
		r := e.rest("GET", "/mcp/builds/"+id, noCred(), nil)
		if r.code != http.StatusOK && r.code != http.StatusNotFound {
			t.Fatalf("GET /mcp/builds/%s: %d %s", id, r.code, r.body)
		}
		return r.code == http.StatusOK
	}
	// flood builds n times as the attacker and returns the first and the
	// last build's ids.
	flood := func(n int) (first, last string) {
		t.Helper()
		linkless := 0
		for i := range n {
			id := link(attacker, fmt.Sprintf("the flood's build %d", i))
			if id == "" {
				linkless++
			}
			if i == 0 {
				first = id
			}
			last = id
		}
		if linkless > 0 {
			t.Errorf("%d of the flooding project's %d builds have no signUrl: its newest builds must get one", linkless, n)
		}
		return first, last
	}

	first, last := flood(40)
	if last == "" || !served(last) {
		t.Error("the flooding project's newest build is not served")
	}
	if first != "" && served(first) {
		t.Error("the flooding project's oldest build is still kept: it holds more than its share")
	}
	victimBuild := link(victim, "the other project")
	if victimBuild == "" {
		t.Fatal("after one project filled the stash, another project's build has no signUrl")
	}
	if !served(victimBuild) {
		t.Fatal("the other project's build is not served")
	}
	if _, last := flood(40); last == "" || !served(last) {
		t.Error("the flooding project's newest build is not served after a second flood")
	}
	if !served(victimBuild) {
		t.Error("a second flood took the other project's build")
	}
}
