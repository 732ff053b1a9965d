package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
)

// seen is what a handler behind the front door received.
type seen struct {
	handler string
	body    string
	query   string
	decoded *decoded
}

func testDoor(t *testing.T) (*FrontDoor, *seen) {
	t.Helper()
	got := &seen{}
	record := func(name string) http.Handler {
		return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				t.Fatal(err)
			}
			*got = seen{handler: name, body: string(b), query: r.URL.RawQuery}
			if d, ok := r.Context().Value(decodedKey{}).(decoded); ok {
				got.decoded = &d
			}
		})
	}
	services := []protoreflect.ServiceDescriptor{
		reclaimv1.File_reclaim_v1_session_proto.Services().ByName("SessionService"),
		reclaimv1.File_reclaim_v1_wallet_proto.Services().ByName("WalletService"),
		reclaimv1.File_reclaim_v1_project_proto.Services().ByName("ProjectService"),
	}
	door := &FrontDoor{
		Check: NewRequestCheck(services, connect.NewErrorWriter(), "/v1/wallet/{address}/stream"),
		Rest:  record("vanguard"),
		Mux:   record("mux"),
		Services: map[string]http.Handler{
			"/reclaim.v1.SessionService/": record("session service"),
			"/reclaim.v1.WalletService/":  record("wallet service"),
		},
	}
	return door, got
}

func TestFrontDoorDecodesOnceAndHandsOver(t *testing.T) {
	const wallet = "DWgDJCwYW3AWtkoDnbFgqvgXLjdLjPoNdSPfMrZdS3Tn"
	build := `{"address":"not the path's","items":[{"type":"token","address":"A","action":"burn"}],"donationPercentage":0.5}`
	cases := []struct {
		name, method, target, contentType, body string
		handler                                 string
		// want is the handed-over request as protojson reads it (""
		// none); body and query what the handler still reads.
		want, body2, query string
	}{
		{name: "a REST body", method: "POST", target: "/v1/wallet/" + wallet + "/transactions", contentType: "application/json", body: build,
			handler: "vanguard", want: `{"items":[{"type":"token","address":"A","action":"burn"}],"donationPercentage":0.5}`},
		{name: "a REST query", method: "GET", target: "/v1/leaderboard?limit=5&payer=p&startDate=2026-01-01", handler: "vanguard",
			want: `{"limit":5,"payer":"p","startDate":"2026-01-01"}`},
		{name: "a field named twice in a query", method: "GET", target: "/v1/leaderboard?startDate=a&start_date=b", handler: "vanguard",
			query: "startDate=a&start_date=b"},
		{name: "no body, no query", method: "GET", target: "/v1/stats", handler: "vanguard"},
		{name: "a body the one decoder leaves", method: "POST", target: "/v1/wallet/" + wallet + "/transactions", contentType: "application/json",
			body: `{"donationPercentage":"0.5"}`, handler: "vanguard", want: `{"donationPercentage":0.5}`},
		{name: "a body protojson refuses", method: "POST", target: "/v1/sessions", contentType: "application/json",
			body: `{"walletAddress":"a","wallet_address":"b"}`, handler: "vanguard", body2: `{"walletAddress":"a","wallet_address":"b"}`},
		{name: "not a route", method: "POST", target: "/v1/nothing?x=1", body: `{}`, handler: "mux", body2: `{}`, query: "x=1"},
		{name: "a Connect call", method: "POST", target: "/reclaim.v1.SessionService/CreateSession", contentType: "application/json",
			body: `{"walletAddress":"w","ttlSeconds":"60"}`, handler: "session service", want: `{"walletAddress":"w","ttlSeconds":60}`},
		{name: "a Connect call with a charset", method: "POST", target: "/reclaim.v1.SessionService/CreateSession",
			contentType: "application/json; charset=utf-8", body: `{"walletAddress":"w"}`, handler: "session service", body2: `{"walletAddress":"w"}`},
		{name: "a Connect proto call", method: "POST", target: "/reclaim.v1.SessionService/CreateSession", contentType: "application/proto",
			body: "\x0a\x01w", handler: "session service", want: `{"walletAddress":"w"}`},
		{name: "a gRPC call", method: "POST", target: "/reclaim.v1.SessionService/CreateSession", contentType: "application/grpc",
			body: "\x00\x00\x00\x00\x03\x0a\x01w", handler: "session service", body2: "\x00\x00\x00\x00\x00", want: `{"walletAddress":"w"}`},
		{name: "a compressed gRPC call", method: "POST", target: "/reclaim.v1.SessionService/CreateSession", contentType: "application/grpc",
			body: "\x01\x00\x00\x00\x03abc", handler: "session service", body2: "\x01\x00\x00\x00\x03abc"},
		{name: "a gRPC stream's request", method: "POST", target: "/reclaim.v1.WalletService/StreamWalletAssets", contentType: "application/grpc",
			body: "\x00\x00\x00\x00\x03\x0a\x01w", handler: "wallet service", body2: "\x00\x00\x00\x00\x03\x0a\x01w"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			door, got := testDoor(t)
			req := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			w := httptest.NewRecorder()
			door.ServeHTTP(w, req)
			if got.handler != tc.handler || got.body != tc.body2 || got.query != tc.query {
				t.Fatalf("%s read body %q, query %q; want %s, %q, %q (answer %d %s)", got.handler, got.body, got.query,
					tc.handler, tc.body2, tc.query, w.Code, w.Body)
			}
			if tc.want == "" {
				if got.decoded != nil {
					t.Fatalf("handed over %v", got.decoded.msg)
				}
				return
			}
			if got.decoded == nil {
				t.Fatal("nothing handed over")
			}
			want := got.decoded.msg.ProtoReflect().New().Interface()
			if err := protojson.Unmarshal([]byte(tc.want), want); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got.decoded.msg, want) {
				t.Fatalf("handed over %v, want %v", got.decoded.msg, want)
			}
		})
	}
}

