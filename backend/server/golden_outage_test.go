package server_test

import (
	"net/http"
	"testing"
)

// Answers of a server whose limits or dependencies fail: a spent rate limit
// of an API key or of the client's address (429 with Retry-After), a
// cluster that fails (503) and a database that is gone (503). Each runs on a server of its own with the flow's project and
// keys; the normalizer is the flow's.

func goldenOutages(t *testing.T, g *golden) {
	owner := seededAddress("owner").String()
	key := keyCred("prj_golden")
	outage := func(name string, e *env, f func(g *golden)) {
		goldenProject(t, e, "prj_golden", seededAddress("donation wallet").String())
		goldenKey(t, e, "prj_golden", "second")
		newGolden(e, g.rest, g.h2, g.norm, g.stopped).section(t, name, f)
	}

	cluster := newGoldenCluster(t)
	cluster.add(cluster.owner, ownerAccounts...)
	outage("rate-limit", goldenEnv(t, cluster.url, 2), func(g *golden) {
		g.send(call{name: "stats within the limit", op: opStats, cred: key, wires: jsonWires})
		g.send(call{name: "stats over the limit", op: opStats, cred: key, wires: allWires})
		g.send(call{name: "a session over the limit", op: opSession, cred: key, wires: restJSON,
			body: jsonOf(g.t, map[string]any{"walletAddress": owner})})
		g.send(call{name: "a listing over the limit", op: opAssets, address: owner, cred: key, wires: restJSON})
		g.send(call{name: "a stream over the limit", op: opStream, address: owner, cred: key, wires: connectJSON})
		g.socket("a socket over the limit", "/v1/wallet/"+owner+"/stream", key, []string{"reclaim.v1"})
		g.send(call{name: "another key of the project", op: opStats, cred: keyCred("second"), wires: restJSON})
	})

	// Every request first spends its client address's bucket, whatever
	// its credentials, before they are checked.
	outage("address-limit", goldenEnv(t, cluster.url, 10_000, withIPLimiter(frozenLimiter(3))), func(g *golden) {
		guess := gcred{label: "ak_live_guess", set: func(h http.Header) { h.Set("X-Api-Key", "ak_live_guess") }}
		g.send(call{name: "a malformed key, within the address's limit", op: opStats, cred: guess, wires: jsonWires})
		g.send(call{name: "stats, within the address's limit", op: opStats, cred: key, wires: restJSON})
		g.send(call{name: "no credentials, over the address's limit", op: opStats, cred: gcred{label: "none"}, wires: allWires})
		g.send(call{name: "stats, over the address's limit", op: opStats, cred: key, wires: restJSON})
	})

	outage("cluster-down", goldenEnv(t, brokenCluster(t), 10_000), func(g *golden) {
		session := g.newSession("create a session", key, map[string]any{"walletAddress": owner})
		g.send(call{name: "list", op: opAssets, address: owner, cred: key, wires: allWires})
		g.send(call{name: "build", op: opBuild, address: owner, cred: session, wires: allWires,
			body: jsonOf(g.t, map[string]any{"items": selections(1)})})
		g.send(call{name: "stream", op: opStream, address: owner, cred: session, wires: streamWires})
		g.socket("socket", "/v1/wallet/"+owner+"/stream", session, []string{"reclaim.v1"})
	})

	outage("database-down", goldenEnv(t, cluster.url, 10_000), func(g *golden) {
		session := g.newSession("create a session", key, map[string]any{"walletAddress": owner})
		if err := g.e.store.Close(); err != nil {
			g.t.Fatal(err)
		}
		g.send(call{name: "stats with the API key", op: opStats, cred: key, wires: allWires})
		g.send(call{name: "stats with a session", op: opStats, cred: session, wires: allWires})
		g.send(call{name: "leaderboard with a session", op: opLeaderboard, cred: session, wires: jsonWires})
		g.send(call{name: "create a session", op: opSession, cred: key, wires: jsonWires,
			body: jsonOf(g.t, map[string]any{"walletAddress": owner})})
		g.send(call{name: "build with a session", op: opBuild, address: owner, cred: session, wires: jsonWires,
			body: jsonOf(g.t, map[string]any{"items": selections(1)})})
		g.send(call{name: "submit with a session", op: opSubmit, address: owner, cred: session, wires: jsonWires,
			body: submitBody(g.t, entry{"AQID", "t"})})
	})
}
