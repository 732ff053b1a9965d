package server_test

import (
	"context"
	"strings"
	"testing"

	"connectrpc.com/connect"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

func items(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"type": "empty_account", "address": newWallet(), "action": "close"}
	}
	return out
}

func TestBuildValidation(t *testing.T) {
	e := newEnv(t)
	noDonation := e.newProject("No donation wallet", "")
	noDonationKey, _ := e.newAPIKey(noDonation.ID)
	wallet := newWallet()
	dup := newWallet()
	path := "/v1/wallet/" + wallet + "/transactions"
	cases := []struct {
		name string
		path string
		key  string
		body any
		want string
	}{
		{"empty items", path, "", map[string]any{"items": []any{}}, "items: at least one item is required"},
		{"missing items", path, "", map[string]any{}, "items: at least one item is required"},
		{"too many items", path, "", map[string]any{"items": items(501)}, "at most 500 items"},
		{"unknown type", path, "", map[string]any{"items": []any{map[string]any{"type": "coin", "address": newWallet(), "action": "burn"}}}, `items[0].type: unknown item type "coin"`},
		{"close an nft", path, "", map[string]any{"items": []any{map[string]any{"type": "nft", "address": newWallet(), "action": "close"}}}, `items[0].action: action "close" is not valid for an item of type nft: want burn`},
		{"burn an empty account", path, "", map[string]any{"items": []any{map[string]any{"type": "empty_account", "address": newWallet(), "action": "burn"}}}, "want close"},
		{"missing action", path, "", map[string]any{"items": []any{map[string]any{"type": "nft", "address": newWallet()}}}, `items[0].action: action ""`},
		{"missing address", path, "", map[string]any{"items": []any{map[string]any{"type": "nft", "action": "burn"}}}, "items[0].address: is required"},
		{"unknown address form", path, "", map[string]any{"items": []any{map[string]any{"type": "nft", "address": "0OIl", "action": "burn"}}}, "items[0].address"},
		{"duplicate item", path, "", map[string]any{"items": []any{
			map[string]any{"type": "empty_account", "address": dup, "action": "close"},
			map[string]any{"type": "empty_account", "address": dup, "action": "close"},
		}}, "items[1].address: " + dup + " is already selected in items[0]"},
		{"donation above 1", path, "", map[string]any{"items": items(1), "donationPercentage": 1.5}, "donationPercentage: must be from 0 to 1"},
		{"donation negative", path, "", map[string]any{"items": items(1), "donationPercentage": -0.1}, "donationPercentage: must be from 0 to 1"},
		{"donation NaN", path, "", map[string]any{"items": items(1), "donationPercentage": "NaN"}, "donationPercentage"},
		{"donation without donation wallet", path, noDonationKey, map[string]any{"items": items(1), "donationPercentage": 0.1}, "has no donation wallet"},
		{"priority level", path, "", map[string]any{"items": items(1), "priorityFeeLevel": "ultra"}, `priorityFeeLevel: unknown level "ultra"`},
		{"wallet not an address", "/v1/wallet/nope/transactions", "", map[string]any{"items": items(1)}, "address"},
		{"wallet off the curve", "/v1/wallet/" + offCurve(t) + "/transactions", "", map[string]any{"items": items(1)}, "off the curve"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			key := e.apiKey
			if tc.key != "" {
				key = tc.key
			}
			msg := e.rest("POST", tc.path, apiKey(key), tc.body).restErr(400, "invalid_argument")
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q, want %q", msg, tc.want)
			}
		})
	}
	t.Run("valid selections pass validation", func(t *testing.T) {
		e := e.with(t)
		body := map[string]any{"items": []any{
			map[string]any{"type": "empty_account", "address": newWallet(), "action": "close"},
			map[string]any{"type": "token", "address": newWallet(), "action": "burn"},
			map[string]any{"type": "nft", "address": newWallet(), "action": "burn"},
		}, "donationPercentage": 1, "priorityFeeLevel": "high"}
		e.rest("POST", path, apiKey(e.apiKey), body).restErr(503, "unavailable")
		body["items"] = items(500)
		body["donationPercentage"] = 0
		e.rest("POST", path, apiKey(noDonationKey), body).restErr(503, "unavailable")
	})
}

func TestSubmitValidation(t *testing.T) {
	e := newEnv(t)
	wallet := newWallet()
	path := "/v1/wallet/" + wallet + "/transactions/submit"
	signed := func(tx, ticket string) map[string]any {
		return map[string]any{"transactionBase64": tx, "submissionTicket": ticket}
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = signed("AQID", "t")
	}
	cases := []struct {
		name string
		body any
		want string
	}{
		{"empty signed", map[string]any{"signed": []any{}}, "signed: at least one signed transaction is required"},
		{"missing signed", map[string]any{}, "signed: at least one"},
		{"too many", map[string]any{"signed": many}, "at most 100 signed transactions"},
		{"missing ticket", map[string]any{"signed": []any{signed("AQID", "t"), signed("AQID", "")}}, "signed[1].submissionTicket: is required"},
		{"missing transaction", map[string]any{"signed": []any{signed("", "t")}}, "signed[0].transactionBase64: is required"},
		{"not base64", map[string]any{"signed": []any{signed("***", "t")}}, "signed[0].transactionBase64: is not valid standard base64"},
		{"longer than a transaction", map[string]any{"signed": []any{signed(strings.Repeat("A", 5468), "t")}}, "longer than a Solana transaction"},
		{"ticket too long", map[string]any{"signed": []any{signed("AQID", strings.Repeat("t", 16400))}}, "not a ticket this service issued"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.with(t)
			msg := e.rest("POST", path, apiKey(e.apiKey), tc.body).restErr(400, "invalid_argument")
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("message %q, want %q", msg, tc.want)
			}
		})
	}
}

func TestAssetsValidation(t *testing.T) {
	e := newEnv(t)
	msg := e.rest("GET", "/v1/wallet/0OIl0OIl/assets", apiKey(e.apiKey), nil).restErr(400, "invalid_argument")
	if !strings.Contains(msg, "is not a Solana address") {
		t.Fatalf("message %q", msg)
	}
	// Over Connect the same check gives the same code.
	_, err := e.connectClients().wallet.ListAssets(context.Background(), withCred(&reclaimv1.ListAssetsRequest{Address: "0OIl"}, apiKey(e.apiKey)))
	if code := connectCode(t, err); code != connect.CodeInvalidArgument {
		t.Fatalf("code %v", code)
	}
}
