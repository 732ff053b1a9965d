package assets

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/reclaim-sol/reclaim/backend/chain/metaplex"
	"github.com/reclaim-sol/reclaim/backend/pkg/rpclimit"
)

// jsonCluster serves a chain over JSON-RPC as a node does, batches
// included (unless refuseBatches), and counts the HTTP requests that carry
// getMultipleAccounts and how many calls each carried.
type jsonCluster struct {
	c             *chain
	refuseBatches bool
	mu            sync.Mutex
	requests      []int // getMultipleAccounts calls per HTTP request
}

func (j *jsonCluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type request struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	var reqs []request
	batch := strings.HasPrefix(strings.TrimSpace(string(raw)), "[")
	if batch && j.refuseBatches {
		http.Error(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"batch requests are not allowed"},"id":null}`, http.StatusForbidden)
		return
	}
	if batch {
		_ = json.Unmarshal(raw, &reqs)
	} else {
		var one request
		_ = json.Unmarshal(raw, &one)
		reqs = []request{one}
	}
	f := j.c.rpc()
	var answers []any
	multiple := 0
	for _, q := range reqs {
		var result any
		switch q.Method {
		case "getTokenAccountsByOwner":
			var owner string
			var filter struct{ ProgramID string }
			_ = json.Unmarshal(q.Params[0], &owner)
			_ = json.Unmarshal(q.Params[1], &filter)
			res, _ := f.tokenAccounts(solana.MustPublicKeyFromBase58(owner), solana.MustPublicKeyFromBase58(filter.ProgramID))
			value := []any{}
			for _, ta := range res.Value {
				value = append(value, map[string]any{"pubkey": ta.Pubkey.String(), "account": accountJSON(&ta.Account)})
			}
			result = map[string]any{"context": map[string]any{"slot": 1}, "value": value}
		case "getMultipleAccounts":
			multiple++
			var keys []solana.PublicKey
			_ = json.Unmarshal(q.Params[0], &keys)
			res, _ := f.multiple(keys)
			value := make([]any, len(keys))
			for i, a := range res.Value {
				if a != nil {
					value[i] = accountJSON(a)
				}
			}
			result = map[string]any{"context": map[string]any{"slot": 1}, "value": value}
		case "getProgramAccounts":
			result = []any{}
		}
		answers = append(answers, map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": result})
	}
	if multiple > 0 {
		j.mu.Lock()
		j.requests = append(j.requests, multiple)
		j.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		for i, k := 0, len(answers)-1; i < k; i, k = i+1, k-1 { // any order
			answers[i], answers[k] = answers[k], answers[i]
		}
		_ = json.NewEncoder(w).Encode(answers)
		return
	}
	_ = json.NewEncoder(w).Encode(answers[0])
}

func accountJSON(a *rpc.Account) map[string]any {
	d := a.Data.GetBinary()
	return map[string]any{"lamports": a.Lamports, "owner": a.Owner.String(), "executable": false, "rentEpoch": 0, "space": len(d),
		"data": []string{base64.StdEncoding.EncodeToString(d), "base64"}}
}

// TestAssetsBatchedReads: a read of more chunks than the request's Limit
// has slots goes out in JSON-RPC batches, as few calls per HTTP request as
// keep the requests within the slots, and lists what single calls list; a
// cluster that refuses batches gets single calls instead.
func TestAssetsBatchedReads(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for range 500 { // balances: a mint and a PDA each, 1,000 keys, 10 calls
		w.account(solana.TokenProgramID, tokenRent, acct{mint: w.mint(solana.TokenProgramID, 6, 100, nil), amount: 1})
	}
	want, err := NewDiscoverer(w.c.rpc(), nil).List(context.Background(), w.wallet)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		limit    int
		refuse   bool
		requests []int // getMultipleAccounts calls per HTTP request, sorted
	}{
		{"within the limit", 32, false, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}, // the state, 10 calls
		{"four slots", 4, false, []int{1, 2, 4, 4}},                             // 11 calls of 99 keys at most, in 3 of the 4 slots: batches of 4
		{"batches refused", 4, true, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},    // each refused batch again call by call
		{"two slots", 2, false, []int{1, 2, maxBatch}},                          // batches for one slot of the two
		{"one slot", 1, false, []int{1, 2, maxBatch}},                           // at most maxBatch
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := &jsonCluster{c: w.c, refuseBatches: tc.refuse}
			srv := httptest.NewServer(j)
			defer srv.Close()
			ctx := rpclimit.With(context.Background(), rpclimit.New(tc.limit))
			got, err := NewDiscoverer(rpc.New(srv.URL), nil).List(ctx, w.wallet)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatal("the listing differs from single calls'")
			}
			j.mu.Lock()
			defer j.mu.Unlock()
			slices.Sort(j.requests)
			if !reflect.DeepEqual(j.requests, tc.requests) {
				t.Fatalf("getMultipleAccounts calls per HTTP request %v, want %v", j.requests, tc.requests)
			}
		})
	}
}

// TestAssetsPDACache: metadataAddresses gives each mint's metadata PDA,
// derived or remembered; the cache holds at most two generations, and a
// key read from the older one is kept in the newer.
func TestAssetsPDACache(t *testing.T) {
	t.Parallel()
	mints := make([]solana.PublicKey, 3*pdaBlock+7)
	for i := range mints {
		mints[i] = solana.NewWallet().PublicKey()
	}
	for range 2 { // derived, then remembered
		pdas, ready := metadataAddresses(mints)
		for _, ch := range ready {
			<-ch
		}
		for i, m := range mints {
			if pdas[i] != metaplex.MetadataAddress(m) {
				t.Fatalf("mint %d: PDA %s, want %s", i, pdas[i], metaplex.MetadataAddress(m))
			}
		}
	}

	c := &addressCache{size: 4}
	key := func(i int) solana.PublicKey { return solana.PublicKeyFromBytes(append(make([]byte, 31), byte(i))) }
	for i := range 10 {
		c.put([]solana.PublicKey{key(i)}, []solana.PublicKey{key(100 + i)}, []int{0})
		if n := len(c.cur) + len(c.prev); n > 2*c.size {
			t.Fatalf("%d entries after %d puts", n, i+1)
		}
	}
	out := make([]solana.PublicKey, 10)
	keys := make([]solana.PublicKey, 10)
	for i := range keys {
		keys[i] = key(i)
	}
	missing := c.get(keys, out)
	if !reflect.DeepEqual(missing[:4], []int{0, 1, 2, 3}) || slices.Contains(missing, 8) || slices.Contains(missing, 9) {
		t.Fatalf("missing %v: want the oldest four, never the last two put", missing)
	}
	for i, v := range out {
		if !slices.Contains(missing, i) && v != key(100+i) {
			t.Fatalf("key %d: %s", i, v)
		}
	}
	if n := len(c.cur) + len(c.prev); n > 2*c.size {
		t.Fatalf("%d entries after the reads", n)
	}
}
