package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The catalogue of error answers, route by route: every distinct error path
// of today's tests (input_test, validate_test, session_test, auth_test,
// errors_test, the fuzz seeds), in every wire that can carry the request.

func (f *flow) errors(t *testing.T, g *golden) {
	var creds badCreds
	g.section(t, "errors-sessions", func(g *golden) {
		// A session that expires, and a key revoked: both seen once the
		// clock has passed the session's second and the key cache's two.
		expiring := g.newSession("create a session of 1 s", f.key, map[string]any{"walletAddress": f.owner.String(), "ttlSeconds": 1})
		g.e.revoke(goldenAPIKey("revoked"))
		g.e.clock.Advance(3 * time.Second)
		creds = f.badCreds(expiring)
		f.sessionErrors(g, creds)
	})
	g.section(t, "errors-assets", func(g *golden) { f.assetsErrors(g, creds) })
	g.section(t, "errors-build", func(g *golden) { f.buildErrors(g, creds) })
	g.section(t, "errors-submit", func(g *golden) { f.submitErrors(g, creds) })
	g.section(t, "errors-stats", func(g *golden) { f.statsErrors(g, creds) })
	g.section(t, "errors-leaderboard", f.leaderboardErrors)
	g.section(t, "errors-routing", f.routingErrors)
}

// badCreds are the credentials every guarded route refuses, by name.
type badCreds []struct {
	name string
	cred gcred
}

func (f *flow) badCreds(expired gcred) badCreds {
	session := f.session
	tampered := gcred{label: "tampered " + session.label, set: func(h http.Header) {
		session.set(h)
		h.Set("Authorization", tamper(h.Get("Authorization")))
	}}
	raw := func(label, k, v string) gcred {
		return gcred{label: label, set: func(h http.Header) { h.Set(k, v) }}
	}
	return badCreds{
		{"no credentials", gcred{label: "none"}},
		{"a key never issued", raw("ak_live_1…1", "X-Api-Key", "ak_live_"+strings.Repeat("1", 44))},
		{"a malformed key", raw("hello", "X-Api-Key", "hello")},
		{"a revoked key", f.revoked},
		{"a session of the revoked key", f.revokedSession},
		{"an expired session", expired},
		{"a tampered session token", tampered},
		{"not a token", raw("Bearer abc.def.ghi", "Authorization", "Bearer abc.def.ghi")},
		{"basic auth", raw("Basic Zm9vOmJhcg==", "Authorization", "Basic Zm9vOmJhcg==")},
		{"both a key and a session", gcred{label: "api key and session", set: func(h http.Header) { f.key.set(h); session.set(h) }}},
	}
}

// refused sends c once per bad credential.
func (g *golden) refused(c call, creds badCreds) {
	for _, bc := range creds {
		c := c
		c.name, c.cred = bc.name, bc.cred
		g.send(c)
	}
}

// bodies sends one call per body, in wires.
func (g *golden) bodies(c call, wires wire, bodies ...[2]string) {
	for _, b := range bodies {
		c := c
		c.name, c.body, c.wires = b[0], b[1], wires
		g.send(c)
	}
}

