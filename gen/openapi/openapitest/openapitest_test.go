package openapitest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reclaim-sol/reclaim/gen/openapi/openapitest"
)

// The document is strict where the service is: numbers as numbers, unsigned
// never negative, signature null or a string, the bare-array leaderboard,
// the error body with its optional param, and the 429's headers.
func TestCheckerIsStrict(t *testing.T) {
	c, err := openapitest.Shared()
	if err != nil {
		t.Fatal(err)
	}
	const stats = `{"totalGrossRebate":12345678901234,"totalNetRebate":-5000,"totalTransactionCount":3,"totalWallets":2,"totalDonations":1,"totalDonationAmount":10,"totalRentRebate":12345678901234,"totalOwnBalanceRebate":0}`
	const errBody = `{"statusCode":400,"error":"Bad Request","code":"invalid_argument","message":"x","param":"startDate"}`
	const submit = `{"results":[{"signature":null,"status":"failed","includes":[],"error":{"code":"RPC_ERROR","message":"m"}}]}`
	const entry = `{"payer":"P","totalGrossRebate":1,"totalNetRebate":-1,"totalTransactionCount":1,"transactionTypeCounts":{"nft_burn":1},"totalDonationAmount":0,"totalDonationCount":0,"totalCommunityAmount":0}`
	limited := http.Header{"Retry-After": {"2"}, "X-Ratelimit-Limit": {"40"}, "X-Ratelimit-Remaining": {"0"}}
	cases := []struct {
		name, method, target string
		status               int
		header               http.Header
		body                 string
		ok                   bool
	}{
		{"stats", "GET", "/v1/stats", 200, nil, stats, true},
		{"int64 as a string", "GET", "/v1/stats", 200, nil, strings.Replace(stats, "12345678901234", `"12345678901234"`, 1), false},
		{"a negative count", "GET", "/v1/stats", 200, nil, strings.Replace(stats, `"totalWallets":2`, `"totalWallets":-2`, 1), false},
		{"a missing field", "GET", "/v1/stats", 200, nil, strings.Replace(stats, `"totalWallets":2,`, ``, 1), false},
		{"an unknown field", "GET", "/v1/stats", 200, nil, strings.Replace(stats, `{`, `{"bogus":1,`, 1), false},
		{"an error", "GET", "/v1/leaderboard", 400, nil, errBody, true},
		{"an error without param", "GET", "/v1/stats", 401, nil, strings.Replace(errBody, `,"param":"startDate"`, ``, 1), true},
		{"an error without code", "GET", "/v1/stats", 401, nil, strings.Replace(errBody, `"code":"invalid_argument",`, ``, 1), false},
		{"an error with an unknown code", "GET", "/v1/stats", 401, nil, strings.Replace(errBody, "invalid_argument", "oops", 1), false},
		{"a 429 with its headers", "GET", "/v1/stats", 429, limited, errBody, true},
		{"a 429 without Retry-After", "GET", "/v1/stats", 429, http.Header{"X-Ratelimit-Limit": {"40"}, "X-Ratelimit-Remaining": {"0"}}, errBody, false},
		{"the leaderboard's bare array", "GET", "/v1/leaderboard?limit=5", 200, nil, "[" + entry + "]", true},
		{"the leaderboard as an object", "GET", "/v1/leaderboard", 200, nil, `{"entries":[]}`, false},
		{"signature null", "POST", "/v1/wallet/W/transactions/submit", 200, nil, submit, true},
		{"signature missing", "POST", "/v1/wallet/W/transactions/submit", 200, nil, strings.Replace(submit, `"signature":null,`, ``, 1), false},
		{"no such route: an error", "GET", "/v1/nope", 404, nil, strings.Replace(errBody, "400", "404", 1), true},
		{"no such route: not an error", "GET", "/v1/nope", 200, nil, `{}`, false},
		{"a method the route lacks", "DELETE", "/v1/stats", 405, nil, strings.Replace(errBody, "400", "405", 1), true},
		{"an error to HEAD: no body", "HEAD", "/v1/sessions", 405, nil, ``, true},
		{"an error to HEAD with a body", "HEAD", "/v1/sessions", 405, nil, errBody, false},
		{"HEAD of a GET route: the GET's answer, no body", "HEAD", "/v1/stats", 200, nil, ``, true},
		{"HEAD of a GET route with a body", "HEAD", "/v1/stats", 200, nil, stats, false},
		{"HEAD of a GET route: a 429 without Retry-After", "HEAD", "/v1/stats", 429, http.Header{"X-Ratelimit-Limit": {"40"}, "X-Ratelimit-Remaining": {"0"}}, ``, false},
		{"a redirect", "POST", "/v1/wallet//transactions", 307, http.Header{"Location": {"/v1/wallet/transactions"}}, ``, false},
	}
	for _, tc := range cases {
		h := http.Header{"Content-Type": {"application/json"}}
		for k, v := range tc.header {
			h[k] = v
		}
		err := c.Check(httptest.NewRequest(tc.method, tc.target, nil), tc.status, h, []byte(tc.body))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
