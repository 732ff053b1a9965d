package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// chunk is one streamWalletAssets message as a client reads it.
type chunk struct {
	WalletAddress string           `json:"walletAddress"`
	Items         []map[string]any `json:"items"`
	EarlyItems    []map[string]any `json:"earlyItems"`
	ChunkIndex    int              `json:"chunkIndex"`
	Complete      bool             `json:"complete"`
	Counts        map[string]int   `json:"counts"`
}

// socketResult is everything a WebSocket client saw.
type socketResult struct {
	chunks   []chunk
	errEvent map[string]any
	close    websocket.CloseError
	raw      []string
}

// dialStream opens the wallet stream; query is appended to the path.
func (e *env) dialStream(t *testing.T, wallet, query string, opts *websocket.DialOptions) *websocket.Conn {
	t.Helper()
	url := "ws" + strings.TrimPrefix(e.srv.URL, "http") + "/v1/wallet/" + wallet + "/stream" + query
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		t.Fatalf("dial: %v (response %+v)", err, resp)
	}
	c.SetReadLimit(10 << 20)
	return c
}

// readAll reads messages until the server closes.
func readAll(t *testing.T, c *websocket.Conn) socketResult {
	t.Helper()
	var res socketResult
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			if !errors.As(err, &res.close) {
				t.Fatalf("read: %v", err)
			}
			return res
		}
		res.raw = append(res.raw, string(msg))
		var ev struct {
			Event string          `json:"event"`
			Data  json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(msg, &ev); err != nil {
			t.Fatalf("message %s: %v", msg, err)
		}
		switch ev.Event {
		case "streamWalletAssets":
			var ch chunk
			if err := json.Unmarshal(ev.Data, &ch); err != nil {
				t.Fatal(err)
			}
			res.chunks = append(res.chunks, ch)
		case "error":
			if err := json.Unmarshal(ev.Data, &res.errEvent); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown event %s", msg)
		}
	}
}

func tokenQuery(tok string) string { return "?token=" + tok }

// TestStreamAuth: every credential problem is refused after the handshake
// with an error event (the REST error body) and a close code of 4000 + the
// REST status; the Connect stream refuses the same calls as unauthenticated.
func TestStreamAuth(t *testing.T) {
	t.Parallel()
	fc := newFakeCluster(t)
	e := newEnv(t, withRPC(fc.url))
	wallet := fc.owner.String()
	good := e.session(wallet)
	readOnly := e.session(wallet, "wallet:read")
	other := e.session(newWallet())
	cases := []struct {
		name   string
		query  string
		header http.Header
		protos []string
		want   string
	}{
		{"no token", "", nil, nil, "missing credentials"},
		{"bad token", tokenQuery("eyJhbGciOiJFZERTQSJ9.e30.c2ln"), nil, nil, "invalid session token"},
		{"missing scope", tokenQuery(readOnly), nil, nil, "session lacks scope wallet:stream"},
		{"wrong wallet", tokenQuery(other), nil, nil, "wallet mismatch"},
		{"API key", "", http.Header{"X-Api-Key": {e.apiKey}}, nil, "takes a session token"},
		{"API key beside a token", tokenQuery(good), http.Header{"X-Api-Key": {e.apiKey}}, nil, "not both"},
		{"token twice", tokenQuery(good), nil, []string{"reclaim.v1", "bearer." + good}, "send the session token once"},
		{"token twice in the query", tokenQuery(good) + "&token=" + good, nil, nil, "send the session token once"},
		{"empty token", "?token=", nil, nil, "empty session token"},
	}
	for _, tc := range cases {
		t.Run("websocket/"+tc.name, func(t *testing.T) {
			t.Parallel()
			c := e.dialStream(t, wallet, tc.query, &websocket.DialOptions{HTTPHeader: tc.header, Subprotocols: tc.protos})
			res := readAll(t, c)
			if len(res.chunks) != 0 || res.close.Code != 4401 || !strings.Contains(res.close.Reason, tc.want) {
				t.Fatalf("got %d chunks, close %d %q; want 4401 %q", len(res.chunks), res.close.Code, res.close.Reason, tc.want)
			}
			ev := res.errEvent
			if ev["statusCode"] != float64(401) || ev["error"] != "Unauthorized" || ev["code"] != "unauthenticated" ||
				!strings.Contains(fmt.Sprint(ev["message"]), tc.want) {
				t.Fatalf("error event %v", ev)
			}
		})
	}
	connectCases := []struct {
		name string
		cred cred
		want string
	}{
		{"no token", noCred(), "missing credentials"},
		{"bad token", bearer("eyJhbGciOiJFZERTQSJ9.e30.c2ln"), "invalid session token"},
		{"missing scope", bearer(readOnly), "session lacks scope wallet:stream"},
		{"wrong wallet", bearer(other), "wallet mismatch"},
		{"API key", apiKey(e.apiKey), "takes a session token"},
	}
	cl := e.connectClients()
	for _, tc := range connectCases {
		t.Run("connect/"+tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := cl.wallet.StreamWalletAssets(context.Background(), withCred(&reclaimv1.StreamWalletAssetsRequest{Address: wallet}, tc.cred))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Receive() {
				t.Fatalf("received a chunk: %v", s.Msg())
			}
			if code := connectCode(t, s.Err()); code != connect.CodeUnauthenticated || !strings.Contains(s.Err().Error(), tc.want) {
				t.Fatalf("err %v, want unauthenticated %q", s.Err(), tc.want)
			}
		})
	}
}