func (f *flow) sessionErrors(g *golden, creds badCreds) {
	owner := `"` + f.owner.String() + `"`
	c := call{op: opSession, cred: f.key}
	g.bodies(c, jsonWires,
		[2]string{"not JSON", `{not json`},
		[2]string{"JSON that ends early", `{"walletAddress": 12`},
		[2]string{"a number for a string", `{"walletAddress":12}`},
		[2]string{"an unknown field", `{"walletAddress":"x","ttl":60}`},
		[2]string{"a field given twice", `{"ttlSeconds":60,"ttlSeconds":70}`},
		[2]string{"an array", `[1,2]`},
		[2]string{"null", `null`},
		[2]string{"null fields", `{"walletAddress":null,"scopes":null}`},
		[2]string{"a ttl not whole", `{"walletAddress":"x","ttlSeconds":1.5}`},
		[2]string{"a ttl in words", `{"walletAddress":` + owner + `,"ttlSeconds":"soon"}`},
		[2]string{"a ttl as a string", `{"walletAddress":` + owner + `,"ttlSeconds":"300"}`},
		[2]string{"a ttl in exponent form", `{"walletAddress":` + owner + `,"ttlSeconds":1e3}`},
		[2]string{"snake_case names", `{"wallet_address":` + owner + `,"ttl_seconds":60}`},
		[2]string{"a string not UTF-8", "{\"walletAddress\":\"\xff\"}"},
		[2]string{"scopes not an array", `{"walletAddress":` + owner + `,"scopes":"wallet:read"}`},
		[2]string{"an empty body", ``},
	)
	g.bodies(c, allWires,
		[2]string{"no walletAddress", `{}`},
		[2]string{"a walletAddress not base58", `{"walletAddress":"not-an-address!"}`},
		[2]string{"a walletAddress too short", `{"walletAddress":"3yZe7d"}`},
		[2]string{"a walletAddress off the curve", `{"walletAddress":"` + offCurve(g.t) + `"}`},
		[2]string{"an unknown scope", `{"walletAddress":` + owner + `,"scopes":["wallet:write"]}`},
		[2]string{"a ttl above 3600", `{"walletAddress":` + owner + `,"ttlSeconds":3601}`},
		[2]string{"a ttl of 0", `{"walletAddress":` + owner + `,"ttlSeconds":0}`},
		[2]string{"a negative ttl", `{"walletAddress":` + owner + `,"ttlSeconds":-5}`},
		[2]string{"a body over 1 MiB", `{"walletAddress":"` + strings.Repeat("a", 2<<20) + `"}`},
	)
	c.body = `{"walletAddress":` + owner + `}`
	c.wires = allWires
	g.refused(c, creds)
	g.refused(c, badCreds{{"a session token", f.session}})
	c.wires = jsonWires
	g.send(with(c, "a form body", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, `walletAddress=x`))
	g.send(with(c, "a text body", map[string]string{"Content-Type": "text/plain"}, c.body))
	g.send(with(c, "no Content-Type", map[string]string{"Content-Type": ""}, c.body))
}

// with is c named name, with header and body.
func with(c call, name string, header map[string]string, body string) call {
	c.name, c.header, c.body = name, header, body
	return c
}

func (f *flow) assetsErrors(g *golden, creds badCreds) {
	owner := f.owner.String()
	c := call{op: opAssets, address: owner, cred: f.key}
	g.send(call{name: "not an address", op: opAssets, address: "0OIl0OIl", cred: f.key, wires: allWires})
	g.send(call{name: "an empty address", op: opAssets, path: "/v1/wallet//assets", cred: f.key, wires: restJSON})
	for _, q := range []string{"limit=abc", "limit=-1", "limit=1&limit=2", "colour=red", "address=" + owner, "limit=%zz", "limit="} {
		c := c
		c.name, c.query, c.wires = "?"+q, q, restJSON
		g.send(c)
	}
	for _, q := range []string{"limit=0", "limit=1001", "cursor=bogus", "cursor=czo"} {
		c := c
		c.name, c.query, c.wires = "?"+q, q, allWires
		g.send(c)
	}
	g.send(call{name: "a GET with a body", op: opAssets, address: owner, cred: f.key, wires: restJSON, body: `{"x":1}`})
	g.send(call{name: "a GET with a Content-Type", op: opAssets, address: owner, cred: f.key, wires: restJSON,
		header: map[string]string{"Content-Type": "text/html"}})
	c.wires = allWires
	g.refused(c, creds)
	c.wires = jsonWires
	g.refused(c, badCreds{
		{"a session without wallet:read", f.lacking["wallet:read"]},
		{"a session of another wallet", f.otherSession},
	})
}

// selections is n selections of made-up empty accounts (on no chain).
func selections(n int) []map[string]string {
	out := make([]map[string]string, n)
	for i := range out {
		out[i] = map[string]string{"type": "empty_account", "address": seededAddress(fmt.Sprintf("item %d", i)).String(), "action": "close"}
	}
	return out
}

