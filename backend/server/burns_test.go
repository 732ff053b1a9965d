package server_test

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// builtBurns is a build answer as a client reads it: what each transaction
// destroys, with the amounts as the strings they are sent as.
type builtBurns struct {
	Transactions []struct {
		Destructive *bool
		Burns       []struct {
			Mint, Amount, Name, Symbol, Type, Address string
			Decimals                                  json.Number
		}
		Includes []map[string]string
	}
}

// TestBuildSaysWhatItBurns builds, over REST against a fake cluster, the
// close of an empty account, the burn of 1.5 tokens, of a balance of
// 2^64-1 raw units (beyond a JSON number's exact integers) and of an NFT:
// each transaction says whether it destroys anything and lists each burn
// with its mint, raw amount as a decimal string and decimals; the close
// alone is not destructive. The build tool of /mcp marks the same build
// destructive and says each burn in a person's words.
func TestBuildSaysWhatItBurns(t *testing.T) {
	f := newFakeCluster(t)
	f.addEach(4, func(i int) (uint8, uint64, uint64) {
		switch i {
		case 1:
			return 6, 2_000_000, 1_500_000
		case 2:
			return 0, 1, 1
		case 3:
			return 9, math.MaxUint64, math.MaxUint64
		}
		return 6, 1_000_000, 0
	})
	e := newEnv(t, withRPC(f.url))
	wallet := f.owner.String()
	listed := e.rest("GET", "/v1/wallet/"+wallet+"/assets", apiKey(e.apiKey), nil).status(200).json()
	var items []any
	var closeOnly any
	mints := map[string]string{}
	for _, it := range listed["items"].([]any) {
		it := it.(map[string]any)
		action := "burn"
		sel := map[string]any{"type": it["type"], "address": it["address"], "action": action}
		if it["type"] == "empty_account" {
			sel["action"], closeOnly = "close", sel
		}
		items = append(items, sel)
		mints[it["address"].(string)], _ = it["mint"].(string)
	}
	if len(items) != 4 {
		t.Fatalf("listed %v", listed)
	}
	r := e.rest("POST", "/v1/wallet/"+wallet+"/transactions", apiKey(e.apiKey), map[string]any{"items": items, "priorityFeeLevel": "none"}).status(200)
	if !bytes.Contains(r.body, []byte(`"amount":"18446744073709551615"`)) {
		t.Error("2^64-1 raw units are not sent exactly as a string")
	}
	var got builtBurns
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // by item type: its burns, as mint:amount:decimals:type
		"empty_account": "",
		"token":         "1500000:6:token 18446744073709551615:9:token",
		"nft":           "1:0:nft",
	}
	seen := map[string]bool{}
	for _, tx := range got.Transactions {
		if tx.Destructive == nil || len(tx.Includes) == 0 {
			t.Fatalf("a transaction without destructive or includes: %s", r.body)
		}
		kind := tx.Includes[0]["type"]
		seen[kind] = true
		var burns []string
		for i, b := range tx.Burns {
			burns = append(burns, b.Amount+":"+b.Decimals.String()+":"+b.Type)
			if b.Address != tx.Includes[i]["address"] || b.Mint != mints[b.Address] || b.Mint == "" {
				t.Errorf("burn %d of a %s transaction names %s of mint %s; includes %v", i, kind, b.Address, b.Mint, tx.Includes)
			}
		}
		slices.Sort(burns) // the listing's order follows the random addresses
		if g := strings.Join(burns, " "); g != want[kind] || *tx.Destructive != (g != "") || tx.Burns == nil {
			t.Errorf("the %s transaction: destructive %v, burns %q (nil %v); want %q", kind, *tx.Destructive, g, tx.Burns == nil, want[kind])
		}
	}
	if len(seen) != 3 {
		t.Errorf("transactions of %v, want an empty account's, tokens' and an NFT's", seen)
	}

	s, err := e.mcpSession(t, apiKey(e.apiKey))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	built, te := callTool(t, s, "build_reclaim_transactions", map[string]any{"address": wallet, "items": items, "priorityFeeLevel": "none"})
	if te != nil {
		t.Fatalf("build: %+v", te)
	}
	summary, _ := built["burnSummary"].([]any)
	text := mustJSON(t, summary)
	if built["destructive"] != true || len(summary) != 3 || !strings.Contains(text, "burns 1.5 tokens") ||
		!strings.Contains(text, "burns 18446744073.709551615 tokens") || !strings.Contains(text, "burns NFT") {
		t.Errorf("the tool's answer: destructive %v, burnSummary %s", built["destructive"], text)
	}
	closing, te := callTool(t, s, "build_reclaim_transactions", map[string]any{"address": wallet, "items": []any{closeOnly}, "priorityFeeLevel": "none"})
	if te != nil {
		t.Fatalf("build: %+v", te)
	}
	if s := closing["burnSummary"].([]any); closing["destructive"] != false || len(s) != 0 {
		t.Errorf("a close alone: destructive %v, burnSummary %v", closing["destructive"], s)
	}
}
