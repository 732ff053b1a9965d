package server_test

import (
	"context"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// What browsers receive: preflights, and the CORS headers of requests from
// an origin the project lists, the operator's default, or nobody's; the
// WebSocket, to which browsers apply no CORS, refuses an unlisted origin
// itself.

const (
	goldenOrigin   = "https://app.example"
	goldenOperator = "https://operator.example"
	goldenEvil     = "https://evil.example"
)

func goldenCORS(t *testing.T, g *golden) {
	cluster := newGoldenCluster(t)
	cluster.add(cluster.owner, ownerAccounts...)
	e := goldenEnv(t, cluster.url, 10_000, withCORS(goldenOperator))
	goldenProject(t, e, "prj_golden", seededAddress("donation wallet").String())
	if err := e.store.AddOrigin(context.Background(), project.Origin{ProjectID: "prj_golden", Origin: goldenOrigin}); err != nil {
		t.Fatal(err)
	}
	owner, key := seededAddress("owner").String(), keyCred("prj_golden")
	newGolden(e, g.rest, g.h2, g.norm, g.stopped).section(t, "cors", func(g *golden) {
		session := g.newSession("create a session", key, map[string]any{"walletAddress": owner})
		preflight := func(name, origin, method, path, headers string) {
			h := map[string]string{"Origin": origin, "Access-Control-Request-Method": method}
			if headers != "" {
				h["Access-Control-Request-Headers"] = headers
			}
			g.send(call{name: "preflight " + name, op: opStats, method: "OPTIONS", path: path, header: h, wires: restJSON})
		}
		preflight("from the project's origin", goldenOrigin, "GET", "/v1/wallet/"+owner+"/assets", "authorization")
		preflight("of a body", goldenOrigin, "POST", "/v1/wallet/"+owner+"/transactions", "authorization,content-type")
		preflight("of Connect", goldenOrigin, "POST", opStats.procedure, "authorization,connect-protocol-version,content-type")
		preflight("from the operator's default", goldenOperator, "GET", "/v1/stats", "authorization")
		preflight("from an origin nobody lists", goldenEvil, "GET", "/v1/stats", "authorization")
		preflight("asking for X-Api-Key", goldenOrigin, "POST", "/v1/sessions", "content-type,x-api-key")
		preflight("of a method the API has no use for", goldenOrigin, "DELETE", "/v1/stats", "authorization")

		from := func(origin string) map[string]string { return map[string]string{"Origin": origin} }
		g.send(call{name: "stats from the project's origin", op: opStats, cred: session, header: from(goldenOrigin), wires: jsonWires})
		g.send(call{name: "stats from the operator's default", op: opStats, cred: session, header: from(goldenOperator), wires: restJSON})
		g.send(call{name: "stats from an origin nobody lists", op: opStats, cred: session, header: from(goldenEvil), wires: jsonWires})
		g.send(call{name: "stats with an API key from the project's origin", op: opStats, cred: key, header: from(goldenOrigin), wires: restJSON})
		g.send(call{name: "a refusal from the project's origin", op: opAssets, address: "0OIl", cred: session,
			header: from(goldenOrigin), wires: restJSON})
		g.socketFrom("socket from an origin nobody lists", "/v1/wallet/"+owner+"/stream?chunkSize=500", session, goldenEvil)
		g.socketFrom("socket from the project's origin", "/v1/wallet/"+owner+"/stream?chunkSize=500", session, goldenOrigin)
	})
}