func (f *flow) buildErrors(g *golden, creds badCreds) {
	t, owner := g.t, f.owner.String()
	one := func(typ, address, action string) string {
		return jsonOf(t, map[string]any{"items": []map[string]string{{"type": typ, "address": address, "action": action}}})
	}
	someone := seededAddress("nowhere").String()
	c := call{op: opBuild, address: owner, cred: f.key}
	g.bodies(c, jsonWires,
		[2]string{"not JSON", `{not json`},
		[2]string{"a null item", `{"items":[null]}`},
		[2]string{"items an object", `{"items":{}}`},
		[2]string{"items a string", `{"items":"all"}`},
		[2]string{"a number for a type", `{"items":[{"type":1}]}`},
		[2]string{"an unknown field in an item", `{"items":[{"type":"nft","address":"` + someone + `","action":"burn","amount":1}]}`},
		[2]string{"the address in the body", `{"items":[{}],"address":"` + owner + `"}`},
		[2]string{"a donation in words", `{"items":[],"donationPercentage":"much"}`},
	)
	g.bodies(c, allWires,
		[2]string{"no items", `{"items":[]}`},
		[2]string{"items left out", `{}`},
		[2]string{"501 items", jsonOf(t, map[string]any{"items": selections(501)})},
		[2]string{"an unknown type", one("coin", someone, "burn")},
		[2]string{"close an nft", one("nft", someone, "close")},
		[2]string{"burn an empty account", one("empty_account", someone, "burn")},
		[2]string{"no action", `{"items":[{"type":"nft","address":"` + someone + `"}]}`},
		[2]string{"no address", `{"items":[{"type":"nft","action":"burn"}]}`},
		[2]string{"an address not base58", one("nft", "0OIl", "burn")},
		[2]string{"an item twice", jsonOf(t, map[string]any{"items": append(selections(1), selections(1)...)})},
		[2]string{"a donation above 1", jsonOf(t, map[string]any{"items": selections(1), "donationPercentage": 1.5})},
		[2]string{"a negative donation", jsonOf(t, map[string]any{"items": selections(1), "donationPercentage": -0.1})},
		[2]string{"a donation of NaN", jsonOf(t, map[string]any{"items": selections(1), "donationPercentage": "NaN"})},
		[2]string{"an unknown priority", jsonOf(t, map[string]any{"items": selections(1), "priorityFeeLevel": "ultra"})},
		[2]string{"an account not on chain", one("empty_account", someone, "close")},
		[2]string{"another wallet's account", one("empty_account", seededAddress("other empty").String(), "close")},
		[2]string{"an nft selected as a token", one("token", seededAddress("nft").String(), "burn")},
		[2]string{"burn a frozen account", one("token", seededAddress("frozen").String(), "burn")},
		[2]string{"a compressed NFT without DAS", one("cnft", someone, "burn")},
	)
	body := jsonOf(t, map[string]any{"items": f.selection()[:1]})
	g.send(call{name: "a donation without donation wallet", op: opBuild, address: owner, cred: f.noDonation, wires: allWires,
		body: jsonOf(t, map[string]any{"items": f.selection()[:1], "donationPercentage": 0.1})})
	g.send(call{name: "a wallet not an address", op: opBuild, address: "nope", cred: f.key, wires: allWires, body: body})
	g.send(call{name: "a wallet off the curve", op: opBuild, address: offCurve(t), cred: f.key, wires: allWires, body: body})
	g.send(call{name: "an empty address", op: opBuild, path: "/v1/wallet//transactions", cred: f.key, wires: restJSON, body: body})
	g.send(call{name: "another wallet in the body than in the path", op: opBuild, address: owner, cred: f.session, wires: restJSON,
		body: jsonOf(t, map[string]any{"items": f.selection()[:1], "address": f.other.String()})})
	c.body, c.wires = body, jsonWires
	g.refused(c, append(creds[:1:1],
		badCreds{{"a session without transactions:build", f.lacking["transactions:build"]}, {"a session of another wallet", f.otherSession}}...))
}

func (f *flow) submitErrors(g *golden, creds badCreds) {
	t, owner := g.t, f.owner.String()
	many := make([]entry, 101)
	for i := range many {
		many[i] = entry{"AQID", "t"}
	}
	c := call{op: opSubmit, address: owner, cred: f.key}
	g.bodies(c, jsonWires,
		[2]string{"a null entry", `{"signed":[null]}`},
		[2]string{"signed an object", `{"signed":{}}`},
		[2]string{"an array", `[]`},
		[2]string{"base64 that is not", `{"signed":[{"transactionBase64":"@@"}]}`},
	)
	g.bodies(c, allWires,
		[2]string{"no entries", `{"signed":[]}`},
		[2]string{"signed left out", `{}`},
		[2]string{"101 entries", submitBody(t, many...)},
		[2]string{"no ticket", submitBody(t, entry{"AQID", "t"}, entry{"AQID", ""})},
		[2]string{"no transaction", submitBody(t, entry{"", "t"})},
		[2]string{"a transaction not base64", submitBody(t, entry{"***", "t"})},
		[2]string{"a transaction too long", submitBody(t, entry{strings.Repeat("A", 5468), "t"})},
		[2]string{"a ticket too long", submitBody(t, entry{"AQID", strings.Repeat("t", 16400)})},
	)
	body := submitBody(t, entry{"AQID", "t"})
	g.send(call{name: "a wallet not an address", op: opSubmit, address: "nope", cred: f.key, wires: allWires, body: body})
	g.send(call{name: "an empty address", op: opSubmit, path: "/v1/wallet//transactions/submit", cred: f.key, wires: restJSON, body: body})
	c.body, c.wires = body, jsonWires
	g.refused(c, append(creds[:1:1],
		badCreds{{"a session without transactions:submit", f.lacking["transactions:submit"]}, {"a session of another wallet", f.otherSession}}...))
}

