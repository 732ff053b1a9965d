package server_test

import (
	"net/http"

	"github.com/gagliardetto/solana-go"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

var opSummary = op{"GET", "/v1/wallet/{address}/summary", reclaimv1connect.WalletServiceGetSummaryProcedure,
	&reclaimv1.GetSummaryRequest{}, &reclaimv1.GetSummaryResponse{}, false}

// summaryAccounts is the wallet of the summary section: what select-all
// takes (empty accounts, a frozen one too: closing does not look at the
// frozen state) beside what it leaves (tokens, frozen or not, an NFT,
// wrapped SOL).
var summaryAccounts = []goldenAccount{
	{label: "summary empty", program: solana.TokenProgramID},
	{label: "summary empty 2022", program: solana.Token2022ProgramID},
	{label: "summary token", program: solana.TokenProgramID, amount: 42},
	{label: "summary nft", program: solana.TokenProgramID, amount: 1, nft: true},
	{label: "summary frozen empty", program: solana.TokenProgramID, frozen: true},
	{label: "summary frozen token", program: solana.TokenProgramID, amount: 7, frozen: true},
	{label: "summary wrapped sol", program: solana.TokenProgramID, amount: wrappedSOLAmount, native: true},
}

// summary is the section of issue 23's summary and select-all build: it
// runs last, with a project and an API key of its own, so that the answers
// of the sections before it stay as they were (their rate-limit counts and
// token numbers).
func (f *flow) summary(g *golden, cluster *goldenCluster) {
	t := g.t
	w := seededAddress("summary owner")
	cluster.add(w, summaryAccounts...)
	goldenProject(t, g.e, "prj_summary", seededAddress("donation wallet").String())
	key := keyCred("prj_summary")
	owner := w.String()
	g.send(call{name: "the summary with the API key", op: opSummary, address: owner, cred: key, wires: allWires})
	g.send(call{name: "the summary at a donation and a priority", op: opSummary, address: owner, cred: key, wires: allWires,
		query: "donationPercentage=0.1&priorityFeeLevel=none"})
	g.send(call{name: "select all at that donation and priority", op: opBuild, address: owner, cred: key, wires: jsonWires,
		body: jsonOf(t, map[string]any{"selectAll": true, "donationPercentage": 0.1, "priorityFeeLevel": "none"})})
	session := g.newSession("create a session of the summary's wallet", key, map[string]any{"walletAddress": owner})
	g.send(call{name: "the summary with a session", op: opSummary, address: owner, cred: session, wires: jsonWires})
	nothing := seededAddress("summary wallet without items").String()
	g.send(call{name: "the summary of a wallet with nothing", op: opSummary, address: nothing, cred: key, wires: jsonWires})

	// Refusals.
	g.send(call{name: "select all of a wallet with nothing safe", op: opBuild, address: nothing, cred: key, wires: allWires,
		body: `{"selectAll":true}`})
	g.send(call{name: "select all and items", op: opBuild, address: owner, cred: key, wires: allWires,
		body: jsonOf(t, map[string]any{"selectAll": true, "items": selections(1)})})
	g.send(call{name: "select all as a string", op: opBuild, address: owner, cred: key, wires: jsonWires, body: `{"selectAll":"yes"}`})
	c := call{op: opSummary, address: owner, cred: key, wires: allWires}
	for _, q := range [][2]string{
		{"a donation above 1", "donationPercentage=1.5"},
		{"a donation in words", "donationPercentage=much"},
		{"an unknown priority", "priorityFeeLevel=ultra"},
	} {
		c := c
		c.name, c.query = q[0], q[1]
		if q[0] == "a donation in words" {
			c.wires = restJSON
		}
		g.send(c)
	}
	g.send(call{name: "an unknown query parameter", op: opSummary, address: owner, cred: key, wires: restJSON, path: "/v1/wallet/" + owner + "/summary?items=all"})
	g.send(call{name: "a donation without donation wallet", op: opSummary, address: owner, cred: f.noDonation, wires: allWires,
		query: "donationPercentage=0.1"})
	g.send(call{name: "a wallet not an address", op: opSummary, address: "nope", cred: key, wires: allWires})
	g.send(call{name: "a wallet off the curve", op: opSummary, address: offCurve(t), cred: key, wires: allWires})
	g.send(call{name: "a POST", op: opSummary, address: owner, cred: key, wires: restJSON, method: "POST"})
	c = call{op: opSummary, address: owner, wires: jsonWires}
	g.refused(c, badCreds{
		{"no credentials", gcred{label: "none", set: func(h http.Header) {}}},
		{"a session without transactions:build", f.lacking["transactions:build"]},
		{"a session of another wallet", f.session},
	})
}
