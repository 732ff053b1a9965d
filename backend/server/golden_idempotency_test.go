package server_test

import (
	"context"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/domain/project"
)

// Idempotency-Key on build: the first answer, then the same answer
// replayed on every other wire (Idempotent-Replayed: true); the same key
// with another body is a 422 naming the reuse; a key that is not one is a
// 400; a page on the project's origin may read Idempotent-Replayed.
func goldenIdempotency(t *testing.T, g *golden, f *flow) {
	cluster := newGoldenCluster(t)
	cluster.add(cluster.owner, ownerAccounts...)
	e := goldenEnv(t, cluster.url, 10_000, withCORS(goldenOperator))
	goldenProject(t, e, "prj_golden", seededAddress("donation wallet").String())
	if err := e.store.AddOrigin(context.Background(), project.Origin{ProjectID: "prj_golden", Origin: goldenOrigin}); err != nil {
		t.Fatal(err)
	}
	owner, key := cluster.owner.String(), keyCred("prj_golden")
	newGolden(e, g.rest, g.h2, g.norm, g.stopped).section(t, "idempotency", func(g *golden) {
		body := jsonOf(t, map[string]any{"items": f.selection(), "priorityFeeLevel": "none"})
		changed := jsonOf(t, map[string]any{"items": f.selection(), "priorityFeeLevel": "none", "donationPercentage": 0.1})
		withKey := map[string]string{"Idempotency-Key": "golden-build-1"}
		g.send(call{name: "build with a key, first on REST, then replayed on each wire", op: opBuild, address: owner, cred: key,
			header: withKey, wires: allWires, body: body})
		g.send(call{name: "the same key with another body", op: opBuild, address: owner, cred: key, header: withKey, wires: allWires, body: changed})
		g.send(call{name: "a key with a space", op: opBuild, address: owner, cred: key, header: map[string]string{"Idempotency-Key": "two words"},
			wires: jsonWires, body: body})
		session := g.newSession("create a session", key, map[string]any{"walletAddress": owner})
		fromPage := map[string]string{"Idempotency-Key": "golden-build-2", "Origin": goldenOrigin}
		g.send(call{name: "a page builds with a key, then again", op: opBuild, address: owner, cred: session, header: fromPage, wires: jsonWires, body: body})
	})
}