// TestStreamChunks streams a wallet of 120 token accounts in chunks of 50
// over the WebSocket (token in the query or as a subprotocol) and over
// Connect: 50, 50, 20 items, counts running, only the last complete, and
// the chunks concatenated are the REST listing's items, in its order.
func TestStreamChunks(t *testing.T) {
	t.Parallel()
	fc := newFakeCluster(t)
	fc.add(120)
	e := newEnv(t, withRPC(fc.url))
	wallet := fc.owner.String()
	tok := e.session(wallet)
	var listing struct {
		Items  []map[string]any `json:"items"`
		Counts map[string]int   `json:"counts"`
	}
	if err := json.Unmarshal(e.rest("GET", "/v1/wallet/"+wallet+"/assets", bearer(tok), nil).status(200).body, &listing); err != nil {
		t.Fatal(err)
	}
	if len(listing.Items) != 120 {
		t.Fatalf("listing has %d items", len(listing.Items))
	}
	check := func(t *testing.T, chunks []chunk) {
		t.Helper()
		// The 40 empty accounts early, then the items.
		sizes, early := []int{0, 50, 50, 20}, []int{40, 0, 0, 0}
		if len(chunks) != len(sizes) {
			t.Fatalf("%d chunks, want %d", len(chunks), len(sizes))
		}
		checkEarly(t, chunks, listing.Items)
		var all []map[string]any
		running := map[string]int{}
		for i, ch := range chunks {
			for _, it := range ch.Items {
				running[fmt.Sprint(it["type"])]++
			}
			all = append(all, ch.Items...)
			if ch.ChunkIndex != i || len(ch.Items) != sizes[i] || len(ch.EarlyItems) != early[i] || ch.Complete != (i == len(chunks)-1) || ch.WalletAddress != wallet {
				t.Fatalf("chunk %d: index %d, %d items, %d early, complete %v", i, ch.ChunkIndex, len(ch.Items), len(ch.EarlyItems), ch.Complete)
			}
			if len(ch.Counts) != len(assets.ItemTypes()) {
				t.Fatalf("chunk %d counts %v lack types", i, ch.Counts)
			}
			for typ, n := range ch.Counts {
				if running[typ] != n {
					t.Fatalf("chunk %d counts %v, sent so far %v", i, ch.Counts, running)
				}
			}
		}
		if !reflect.DeepEqual(chunks[len(chunks)-1].Counts, listing.Counts) {
			t.Fatalf("final counts %v, listing's %v", chunks[len(chunks)-1].Counts, listing.Counts)
		}
		if !reflect.DeepEqual(all, listing.Items) {
			t.Fatal("chunks concatenated differ from the REST listing's items")
		}
	}
	t.Run("websocket, token in the query", func(t *testing.T) {
		t.Parallel()
		res := readAll(t, e.dialStream(t, wallet, tokenQuery(tok)+"&chunkSize=50", nil))
		if res.close.Code != websocket.StatusNormalClosure || res.errEvent != nil {
			t.Fatalf("close %v, error %v", res.close, res.errEvent)
		}
		if !strings.HasPrefix(res.raw[0], `{"event":"streamWalletAssets","data":{`) {
			t.Fatalf("message %.80s", res.raw[0])
		}
		check(t, res.chunks)
	})
	t.Run("websocket, token as a subprotocol", func(t *testing.T) {
		t.Parallel()
		c := e.dialStream(t, wallet, "?chunkSize=50", &websocket.DialOptions{Subprotocols: []string{"reclaim.v1", "bearer." + tok}})
		if c.Subprotocol() != "reclaim.v1" {
			t.Fatalf("subprotocol %q, want reclaim.v1 (never the token)", c.Subprotocol())
		}
		check(t, readAll(t, c).chunks)
	})
	t.Run("websocket, default chunk size", func(t *testing.T) {
		t.Parallel()
		res := readAll(t, e.dialStream(t, wallet, tokenQuery(tok), nil))
		if len(res.chunks) != 4 || len(res.chunks[0].EarlyItems) != 40 || len(res.chunks[1].Items) != 50 {
			t.Fatalf("%d chunks", len(res.chunks))
		}
	})
	t.Run("connect", func(t *testing.T) {
		t.Parallel()
		size := uint32(50)
		s, err := e.connectClients().wallet.StreamWalletAssets(context.Background(),
			withCred(&reclaimv1.StreamWalletAssetsRequest{Address: wallet, ChunkSize: &size}, bearer(tok)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var chunks []chunk
		for s.Receive() {
			// As the Connect JSON client receives it.
			b, err := protojson.Marshal(s.Msg())
			if err != nil {
				t.Fatal(err)
			}
			var ch chunk
			_ = json.Unmarshal(b, &ch)
			chunks = append(chunks, ch)
		}
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		if s.ResponseHeader().Get("X-RateLimit-Limit") == "" {
			t.Error("no rate-limit headers on the stream")
		}
		if len(chunks) != 4 || len(chunks[0].EarlyItems) != 40 {
			t.Fatalf("%d chunks", len(chunks))
		}
		checkEarly(t, chunks, listing.Items)
		for i, ch := range chunks[1:] {
			if len(ch.Items) == 0 || ch.Complete != (i == 2) {
				t.Fatalf("chunk %d: %d items complete %v", i+1, len(ch.Items), ch.Complete)
			}
		}
	})
	t.Run("REST pages follow the same order", func(t *testing.T) {
		t.Parallel()
		var all []map[string]any
		cursor := ""
		for range 10 {
			var page struct {
				Items      []map[string]any `json:"items"`
				NextCursor *string          `json:"nextCursor"`
			}
			path := "/v1/wallet/" + wallet + "/assets?limit=35"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			if err := json.Unmarshal(e.rest("GET", path, bearer(tok), nil).status(200).body, &page); err != nil {
				t.Fatal(err)
			}
			all = append(all, page.Items...)
			if page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		if !reflect.DeepEqual(all, listing.Items) {
			t.Fatalf("pages of 35 give %d items, not the listing", len(all))
		}
	})
}

// TestStreamRequests: a plain GET gets a REST 400; a bad chunk size, address
// or query parameter closes with 4400 after authentication; an empty wallet
// gives one complete chunk.
func TestStreamRequests(t *testing.T) {
	t.Parallel()
	fc := newFakeCluster(t)
	e := newEnv(t, withRPC(fc.url))
	wallet := fc.owner.String()
	tok := e.session(wallet)

	msg := e.rest("GET", "/v1/wallet/"+wallet+"/stream?token="+tok, noCred(), nil).restErr(400, "invalid_argument")
	if !strings.Contains(msg, "WebSocket") {
		t.Errorf("plain GET: %s", msg)
	}
	e.rest("POST", "/v1/wallet/"+wallet+"/stream", noCred(), nil).restErr(405, "unimplemented")

	for _, q := range []string{"&chunkSize=0", "&chunkSize=501", "&chunkSize=x", "&colour=red", "&chunkSize=2&chunkSize=3"} {
		res := readAll(t, e.dialStream(t, wallet, tokenQuery(tok)+q, nil))
		if res.close.Code != 4400 || res.errEvent["code"] != "invalid_argument" {
			t.Errorf("%s: close %v, error %v", q, res.close, res.errEvent)
		}
	}

	res := readAll(t, e.dialStream(t, wallet, tokenQuery(tok), nil))
	if len(res.chunks) != 1 || !res.chunks[0].Complete || res.chunks[0].Items == nil || len(res.chunks[0].Counts) != len(assets.ItemTypes()) {
		t.Fatalf("empty wallet: %v", res.raw)
	}
	if res.close.Code != websocket.StatusNormalClosure {
		t.Fatalf("close %v", res.close)
	}

	broken := newEnv(t)
	btok := broken.session(wallet)
	res = readAll(t, broken.dialStream(t, wallet, tokenQuery(btok), nil))
	if res.close.Code != 4503 || res.errEvent["code"] != "unavailable" {
		t.Fatalf("cluster down: close %v, error %v", res.close, res.errEvent)
	}
}

// TestStreamClientGone: a client that drops the WebSocket, or cancels the
// Connect stream, stops the discovery behind it: the cluster read in flight
// sees its request cancelled.
func TestStreamClientGone(t *testing.T) {
	t.Parallel()
	for _, via := range []string{"websocket", "connect"} {
		t.Run(via, func(t *testing.T) {
			t.Parallel()
			fc := newFakeCluster(t)
			fc.add(10)
			fc.hold = make(chan struct{})
			// A step timeout far beyond the test's wait: only the client's
			// leaving can cancel the read in time.
			e := newEnv(t, withRPC(fc.url), withRPCTimeout(time.Minute))
			wallet := fc.owner.String()
			tok := e.session(wallet)
			switch via {
			case "websocket":
				c := e.dialStream(t, wallet, tokenQuery(tok), nil)
				waitStarted(t, fc)
				_ = c.CloseNow()
			case "connect":
				ctx, cancel := context.WithCancel(context.Background())
				s, err := e.connectClients().wallet.StreamWalletAssets(ctx, withCred(&reclaimv1.StreamWalletAssetsRequest{Address: wallet}, bearer(tok)))
				if err != nil {
					t.Fatal(err)
				}
				go func() { s.Receive() }()
				waitStarted(t, fc)
				cancel()
			}
			select {
			case <-fc.cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("the cluster read was not cancelled when the client left")
			}
		})
	}
}

func waitStarted(t *testing.T, fc *fakeCluster) {
	t.Helper()
	select {
	case <-fc.started:
	case <-time.After(5 * time.Second):
		t.Fatal("discovery never reached getMultipleAccounts")
	}
}

// checkEarly checks that the early items come in the first chunks, before
// any item, and are the listing's empty accounts in its order, as the
// listing has them but for what needs their mints' metadata.
func checkEarly(t *testing.T, chunks []chunk, listing []map[string]any) {
	t.Helper()
	var early, empties []map[string]any
	for i, ch := range chunks {
		if len(ch.EarlyItems) > 0 && (len(ch.Items) > 0 || i > 0 && len(chunks[i-1].Items) > 0) {
			t.Fatalf("chunk %d: early items with or after items", i)
		}
		early = append(early, ch.EarlyItems...)
	}
	for _, it := range listing {
		if it["type"] == "empty_account" {
			empties = append(empties, it)
		}
	}
	strip := func(items []map[string]any) []map[string]any {
		out := make([]map[string]any, len(items))
		for i, it := range items {
			out[i] = maps.Clone(it)
			delete(out[i], "name")
			delete(out[i], "symbol")
			delete(out[i], "imageUri")
			if out[i]["isFrozen"] == false { // REST writes it, protojson leaves it out
				delete(out[i], "isFrozen")
			}
			if v, ok := out[i]["lamports"].(float64); ok { // REST's number, Connect's string
				out[i]["lamports"] = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		return out
	}
	if len(empties) == 0 || !reflect.DeepEqual(strip(early), strip(empties)) {
		t.Fatalf("%d early items, want the listing's %d empty accounts", len(early), len(empties))
	}
}

// TestStreamEarlyInOneRoundTrip: the first chunk goes out after one round
// trip to the cluster: it arrives while every getMultipleAccounts (the
// mints and metadata, the cluster's state) is held, and carries the empty
// accounts; once the reads go through, the items follow as the listing's.
func TestStreamEarlyInOneRoundTrip(t *testing.T) {
	t.Parallel()
	type receive func() (chunk, bool)
	for _, tc := range []struct {
		name string
		dial func(t *testing.T, e *env, wallet, tok string) receive
	}{
		{"websocket", func(t *testing.T, e *env, wallet, tok string) receive {
			c := e.dialStream(t, wallet, tokenQuery(tok)+"&chunkSize=50", nil)
			return func() (chunk, bool) {
				_, msg, err := c.Read(context.Background())
				if err != nil {
					return chunk{}, false
				}
				var ev struct{ Data chunk }
				if err := json.Unmarshal(msg, &ev); err != nil {
					t.Fatal(err)
				}
				return ev.Data, true
			}
		}},
		{"connect", func(t *testing.T, e *env, wallet, tok string) receive {
			size := uint32(50)
			s, err := e.connectClients().wallet.StreamWalletAssets(context.Background(),
				withCred(&reclaimv1.StreamWalletAssetsRequest{Address: wallet, ChunkSize: &size}, bearer(tok)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return func() (chunk, bool) {
				if !s.Receive() {
					return chunk{}, false
				}
				b, err := protojson.Marshal(s.Msg())
				if err != nil {
					t.Fatal(err)
				}
				var ch chunk
				_ = json.Unmarshal(b, &ch)
				return ch, true
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fc := newFakeCluster(t)
			fc.add(120)
			fc.hold = make(chan struct{})
			e := newEnv(t, withRPC(fc.url))
			wallet := fc.owner.String()
			tok := e.session(wallet)
			next := tc.dial(t, e, wallet, tok)
			first, ok := next()
			if !ok || len(first.EarlyItems) != 40 || len(first.Items) != 0 || first.Complete || first.ChunkIndex != 0 {
				t.Fatalf("first chunk while the mints are held: %d early items, %d items, complete %v", len(first.EarlyItems), len(first.Items), first.Complete)
			}
			close(fc.hold)
			chunks := []chunk{first}
			for ch, ok := next(); ok; ch, ok = next() {
				chunks = append(chunks, ch)
			}
			var listing struct {
				Items []map[string]any `json:"items"`
			}
			if err := json.Unmarshal(e.rest("GET", "/v1/wallet/"+wallet+"/assets", bearer(tok), nil).status(200).body, &listing); err != nil {
				t.Fatal(err)
			}
			checkEarly(t, chunks, listing.Items)
			var all []map[string]any
			for _, ch := range chunks {
				all = append(all, ch.Items...)
			}
			if len(chunks) != 4 || !chunks[3].Complete || len(all) != len(listing.Items) {
				t.Fatalf("%d chunks, %d items", len(chunks), len(all))
			}
			for i, it := range all { // TestStreamChunks compares them whole
				if it["address"] != listing.Items[i]["address"] || it["type"] != listing.Items[i]["type"] {
					t.Fatalf("item %d: %v, listing's %v", i, it, listing.Items[i])
				}
			}
		})
	}
}
