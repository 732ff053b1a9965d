package server_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/reclaim-sol/reclaim/gen/openapi/openapitest"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// wire is a protocol a golden request is sent in; a set of them is a mask.
type wire int

const (
	restJSON     wire = 1 << iota // REST, JSON over plain net/http
	connectJSON                   // Connect unary, application/json
	connectProto                  // Connect unary, application/proto
	grpcProto                     // gRPC over HTTP/2, application/grpc

	jsonWires = restJSON | connectJSON
	allWires  = restJSON | connectJSON | connectProto | grpcProto
)

var wireNames = map[wire]string{restJSON: "REST", connectJSON: "Connect JSON", connectProto: "Connect proto", grpcProto: "gRPC"}

// op is one operation of the API: its REST route and its procedure.
type op struct {
	method, path string // REST; path may hold {address}
	procedure    string
	// request and response are empty messages of the procedure's types
	// (never filled: newRequest and newResponse make the ones to fill).
	request, response proto.Message
	// stream: a server stream, whose Connect request is enveloped.
	stream bool
}

func (o op) newRequest() proto.Message  { return o.request.ProtoReflect().New().Interface() }
func (o op) newResponse() proto.Message { return o.response.ProtoReflect().New().Interface() }

var (
	opSession = op{"POST", "/v1/sessions", reclaimv1connect.SessionServiceCreateSessionProcedure,
		&reclaimv1.CreateSessionRequest{}, &reclaimv1.CreateSessionResponse{}, false}
	opAssets = op{"GET", "/v1/wallet/{address}/assets", reclaimv1connect.WalletServiceListAssetsProcedure,
		&reclaimv1.ListAssetsRequest{}, &reclaimv1.ListAssetsResponse{}, false}
	opBuild = op{"POST", "/v1/wallet/{address}/transactions", reclaimv1connect.WalletServiceBuildTransactionsProcedure,
		&reclaimv1.BuildTransactionsRequest{}, &reclaimv1.BuildTransactionsResponse{}, false}
	opSubmit = op{"POST", "/v1/wallet/{address}/transactions/submit", reclaimv1connect.WalletServiceSubmitTransactionsProcedure,
		&reclaimv1.SubmitTransactionsRequest{}, &reclaimv1.SubmitTransactionsResponse{}, false}
	opStats = op{"GET", "/v1/stats", reclaimv1connect.ProjectServiceGetStatsProcedure,
		&reclaimv1.GetStatsRequest{}, &reclaimv1.GetStatsResponse{}, false}
	opLeaderboard = op{"GET", "/v1/leaderboard", reclaimv1connect.ProjectServiceGetLeaderboardProcedure,
		&reclaimv1.GetLeaderboardRequest{}, &reclaimv1.GetLeaderboardResponse{}, false}
	opStream = op{"GET", "/v1/wallet/{address}/stream", reclaimv1connect.WalletServiceStreamWalletAssetsProcedure,
		&reclaimv1.StreamWalletAssetsRequest{}, &reclaimv1.StreamWalletAssetsResponse{}, true}
	opSubmissions = op{"GET", "/v1/wallet/{address}/submissions", reclaimv1connect.WalletServiceGetSubmissionsProcedure,
		&reclaimv1.GetSubmissionsRequest{}, &reclaimv1.GetSubmissionsResponse{}, false}
)

// gcred is a credential, with the label the golden file shows for it (the
// secret itself never appears there).
type gcred struct {
	label string
	set   func(http.Header)
}

// call is one request of the flow, sent in each wire of wires.
type call struct {
	name    string
	op      op
	address string // the path's {address}, also the Connect message's
	query   string // the REST query string; Connect gets it as fields
	body    string // the REST body; Connect gets it with the address added
	cred    gcred
	// header, when set, adds or replaces request headers ("" removes one).
	header map[string]string
	wires  wire
	// method and path, when set, replace the operation's (for REST, path
	// is the whole path and query); raw replaces the body of the other
	// wires (malformed protobuf).
	method, path string
	raw          []byte
}

// restPath is the REST path of the call, with its query.
func (c call) restPath() string {
	if c.path != "" {
		return c.path
	}
	p := strings.ReplaceAll(c.op.path, "{address}", c.address)
	if c.query != "" {
		p += "?" + c.query
	}
	return p
}

// connectBody is the Connect JSON body: the REST body with the path's
// address and the query's fields put first in its object (the rest of it
// kept byte for byte: a malformed body stays malformed). A body that is not
// an object is sent as it is; an empty one with nothing to add is {}.
func (c call) connectBody(t *testing.T) string {
	t.Helper()
	var fields []string
	if strings.Contains(c.op.path, "{address}") {
		fields = append(fields, `"address":`+jsonOf(t, c.address))
	}
	q, err := url.ParseQuery(c.query)
	if err != nil {
		t.Fatalf("%s: query %q: %v", c.name, c.query, err)
	}
	md := c.op.request.ProtoReflect().Descriptor()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		fd := md.Fields().ByJSONName(k)
		switch {
		case fd != nil && fd.IsList() && fd.Kind() == protoreflect.StringKind:
			fields = append(fields, jsonOf(t, k)+":"+jsonOf(t, q[k]))
		case fd == nil || len(q[k]) != 1:
			t.Fatalf("%s: query %q has no Connect form", c.name, c.query)
		case fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.EnumKind:
			fields = append(fields, jsonOf(t, k)+":"+jsonOf(t, q[k][0]))
		default:
			fields = append(fields, jsonOf(t, k)+":"+q[k][0])
		}
	}
	body := strings.TrimSpace(c.body)
	switch {
	case len(fields) == 0 && body == "":
		return "{}"
	case len(fields) == 0:
		return c.body
	case body == "":
		return "{" + strings.Join(fields, ",") + "}"
	case !strings.HasPrefix(body, "{"):
		return c.body
	case strings.HasPrefix(strings.TrimSpace(body[1:]), "}"):
		return "{" + strings.Join(fields, ",") + strings.TrimSpace(body[1:])
	}
	return "{" + strings.Join(fields, ",") + "," + body[1:]
}