// The handover moves the decoded request into connect-go's, whose path
// variable (from vanguard) stays; another procedure's request is left
// alone.
func TestHandoverMovesTheDecodedRequest(t *testing.T) {
	const procedure = "/reclaim.v1.WalletService/BuildTransactions"
	items := []*reclaimv1.ItemSelection{{Type: "token", Address: "A", Action: "burn"}}
	for _, tc := range []struct {
		name, procedure string
		want            *reclaimv1.BuildTransactionsRequest
	}{
		{"its procedure", procedure, &reclaimv1.BuildTransactionsRequest{Address: "the path's", Items: items, DonationPercentage: proto.Float64(0.5)}},
		{"another procedure", "/reclaim.v1.WalletService/Other", &reclaimv1.BuildTransactionsRequest{Address: "the path's"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var handled *reclaimv1.BuildTransactionsRequest
			h := connect.NewUnaryHandler(procedure,
				func(_ context.Context, r *connect.Request[reclaimv1.BuildTransactionsRequest]) (*connect.Response[reclaimv1.BuildTransactionsResponse], error) {
					handled = r.Msg
					return connect.NewResponse(&reclaimv1.BuildTransactionsResponse{}), nil
				}, connect.WithInterceptors(Handover{}))
			msg := &reclaimv1.BuildTransactionsRequest{Items: items, DonationPercentage: proto.Float64(0.5)}
			ctx := context.WithValue(context.Background(), decodedKey{}, decoded{procedure: tc.procedure, msg: msg})
			req := httptest.NewRequestWithContext(ctx, "POST", procedure, strings.NewReader(`{"address":"the path's"}`))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK || !proto.Equal(handled, tc.want) {
				t.Fatalf("%d %s: handled %v, want %v", w.Code, w.Body, handled, tc.want)
			}
		})
	}
}

// A protobuf body that does not parse gets a message for a person, in the
// call's protocol, for unary calls and streams alike (not protobuf's own
// "proto: cannot parse invalid wire-format data").
func TestProtobufThatDoesNotParse(t *testing.T) {
	const want = "request body is not a reclaim.v1.StreamWalletAssetsRequest in the protobuf binary format: encode it with the API's .proto files"
	for _, tc := range []struct {
		contentType, body string
		header, text      string // where the message is: a header or the body
	}{
		{"application/connect+proto", "\x00\x00\x00\x00\x03\x0a\xff\x01", "", `"message":"` + want + `"`},
		{"application/grpc", "\x00\x00\x00\x00\x03\x0a\xff\x01", "Grpc-Message", want},
	} {
		t.Run(tc.contentType, func(t *testing.T) {
			door, got := testDoor(t)
			req := httptest.NewRequest("POST", "/reclaim.v1.WalletService/StreamWalletAssets", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.contentType)
			req.ProtoMajor = 2
			w := httptest.NewRecorder()
			door.ServeHTTP(w, req)
			text := w.Body.String()
			if tc.header != "" {
				text, _ = url.PathUnescape(w.Header().Get(tc.header))
			}
			if got.handler != "" || !strings.Contains(text, tc.text) {
				t.Fatalf("%s reached; answer %d %v %s", got.handler, w.Code, w.Header(), w.Body)
			}
		})
	}
}