func (f *flow) statsErrors(g *golden, creds badCreds) {
	g.send(call{name: "a GET with a body", op: opStats, cred: f.key, wires: restJSON, body: `{"x":1}`})
	g.send(call{name: "a query parameter", op: opStats, cred: f.key, wires: restJSON, query: "project=x"})
	g.refused(call{op: opStats, wires: allWires}, creds)
}

func (f *flow) leaderboardErrors(g *golden) {
	for _, q := range []string{
		"limit=abc", "limit=-3", "limit=1e3", "limit=1&limit=2", "colour=red", "limit=%zz", "offset=abc",
		"start_date=2026-11-01", "transaction_type=token_burn",
	} {
		g.send(call{name: "?" + q, op: opLeaderboard, query: q, cred: f.key, wires: restJSON})
	}
	for _, q := range []string{
		"startDate=yesterday", "endDate=2026-02-30", "startDate=2026-11-30&endDate=2026-11-01", "payer=x",
		"transactionType=nft_burn&payer=x", "transactionType=bogus", "limit=0", "limit=1001", "limit=1000&offset=1000000",
	} {
		g.send(call{name: "?" + q, op: opLeaderboard, query: q, cred: f.key, wires: allWires})
	}
	g.send(call{name: "a GET with a body", op: opLeaderboard, cred: f.key, wires: restJSON, body: `{"limit":1}`})
	// Credentials first: a query without them is refused for them.
	g.send(call{name: "?limit=-1 without credentials", op: opLeaderboard, query: "limit=-1", cred: gcred{label: "none"}, wires: restJSON})
}

func (f *flow) routingErrors(g *golden) {
	owner := f.owner.String()
	rest := func(name, method, path, body string) {
		g.send(call{name: name, op: opStats, method: method, path: path, cred: f.key, wires: restJSON, body: body})
	}
	rest("an unknown route", "GET", "/v1/nothing", "")
	rest("a path outside /v1/", "GET", "/nothing", "")
	rest("DELETE on a GET route", "DELETE", "/v1/stats", "")
	rest("POST on a GET route", "POST", "/v1/stats", `{}`)
	rest("GET on a POST route", "GET", "/v1/sessions", "")
	rest("PUT on a POST route", "PUT", "/v1/sessions", `{}`)
	rest("a path with ..", "GET", "/v1/wallet/"+owner+"/../../stats", "")
	rest("a path with //", "GET", "/v1//stats", "")
	rest("a trailing slash", "GET", "/v1/stats/", "")
	rest("a path not UTF-8", "GET", "/v1/wallet/%ff/assets", "")
	rest("a route's prefix", "GET", "/v1/wallet/"+owner, "")
	rest("HEAD", "HEAD", "/v1/stats", "")
	rest("OPTIONS without CORS", "OPTIONS", "/v1/stats", "")
	rest("a dotted path", "GET", "/.well-known/whatever", "")
	rest("a procedure's path", "GET", "/reclaim.v1.WalletService/Nope", "")

	proc := func(name, method, procedure, contentType string, body []byte, wires wire) {
		c := call{name: name, op: opStats, method: method, cred: f.key, wires: wires, raw: body,
			header: map[string]string{"Content-Type": contentType}}
		c.op.procedure = procedure
		g.send(c)
	}
	proc("an unknown procedure", "POST", "/reclaim.v1.WalletService/Nope", "application/json", []byte(`{}`), connectJSON)
	proc("an unknown procedure", "POST", "/reclaim.v1.WalletService/Nope", "application/grpc", []byte{}, grpcProto)
	proc("GET on a procedure", "GET", opStats.procedure, "application/json", []byte{}, connectJSON)
	proc("a text body", "POST", opStats.procedure, "text/plain", []byte(`{}`), connectJSON)
	proc("protobuf that does not parse", "POST", opSession.procedure, "application/proto", []byte{0x0a, 0xff, 0x01}, connectProto)
	proc("protobuf that does not parse", "POST", opSession.procedure, "application/grpc", []byte{0x0a, 0xff, 0x01}, grpcProto)
	proc("protobuf with an unknown field", "POST", opSession.procedure, "application/proto", []byte{0x78, 0x01}, connectProto)
	proc("a body over 1 MiB", "POST", opStats.procedure, "application/proto", make([]byte, 2<<20), connectProto)
}