// sent is a request as it went out: what the golden file shows of it.
type sent struct {
	method, path string
	header       http.Header
	body         []byte
	// shown, when set, is the body as the file shows it (binary bodies: the
	// JSON of the same message).
	shown string
}

// answer is a response read whole.
type answer struct {
	status  int
	header  http.Header
	trailer http.Header
	body    []byte
}

// transports: no Accept-Encoding is sent (as curl sends none), so answers
// are never compressed and bodies are the bytes the handler wrote.
func goldenClients() (rest, h2 *http.Client) {
	plain := h2cTransport()
	plain.DisableCompression = true
	grpc := h2Only()
	grpc.DisableCompression = true
	return &http.Client{Transport: openapitest.Transport(plain)}, &http.Client{Transport: grpc}
}

// request builds the request of c in w.
func (c call) request(t *testing.T, w wire) sent {
	t.Helper()
	s := sent{method: "POST", path: c.op.procedure, header: http.Header{}}
	switch w {
	case restJSON:
		s.method, s.path, s.body = c.op.method, c.restPath(), []byte(c.body)
		if c.body != "" {
			s.header.Set("Content-Type", "application/json")
		}
	case connectJSON:
		s.body = []byte(c.connectBody(t))
		s.header.Set("Content-Type", "application/json")
		if c.op.stream {
			s.body, s.shown = envelope(0, s.body), "(enveloped) "+string(s.body)
			s.header.Set("Content-Type", "application/connect+json")
		}
	case connectProto, grpcProto:
		s.body, s.shown = c.protoBody(t)
		s.header.Set("Content-Type", "application/proto")
		if c.op.stream && w == connectProto {
			s.body, s.shown = envelope(0, s.body), "(enveloped) "+s.shown
			s.header.Set("Content-Type", "application/connect+proto")
		}
		if w == grpcProto {
			s.body, s.shown = envelope(0, s.body), "(enveloped) "+s.shown
			s.header.Set("Content-Type", "application/grpc")
			s.header.Set("Te", "trailers")
		}
	}
	if c.method != "" {
		s.method = c.method
	}
	if c.raw != nil && w != restJSON {
		s.body, s.shown = c.raw, ""
		if w == grpcProto {
			s.body = envelope(0, c.raw)
		}
	}
	if c.cred.set != nil {
		c.cred.set(s.header)
	}
	for k, v := range c.header {
		if v == "" {
			s.header.Del(k)
			continue
		}
		s.header.Set(k, v)
	}
	return s
}

// protoBody is the Connect JSON body as protobuf, and how the file shows it.
func (c call) protoBody(t *testing.T) ([]byte, string) {
	t.Helper()
	js := c.connectBody(t)
	msg := c.op.newRequest()
	if err := protojson.Unmarshal([]byte(js), msg); err != nil {
		t.Fatalf("%s: %s has no protobuf form: %v", c.name, js, err)
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return b, "(protobuf of) " + js
}

// envelope frames a message as gRPC and Connect streams do.
func envelope(flags byte, msg []byte) []byte {
	out := binary.BigEndian.AppendUint32([]byte{flags}, uint32(len(msg)))
	return append(out, msg...)
}

// do sends s to the server and reads the answer whole, trailers included.
func (g *golden) do(s sent, w wire) answer {
	g.t.Helper()
	req, err := http.NewRequest(s.method, g.e.srv.URL+s.path, bytes.NewReader(s.body))
	if err != nil {
		g.t.Fatal(err)
	}
	if len(s.body) == 0 {
		req.Body = http.NoBody
	}
	req.Header = s.header.Clone()
	client := g.rest
	if w == grpcProto {
		client = g.h2
	}
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", s.method, s.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, trailer: resp.Trailer, body: body}
}

// decode reads a success answer of w into msg.
func (a answer) decode(t *testing.T, w wire, msg proto.Message) {
	t.Helper()
	var err error
	switch w {
	case restJSON, connectJSON:
		err = protojson.Unmarshal(a.body, msg)
	case connectProto:
		err = proto.Unmarshal(a.body, msg)
	case grpcProto:
		frames := frames(a.body)
		if len(frames) != 1 {
			t.Fatalf("gRPC answer with %d messages", len(frames))
		}
		err = proto.Unmarshal(frames[0].payload, msg)
	}
	if err != nil || a.status != http.StatusOK {
		t.Fatalf("%s answer %d %q: %v", wireNames[w], a.status, a.body, err)
	}
}

// frame is one enveloped message of a gRPC or Connect streaming body.
type frame struct {
	flags   byte
	payload []byte
}

// frames splits an enveloped body; a torn tail is returned as one last
// frame with flags 0xff.
func frames(b []byte) []frame {
	var out []frame
	for len(b) > 0 {
		if len(b) < 5 || uint64(len(b)-5) < uint64(binary.BigEndian.Uint32(b[1:5])) {
			return append(out, frame{flags: 0xff, payload: b})
		}
		n := int(binary.BigEndian.Uint32(b[1:5]))
		out = append(out, frame{flags: b[0], payload: b[5 : 5+n]})
		b = b[5+n:]
	}
	return out
}
